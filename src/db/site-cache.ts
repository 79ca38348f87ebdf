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
  /** Whether nearestIds answers from memory now (site-index-follower.ts): then ids first always pays. */
  idsInMemory?(): boolean
}

/**
 * Below this share of located points whose site is held, a lookup reads its sites in full at once rather
 * than ids first: the ids statement's KNN is done again for every point missed, so it pays only while
 * most are held. Ids first costs less from a held share of (ids statement / full statement): for 500
 * points, 0.7 with 18k sites and 0.8 with 1–2 million, where the KNN is a larger part of both
 * (`npm run bench:scale`, 2026-11-27).
 */
export const IDS_FIRST_FROM_HELD_SHARE = 0.75
/**
 * The held share is a moving average over about this many located points: a cold 500-point batch alone
 * does not turn a fresh process to full reads, a few seconds of lookups that mostly miss do.
 */
const HELD_SHARE_POINTS = 4000

/**
 * Nearest sites whose attributes come from the cache. While most sites looked up are held (a moving
 * average of the share, at least IDS_FIRST_FROM_HELD_SHARE), each lookup reads only ids, distances and
 * the table's revision; points whose site is not held are then read again in full and their sites kept.
 * When that second statement sees another revision (the table changed between the two, or the reads went
 * to replicas at different points), the whole lookup is answered from one full statement, so every answer
 * belongs to one revision of the table. While fewer are held (points spread over more sites than the
 * cache holds), each lookup is one full statement, whose sites are kept, and held ones answered by the
 * object held, until the lookups find most of their sites held again. A new process starts with ids first,
 * and ids come first always while they are found in memory.
 * `onMisses` hears of the points whose site was not held, either way.
 */
export function cachedNearestSites(
  reads: SiteReads,
  cache: SiteCache,
  onMisses: (count: number) => void = () => {},
): FindNearestSites {
  let heldShare = 1
  const observe = (located: number, missed: number) => {
    if (missed > 0) onMisses(missed)
    if (located === 0) return
    const weight = Math.min(1, located / HELD_SHARE_POINTS)
    heldShare += weight * ((located - missed) / located - heldShare)
  }
  const idsFirst: FindNearestSites = async (points) => {
    const found = await reads.nearestIds(points)
    cache.holdRevision(found.revision)
    const answers = new Array<NearestSite | null>(points.length)
    const missed: number[] = []
    let located = 0
    for (let index = 0; index < points.length; index++) {
      const match = found.nearest[index]
      const site = match ? cache.get(match.siteId) : undefined
      if (match) located++
      if (!match) answers[index] = null
      else if (site) answers[index] = { site, distanceKm: match.distanceKm, dataVersion: found.dataVersion }
      else missed.push(index)
    }
    observe(located, missed.length)
    if (missed.length === 0) return answers
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
  const inFull: FindNearestSites = async (points) => {
    const read = await reads.nearestSites(points)
    cache.holdRevision(read.revision)
    const answers = read.nearest
    let located = 0
    let missed = 0
    for (let index = 0; index < answers.length; index++) {
      const nearest = answers[index]
      if (!nearest) continue
      located++
      const held = cache.get(nearest.site.id)
      if (held) nearest.site = held
      else {
        missed++
        cache.add(nearest.site)
      }
    }
    observe(located, missed)
    return answers
  }
  return (points) =>
    heldShare >= IDS_FIRST_FROM_HELD_SHARE || reads.idsInMemory?.() ? idsFirst(points) : inFull(points)
}

function keep(cache: SiteCache, read: NearestSitesRead): void {
  cache.holdRevision(read.revision)
  for (const nearest of read.nearest) if (nearest) cache.add(nearest.site)
}
