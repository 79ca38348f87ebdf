import DataLoader from 'dataloader'
import type { Coordinates, NearestSite, NearestSiteLookup } from '../types.ts'

export type FindNearestSites = (points: readonly Coordinates[]) => Promise<(NearestSite | null)[]>

const coordinateKey = (point: Coordinates) => `${point.latitude},${point.longitude}`

/** Equal points within one batch are looked up once. */
function deduplicated(findNearest: FindNearestSites): FindNearestSites {
  return async (points) => {
    const slots = new Map<string, number>()
    const unique: Coordinates[] = []
    const slotOf = points.map((point) => {
      const key = coordinateKey(point)
      let slot = slots.get(key)
      if (slot === undefined) {
        slot = unique.push(point) - 1
        slots.set(key, slot)
      }
      return slot
    })
    if (unique.length === points.length) return findNearest(points)
    const found = await findNearest(unique)
    return slotOf.map((slot) => found[slot] ?? null)
  }
}

/**
 * One process-wide batching loader: every lookup made in the same tick — the aliases and batch of one
 * GraphQL request, a REST batch, concurrent requests from different callers — becomes one KNN
 * statement (split at maxBatchSize points). Nothing is cached between ticks, so a re-seeded site
 * table is seen at once.
 */
export function createNearestSiteLoader(
  findNearest: FindNearestSites,
  maxBatchSize = 1000,
): NearestSiteLookup {
  const loader = new DataLoader(deduplicated(findNearest), {
    cache: false,
    maxBatchSize,
    // Wait for the rest of this I/O turn, not just the current microtasks: requests whose bodies arrived
    // together share a statement even when nothing else (a Redis round trip) happens to line them up.
    batchScheduleFn: (dispatch) => setImmediate(dispatch),
  })
  return {
    one: (point) => loader.load(point),
    many: (points) => Promise.all(points.map((point) => loader.load(point))),
  }
}
