/**
 * The data side of `npm run bench:scale` (bench/scale.ts): the synthetic sites on a denser grid imported
 * as a site data version and activated (the path `npm run sites -- import` takes: a staging table filled
 * in batches, then indexed once), its size on disk, the depth of its GiST index, and the cost of the KNN
 * statement the server runs.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { Sql } from '../src/db/connect.ts'
import { SiteCache } from '../src/db/site-cache.ts'
import {
  abandonSiteImport,
  activateSiteVersion,
  beginSiteImport,
  finishSiteImport,
  insertSites,
  SiteContentHash,
} from '../src/db/site-data-versions.ts'
import { findNearestSiteIds, findNearestSites } from '../src/db/sites.ts'
import { LruCache } from '../src/lru-cache.ts'
import { forestSites, SITE_SPACING_KM } from '../src/seed/generate-sites.ts'
import type { Coordinates, Site } from '../src/types.ts'
import { median } from './support.ts'

/** The sites the served data set holds (the generator at SITE_SPACING_KM). */
export const SERVED_SITES = 17_884
const INSERT_CHUNK = 5000
const SOURCE = 'bench:scale (synthetic generator on a denser grid)'

/**
 * Site counts from "18k,1M,2M" (k and M suffixes, or plain numbers). A size within 2 % of the served data
 * set stands for it exactly.
 */
export function parseSizes(text: string): number[] {
  return text
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean)
    .map((word) => {
      const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(word)
      if (!match) throw new Error(`BENCH_SCALE_SITES: ${word} is not a count (e.g. 18k, 1M, 2000000)`)
      const unit = match[2]?.toLowerCase()
      const count = Math.round(Number(match[1]) * (unit === 'k' ? 1e3 : unit === 'm' ? 1e6 : 1))
      return Math.abs(count / SERVED_SITES - 1) <= 0.02 ? SERVED_SITES : count
    })
}

/** The grid spacing that gives about `sites` sites (sites grow with the square of 1 / spacing). */
export function spacingFor(sites: number): number {
  return sites === SERVED_SITES ? SITE_SPACING_KM : SITE_SPACING_KM / Math.sqrt(sites / SERVED_SITES)
}

export interface Seeded {
  sites: number
  version: string
  /** Generating and inserting the rows into the staging table. */
  insertSeconds: number
  /** finishSiteImport (primary key, GiST index, ANALYZE) and the activation. */
  indexSeconds: number
}

/**
 * The generator's sites at `target`'s spacing as a version, activated: streamed a chunk at a time, one
 * chunk inserting while the next is generated, so no more than two chunks are ever held. `sql` needs a
 * pool of 3 or more: the import's advisory lock keeps one connection.
 */
export async function seedVersion(sql: Sql, target: number, log: (message: string) => void): Promise<Seeded> {
  const started = performance.now()
  const staging = await beginSiteImport(sql, SOURCE)
  const hash = new SiteContentHash()
  try {
    let chunk: Site[] = []
    let pending: Promise<void> = Promise.resolve()
    let reported = 0
    for (const site of forestSites({ spacingKm: spacingFor(target) })) {
      hash.add(site)
      chunk.push(site)
      if (chunk.length < INSERT_CHUNK) continue
      await pending
      pending = insertSites(sql, staging, chunk)
      chunk = []
      const tenth = Math.floor((hash.rows / target) * 10)
      if (tenth > reported && target >= 100_000) {
        reported = tenth
        log(`${label(target)}: ${hash.rows.toLocaleString('en-US')} sites inserted`)
      }
    }
    await pending
    if (chunk.length > 0) await insertSites(sql, staging, chunk)
    const inserted = performance.now()
    const { version } = await finishSiteImport(sql, staging, hash.finish(), { source: SOURCE, defaults: {} })
    await activateSiteVersion(sql, version.version)
    return {
      sites: version.rowCount,
      version: version.version,
      insertSeconds: (inserted - started) / 1000,
      indexSeconds: (performance.now() - inserted) / 1000,
    }
  } catch (error) {
    await abandonSiteImport(sql, staging).catch(() => {})
    throw error
  }
}

