import DataLoader from 'dataloader'
import type { NearestSiteLookup } from '../domain/ports/sites.ts'
import type { Coordinates, NearestSite } from '../types.ts'

export type FindNearestSites = (points: readonly Coordinates[]) => Promise<(NearestSite | null)[]>

/** Equal points within one batch are looked up once. */
function deduplicated(findNearest: FindNearestSites): FindNearestSites {
  return async (points) => {
    // Keyed by latitude, a number (0 and −0 are one point, as they are one place): no key strings to build
    // unless two points share a latitude but not a longitude.
    const slotByLatitude = new Map<number, number>()
    let slotByPoint: Map<string, number> | undefined
    const unique: Coordinates[] = []
    const slotOf = new Array<number>(points.length)
    for (let index = 0; index < points.length; index++) {
      const point = points[index] as Coordinates
      let slot = slotByLatitude.get(point.latitude)
      if (slot === undefined) {
        slot = unique.push(point) - 1
        slotByLatitude.set(point.latitude, slot)
      } else if ((unique[slot] as Coordinates).longitude !== point.longitude) {
        slotByPoint ??= new Map()
        const key = `${point.latitude},${point.longitude}`
        const known = slotByPoint.get(key)
        slot = known ?? unique.push(point) - 1
        if (known === undefined) slotByPoint.set(key, slot)
      }
      slotOf[index] = slot
    }
    if (unique.length === points.length) return findNearest(points)
    const found = await findNearest(unique)
    return slotOf.map((slot) => found[slot] ?? null)
  }
}

/** Lookups of at least this many points skip the loader: they gain nothing from sharing a statement. */
const OWN_STATEMENT_POINTS = 64

async function inSlices(
  points: readonly Coordinates[],
  size: number,
  lookUp: FindNearestSites,
): Promise<(NearestSite | null)[]> {
  if (points.length <= size) return lookUp(points)
  const slices: Promise<(NearestSite | null)[]>[] = []
  for (let start = 0; start < points.length; start += size)
    slices.push(lookUp(points.slice(start, start + size)))
  return (await Promise.all(slices)).flat()
}

/**
 * One process-wide batching loader: every lookup made in the same tick — the aliases and batch of one
 * GraphQL request, a REST batch, concurrent requests from different callers — becomes one KNN
 * statement (split at maxBatchSize points); a list of OWN_STATEMENT_POINTS or more goes straight to a
 * statement of its own. Nothing is cached between ticks, so a re-seeded site table is seen at once.
 */
export function createNearestSiteLoader(
  findNearest: FindNearestSites,
  maxBatchSize = 1000,
): NearestSiteLookup {
  const lookUp = deduplicated(findNearest)
  const loader = new DataLoader(lookUp, {
    cache: false,
    maxBatchSize,
    // Wait for the rest of this I/O turn, not just the current microtasks: requests whose bodies arrived
    // together share a statement even when nothing else (a Redis round trip) happens to line them up.
    batchScheduleFn: (dispatch) => setImmediate(dispatch),
  })
  return {
    one: (point) => loader.load(point),
    // A list this long fills a statement of its own: sent at once, without a promise per point.
    many: (points) =>
      points.length >= OWN_STATEMENT_POINTS
        ? inSlices(points, maxBatchSize, lookUp)
        : Promise.all(points.map((point) => loader.load(point))),
  }
}
