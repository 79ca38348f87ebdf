import type { Coordinates, NearestSite, Site } from '../types.ts'
import type { FindNearestSites } from './nearest-site-loader.ts'
import type { NearestSiteIdsRead, NearestSitesRead } from './sites.ts'

/** Where the sites are held: a bounded map (the composition root gives an LRU cache). */
export interface SiteStorage {
  readonly size: number
  get(id: number): Site | undefined
  set(id: number, site: Site): void
}

/**
 * Sites by id, all of one revision of the sites table. Any change to the table gives it a new revision
 * (sql/004_site_revision.sql), so a site held under the current revision is exactly its row.
 */
export class SiteCache {
  private revision: string | undefined
  private sites: SiteStorage

  constructor(private readonly emptyStorage: () => SiteStorage) {
    this.sites = emptyStorage()
  }

  get size(): number {
    return this.sites.size
  }

  /** The sites held from now on are of `revision`: those of any other are forgotten. */
  holdRevision(revision: string): void {
    if (revision === this.revision) return
    this.revision = revision
    this.sites = this.emptyStorage()
  }

  get(id: number): Site | undefined {
    return this.sites.get(id)
  }

  add(site: Site): void {
    this.sites.set(site.id, site)
  }

  /**
   * Every site of `revision`, read at once (the survival map's snapshot): the sites held stand in for
   * their copies just read, and the rest are held from now on, so the two keep one object per site.
   */
  share(revision: string, sites: readonly Site[]): Site[] {
    this.holdRevision(revision)
    return sites.map((site) => {
      const held = this.sites.get(site.id)
      if (held) return held
      this.sites.set(site.id, site)
      return site
    })
  }
}

export interface SiteReads {
  /** The nearest site's id per point (one statement). */
  nearestIds(points: readonly Coordinates[]): Promise<NearestSiteIdsRead>
  /** The nearest site per point with its attributes (one statement). */
  nearestSites(points: readonly Coordinates[]): Promise<NearestSitesRead>
}

/**
 * Nearest sites whose attributes come from the cache: each lookup reads only ids, distances and the
 * table's revision. Points whose site is not held are read again in full and their sites kept. When
 * that second statement sees another revision (the table changed between the two, or the reads went
 * to replicas at different points), the whole lookup is answered from one full statement, so every
 * answer belongs to one revision of the table.
 */
export function cachedNearestSites(
  reads: SiteReads,
  cache: SiteCache,
  onMisses: (count: number) => void = () => {},
): FindNearestSites {
  return async (points) => {
    const found = await reads.nearestIds(points)
    cache.holdRevision(found.revision)
    const answers = new Array<NearestSite | null>(points.length)
    const missed: number[] = []
    for (let index = 0; index < points.length; index++) {
      const match = found.nearest[index]
      const site = match ? cache.get(match.siteId) : undefined
      if (!match) answers[index] = null
      else if (site) answers[index] = { site, distanceKm: match.distanceKm, dataVersion: found.dataVersion }
      else missed.push(index)
    }
    if (missed.length === 0) return answers
    onMisses(missed.length)
    const read = await reads.nearestSites(missed.map((index) => points[index] as Coordinates))
    if (read.revision !== found.revision) {
      const whole = await reads.nearestSites(points)
      keep(cache, whole)
      return whole.nearest
    }
    keep(cache, read)
    for (let k = 0; k < missed.length; k++) answers[missed[k] as number] = read.nearest[k] ?? null
    return answers
  }
}

function keep(cache: SiteCache, read: NearestSitesRead): void {
  cache.holdRevision(read.revision)
  for (const nearest of read.nearest) if (nearest) cache.add(nearest.site)
}