export interface DiskUse {
  /** pg_total_relation_size('sites'): the rows, their TOAST and every index. */
  totalBytes: number
  /** pg_relation_size of the table's main fork. */
  heapBytes: number
  gistBytes: number
  primaryKeyBytes: number
  /** Levels of the GiST index, root to leaf (pageinspect), or null when it cannot be read. */
  gistDepth: number | null
}

/** The active table's size on disk, and its GiST index's name for the buffer reading. */
export async function diskUse(sql: Sql): Promise<DiskUse & { gistName: string }> {
  const indexes = await sql<{ name: string; method: string; bytes: string }[]>`
    SELECT c.relname AS name, am.amname AS method, pg_relation_size(c.oid)::text AS bytes
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
    WHERE i.indrelid = 'sites'::regclass`
  const [sizes] = await sql<{ total: string; heap: string }[]>`
    SELECT pg_total_relation_size('sites')::text AS total, pg_relation_size('sites')::text AS heap`
  const gist = indexes.find((index) => index.method === 'gist')
  const primaryKey = indexes.find((index) => index.method === 'btree')
  if (!gist || !sizes) throw new Error('the active sites table has no GiST index')
  return {
    totalBytes: Number(sizes.total),
    heapBytes: Number(sizes.heap),
    gistBytes: Number(gist.bytes),
    primaryKeyBytes: Number(primaryKey?.bytes ?? 0),
    gistDepth: await gistDepth(sql, gist.name).catch(() => null),
    gistName: gist.name,
  }
}

/** Levels from the root (block 0) down the first downlink of each inner page to a leaf. */
async function gistDepth(sql: Sql, index: string): Promise<number> {
  await sql`CREATE EXTENSION IF NOT EXISTS pageinspect`
  let block = 0
  for (let depth = 1; depth < 32; depth++) {
    const [page] = await sql<{ leaf: boolean; child: string | null }[]>`
      SELECT 'leaf' = ANY (o.flags) AS leaf,
        (SELECT (i.ctid::text::point)[0]::int::text FROM gist_page_items(get_raw_page(${index}, ${block}), ${index}::regclass) i
         ORDER BY i.itemoffset LIMIT 1) AS child
      FROM gist_page_opaque_info(get_raw_page(${index}, ${block})) o`
    if (!page) throw new Error(`no page ${block} in ${index}`)
    if (page.leaf || page.child === null) return depth
    block = Number(page.child)
  }
  throw new Error(`${index} is deeper than 32 levels`)
}

