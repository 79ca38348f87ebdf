import { type Config, DEFAULT_SITE_CACHE_SITES } from '../config/config.ts'
import type { NearestSiteLookup, SitePages, SitesInArea, SiteTable } from '../domain/ports/sites.ts'
import { chordDistanceKm } from '../geo/nearest-site-index.ts'
import { LruCache } from '../lru-cache.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { Coordinates, NearestSite } from '../types.ts'
import type { Sql } from './connect.ts'
import { createNearestSiteLoader, type FindNearestSites } from './nearest-site-loader.ts'
import type { ReadPool } from './read-replicas.ts'
import { cachedNearestSites, SiteCache } from './site-cache.ts'
import { siteVersionSource } from './site-data-versions.ts'
import { nearestIdsInMemory, type SiteIndexEvents, SiteIndexFollower } from './site-index-follower.ts'
import { readSiteIndex } from './site-index-read.ts'
import { SitePageReads } from './site-pages.ts'
import { allSites, findNearestSiteIds, findNearestSites, findSitesInBox, siteRevision } from './sites.ts'
import { bounded, type Deadline, storeCall } from './store-call.ts'

type StoreConfig = Pick<Config, 'SEARCH_RADIUS_KM' | 'DB_QUERY_TIMEOUT_MS'> &
  Partial<Pick<Config, 'SITE_CACHE_SITES'>>

/** The process's site cache (src/db/site-cache.ts), or null when SITE_CACHE_SITES is 0. */
export function siteCache(config: Partial<Pick<Config, 'SITE_CACHE_SITES'>>): SiteCache | null {
  const capacity = config.SITE_CACHE_SITES ?? DEFAULT_SITE_CACHE_SITES
  return capacity === 0 ? null : new SiteCache(() => new LruCache(capacity))
}

/**
 * The nearest-site index in memory, following the sites table as read from `reads` (started), or null
 * when SITE_INDEX is off or there is no site cache to give the sites' attributes.
 */
export function siteIndexFollower(
  reads: ReadPool,
  config: Partial<Pick<Config, 'SITE_INDEX' | 'SITE_CACHE_SITES'>>,
  events: SiteIndexEvents = {},
): SiteIndexFollower | null {
  if (config.SITE_INDEX === 'off' || config.SITE_CACHE_SITES === 0) return null
  const follower = new SiteIndexFollower(
    {
      revision: () => reads.read((sql) => siteRevision(sql)),
      read: () => reads.read((sql) => readSiteIndex(sql)),
    },
    events,
  )
  follower.start()
  return follower
}

/**
 * One process-wide batching lookup: concurrent requests' points share one KNN statement, read from a
 * replica when there are healthy ones (the sites change only with a reseed; a little lag is harmless).
 */
export function siteLookup(
  reads: ReadPool,
  config: StoreConfig,
  metrics: Metrics,
  cache: SiteCache | null = siteCache(config),
  /** The nearest-site index in memory (SITE_INDEX=memory), used while it holds the current revision. */
  index: SiteIndexFollower | null = null,
): NearestSiteLookup {
  const radiusKm = config.SEARCH_RADIUS_KM
  const deadline = { deadlineMs: config.DB_QUERY_TIMEOUT_MS }
  const read = <T>(query: (sql: Sql) => Promise<T>) =>
    metrics.trackQuery(() => storeCall(reads.read(query), metrics))
  const nearestSites = (points: readonly Coordinates[]) =>
    read((sql) => findNearestSites(sql, points, radiusKm, deadline))
  const findNearest: FindNearestSites = cache
    ? cachedNearestSites(
        {
          nearestIds: (points) => {
            const held = index?.current()
            if (held) return Promise.resolve(nearestIdsInMemory(held, points, radiusKm))
            return read((sql) => findNearestSiteIds(sql, points, radiusKm, deadline))
          },
          nearestSites,
          idsInMemory: () => index?.current() != null,
        },
        cache,
        (count) => metrics.siteCacheMisses.inc(count),
      )
    : async (points) => (await nearestSites(points)).nearest
  return createNearestSiteLoader(async (points) => {
    metrics.nearestSiteLookups.inc(points.length)
    metrics.nearestSiteBatchSize.observe(points.length)
    return withDistanceInProcess(points, await findNearest(points))
  })
}

/**
 * Each answer's distance computed here, from the point and its site's coordinates, whichever way the
 * site was found: the database's trigonometry and the process's can differ in the last bit, and an
 * answer must not change with whether the nearest-site index in memory was ready.
 */
function withDistanceInProcess(points: readonly Coordinates[], answers: (NearestSite | null)[]) {
  for (let i = 0; i < answers.length; i++) {
    const answer = answers[i]
    const point = points[i] as Coordinates
    if (answer) {
      answer.distanceKm = chordDistanceKm(
        point.latitude,
        point.longitude,
        answer.site.latitude,
        answer.site.longitude,
      )
    }
  }
  return answers
}

/**
 * The whole site table for the survival map: its revision token (one tiny query) and every site.
 * The token is always the primary's, so a reseed is seen at once however far a replica lags; the sites
 * come from a replica only when that replica's copy is of the primary's revision, else from the primary,
 * so a map is never cached under a revision its sites do not belong to.
 */
export function siteTable(
  primary: Sql,
  reads: ReadPool,
  config: Deadline,
  metrics: Metrics,
  /** The site lookup's cache: the sites read here and the ones it holds are then the same objects. */
  cache: SiteCache | null = null,
): SiteTable {
  const call = bounded(config, metrics)
  const readAll = async () => {
    const read = await call(reads.read((sql) => allSites(sql)))
    if (reads.replicas().length === 0) return read
    const current = await call(siteRevision(primary))
    return read.revision === current ? read : call(reads.readPrimary((sql) => allSites(sql)))
  }
  return {
    revision: () => call(siteRevision(primary)),
    all: () =>
      metrics.trackQuery(async () => {
        const { revision, dataVersion, sites } = await readAll()
        return { revision, dataVersion, sites: cache ? cache.share(revision, sites) : sites }
      }),
  }
}

/** The sites inside a stand's box, bounded by the query deadline, from a replica when one is healthy. */
export function sitesInArea(reads: ReadPool, config: Deadline, metrics: Metrics): SitesInArea {
  const call = bounded(config, metrics)
  return { within: (box) => metrics.trackQuery(() => call(reads.read((sql) => findSitesInBox(sql, box)))) }
}

/**
 * Where each site data version came from (a version never changes: each is read once, the last 64
 * kept), read from a replica when one is healthy.
 */
export function siteVersionSources(
  reads: ReadPool,
  config: Deadline,
  metrics: Metrics,
): { source(version: string): Promise<string | null> } {
  const call = bounded(config, metrics)
  const known = new LruCache<string, string>(64)
  return {
    async source(version) {
      const held = known.get(version)
      if (held !== undefined) return held
      const source = await metrics.trackQuery(() =>
        call(reads.read((sql) => siteVersionSource(sql, version))),
      )
      if (source !== null) known.set(version, source)
      return source
    },
  }
}

/** The active site data a page at a time (OGC API – Features), from a replica when one is healthy. */
export function sitePages(reads: ReadPool, config: Deadline, metrics: Metrics): SitePages {
  const call = bounded(config, metrics)
  const pages = new SitePageReads()
  return {
    page: (box, start, limit) =>
      metrics.trackQuery(() => call(reads.read((sql) => pages.page(sql, box, start, limit)))),
    one: (id) => metrics.trackQuery(() => call(reads.read((sql) => pages.one(sql, id)))),
  }
}