/** The share of the GiST index's pages held in shared_buffers now (pg_buffercache), 0 to 1; null unreadable. */
export async function gistInSharedBuffers(sql: Sql, index: string): Promise<number | null> {
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_buffercache`
    const [row] = await sql<{ held: number; pages: number }[]>`
      SELECT (SELECT count(*) FROM pg_buffercache b
              WHERE b.relfilenode = pg_relation_filenode(${index}::regclass)
                AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()))::int AS held,
             (pg_relation_size(${index}::regclass) / current_setting('block_size')::int)::int AS pages`
    return row && row.pages > 0 ? row.held / row.pages : null
  } catch {
    return null
  }
}

export interface KnnCosts {
  /** The statement the server runs (ids and distances), median ms per batch size. */
  idsMs: Record<number, number>
  /** The full statement (every column; a site cache miss) for a batch of 500, median ms. */
  full500Ms: number
  /** EXPLAIN (ANALYZE, BUFFERS) of the KNN for 500 points: execution ms, buffers per point. */
  explain: { executionMs: number; hitPerPoint: number; readPerPoint: number }
}

export const KNN_BATCHES = [1, 10, 100, 500] as const

/**
 * Median time of the KNN statements over `repeats` different batches of each size, after one untimed
 * pass over the same batches (the figures are of an index in memory, as a serving database keeps it).
 */
export async function knnCosts(
  sql: Sql,
  points: readonly Coordinates[],
  radiusKm: number,
  repeats: number,
): Promise<KnnCosts> {
  const batchAt = (size: number, repeat: number) => {
    const offset = (repeat * size) % (points.length - size)
    return points.slice(offset, offset + size)
  }
  const idsMs: Record<number, number> = {}
  for (const size of KNN_BATCHES) {
    for (let repeat = 0; repeat < repeats; repeat++)
      await findNearestSiteIds(sql, batchAt(size, repeat), radiusKm)
    const timings: number[] = []
    for (let repeat = 0; repeat < repeats; repeat++) {
      const started = performance.now()
      await findNearestSiteIds(sql, batchAt(size, repeat), radiusKm)
      timings.push(performance.now() - started)
    }
    idsMs[size] = median(timings)
  }
  const full: number[] = []
  for (let repeat = 0; repeat < repeats; repeat++) {
    const started = performance.now()
    await findNearestSites(sql, batchAt(500, repeat), radiusKm)
    full.push(performance.now() - started)
  }
  return { idsMs, full500Ms: median(full), explain: await explainKnn(sql, batchAt(500, repeats)) }
}

interface ExplainPlan {
  'Execution Time': number
  Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number }
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the KNN as src/db/sites.ts writes it (unnest, one cube per point, a LATERAL
 * index scan ordered by `<->`, LIMIT 1), selecting the id: the time inside PostgreSQL and the pages a
 * point touches (hit in shared_buffers, or read from the kernel's page cache or the disk).
 */
async function explainKnn(sql: Sql, points: readonly Coordinates[]): Promise<KnnCosts['explain']> {
  const array = (values: number[]) => `'{${values.join(',')}}'::float8[]`
  const [row] = await sql.unsafe<{ 'QUERY PLAN': ExplainPlan[] }[]>(`
    EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
    SELECT nearest.*
    FROM unnest(${array(points.map((p) => p.latitude))}, ${array(points.map((p) => p.longitude))})
      WITH ORDINALITY AS q (lat, lon, ord)
    CROSS JOIN LATERAL (
      SELECT cube(array[earth() * cosd(q.lat) * cosd(q.lon), earth() * cosd(q.lat) * sind(q.lon), earth() * sind(q.lat)]) AS point
    ) p
    LEFT JOIN LATERAL (
      SELECT s.id, s.earth_point <-> p.point AS chord FROM sites s ORDER BY s.earth_point <-> p.point LIMIT 1
    ) nearest ON true
    ORDER BY q.ord`)
  const plan = row?.['QUERY PLAN'][0]
  if (!plan) throw new Error('EXPLAIN gave no plan')
  return {
    executionMs: plan['Execution Time'],
    hitPerPoint: plan.Plan['Shared Hit Blocks'] / points.length,
    readPerPoint: plan.Plan['Shared Read Blocks'] / points.length,
  }
}

/**
 * What a site held in the site cache costs in memory: the nearest sites of `points`, read as the server
 * reads a miss (findNearestSites: one object per site, shared label strings), held in a SiteCache over an
 * LruCache as the server's; the heap's growth after full collections, per site held.
 */
export async function siteCacheBytesPerSite(
  sql: Sql,
  points: readonly Coordinates[],
  radiusKm: number,
): Promise<{ held: number; bytesPerSite: number }> {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const cache = new SiteCache(() => new LruCache<number, Site>(points.length))
  const settle = () => {
    for (let i = 0; i < 3; i++) gc()
    return process.memoryUsage().heapUsed
  }
  const before = settle()
  for (let start = 0; start < points.length; start += 500) {
    const read = await findNearestSites(sql, points.slice(start, start + 500), radiusKm)
    cache.holdRevision(read.revision)
    for (const nearest of read.nearest) if (nearest) cache.add(nearest.site)
  }
  const after = settle()
  return { held: cache.size, bytesPerSite: (after - before) / cache.size }
}

export function label(sites: number): string {
  if (sites === SERVED_SITES) return '18k'
  return sites >= 1e6 ? `${round1(sites / 1e6)}M` : `${round1(sites / 1e3)}k`
}

const round1 = (value: number) => String(Math.round(value * 10) / 10)
