import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, openEmbeddedDatabase, release } from '../../test/support/database.ts'
import { DEFAULT_SEARCH_RADIUS_KM } from '../config/config.ts'
import { LruCache } from '../lru-cache.ts'
import { generateSites } from '../seed/generate-sites.ts'
import { seedSites } from '../seed/load.ts'
import type { Coordinates, Site } from '../types.ts'
import type { Database } from './connect.ts'
import { migrate } from './migrate.ts'
import { cachedNearestSites, SiteCache, type SiteReads } from './site-cache.ts'
import { findNearestSiteIds, findNearestSites } from './sites.ts'

const SITES = generateSites()
const RADIUS_KM = DEFAULT_SEARCH_RADIUS_KM

/** 600 fixed pseudo-random points over and around Oregon/Washington: most near a site, some not. */
const POINTS: Coordinates[] = fc.sample(
  fc.record({
    latitude: fc.double({ min: 41.5, max: 49.2, noNaN: true }),
    longitude: fc.double({ min: -125, max: -116.3, noNaN: true }),
  }),
  { numRuns: 600, seed: 20261125 },
)

/** The store's two statements, counted. */
function countedReads(db: Database) {
  const counts = { nearestIds: 0, nearestSites: 0, pointsInFull: 0 }
  const reads: SiteReads = {
    nearestIds: (points) => {
      counts.nearestIds++
      return findNearestSiteIds(db.sql, points, RADIUS_KM)
    },
    nearestSites: (points) => {
      counts.nearestSites++
      counts.pointsInFull += points.length
      return findNearestSites(db.sql, points, RADIUS_KM)
    },
  }
  return { reads, counts }
}

const lruSites = (capacity: number) => new SiteCache(() => new LruCache<number, Site>(capacity))

function site(id: number): Site {
  return SITES.find((s) => s.id === id) as Site
}

function cacheContract(open: () => Promise<Database>) {
  let db: Database
  beforeAll(async () => {
    db = await open()
    await migrate(db.sql)
    await seedSites(db.sql, SITES)
  })
  afterAll(() => release(db))

  it('answers exactly as the full lookup, cold and warm, and once warm reads no site in full', async () => {
    const expected = (await findNearestSites(db.sql, POINTS, RADIUS_KM)).nearest
    const { reads, counts } = countedReads(db)
    const misses: number[] = []
    const lookUp = cachedNearestSites(reads, lruSites(20_000), (count) => misses.push(count))

    expect(await lookUp(POINTS.slice(0, 300))).toEqual(expected.slice(0, 300))
    const located = expected.slice(0, 300).filter((n) => n !== null).length
    expect(misses).toEqual([located])
    // Half of these were seen: only the new ones are read in full.
    expect(await lookUp(POINTS)).toEqual(expected)
    expect(await lookUp(POINTS)).toEqual(expected)
    expect(counts.nearestIds).toBe(3)
    expect(counts.nearestSites).toBe(2)
    expect(misses).toHaveLength(2)
    expect(misses[1]).toBeLessThanOrEqual(expected.slice(300).filter((n) => n !== null).length)
  })

  it('sees a change to the table at the next lookup', async () => {
    const lookUp = cachedNearestSites(countedReads(db).reads, lruSites(20_000))
    const target = SITES[500] as Site
    const point = { latitude: target.latitude, longitude: target.longitude }
    expect((await lookUp([point]))[0]?.site).toEqual(target)
    await db.sql`UPDATE sites SET slope_deg = 44.5 WHERE id = ${target.id}`
    try {
      expect((await lookUp([point]))[0]?.site).toEqual({ ...target, slopeDeg: 44.5 })
    } finally {
      await db.sql`UPDATE sites SET slope_deg = ${target.slopeDeg} WHERE id = ${target.id}`
    }
    expect((await lookUp([point]))[0]?.site).toEqual(target)
  })

  it('answers a lookup wholly from one full statement when the table changed between its two', async () => {
    const { reads, counts } = countedReads(db)
    const cache = lruSites(20_000)
    const points = POINTS.slice(0, 50)
    const before = (await findNearestSites(db.sql, points, RADIUS_KM)).nearest
    // A reseed lands after the ids were read and before the missed sites are.
    const changing: SiteReads = {
      nearestIds: reads.nearestIds,
      nearestSites: async (asked) => {
        if (counts.nearestSites === 0) await db.sql`UPDATE sites SET aspect_deg = 1.5`
        return reads.nearestSites(asked)
      },
    }
    try {
      const answers = await cachedNearestSites(changing, cache)(points)
      expect(counts.nearestSites).toBe(2)
      expect(counts.pointsInFull).toBe(before.filter((n) => n !== null).length + points.length)
      expect(answers).toEqual(before.map((n) => (n ? { ...n, site: { ...n.site, aspectDeg: 1.5 } } : null)))
      // What was kept is of the new revision.
      const again = await cachedNearestSites(reads, cache)(points)
      expect(again).toEqual(answers)
      expect(counts.nearestSites).toBe(2)
    } finally {
      const aspects = JSON.stringify(SITES.map((s) => ({ id: s.id, aspect: s.aspectDeg })))
      await db.sql`UPDATE sites SET aspect_deg = v.aspect
                   FROM json_to_recordset(${aspects}::text::json) AS v (id integer, aspect float8)
                   WHERE sites.id = v.id`
    }
  })

  it('reads in full at once while most sites are not held, and ids first again once they are', async () => {
    const expected = (await findNearestSites(db.sql, POINTS, RADIUS_KM)).nearest
    const located = expected.filter((n) => n !== null).length
    const few = POINTS.slice(0, 100)
    const fewSites = new Set(
      expected
        .slice(0, 100)
        .map((n) => n?.site.id)
        .filter((id) => id !== undefined),
    )
    const repeated = <T>(items: readonly T[], times: number) =>
      Array.from({ length: times }, () => items).flat()
    // Room for the sites of `few`, far from all of those of POINTS.
    const cache = lruSites(fewSites.size + 5)
    const { reads, counts } = countedReads(db)
    const misses: number[] = []
    const lookUp = cachedNearestSites(reads, cache, (count) => misses.push(count))
    const lookUpCounted = async (points: readonly Coordinates[], answers: readonly unknown[]) => {
      counts.nearestIds = 0
      counts.nearestSites = 0
      expect(await lookUp(points)).toEqual(answers)
    }
    // Every site goes before it comes round again: lookups soon turn to one full statement each.
    let lookups = 0
    do await lookUpCounted(repeated(POINTS, 4), repeated(expected, 4))
    while (counts.nearestIds > 0 && ++lookups < 10)
    expect(counts).toMatchObject({ nearestIds: 0, nearestSites: 1 })
    // Still counted as misses: the sites were not held.
    expect(misses.at(-1)).toBeGreaterThan(located * 3)
    // The sites of `few` are then held: answered by the objects held, and ids first again.
    const first = await lookUp(few)
    const again = await lookUp(few)
    for (const [index, answer] of again.entries()) if (answer) expect(answer.site).toBe(first[index]?.site)
    lookups = 0
    do await lookUpCounted(repeated(few, 8), repeated(expected.slice(0, 100), 8))
    while (counts.nearestSites > 0 && ++lookups < 100)
    expect(counts).toMatchObject({ nearestIds: 1, nearestSites: 0 })
  })

  it('answers right with a cache far smaller than one lookup, duplicates included', async () => {
    const expected = (await findNearestSites(db.sql, POINTS, RADIUS_KM)).nearest
    const cache = lruSites(7)
    const lookUp = cachedNearestSites(countedReads(db).reads, cache)
    const doubled = [...POINTS, ...POINTS]
    expect(await lookUp(doubled)).toEqual([...expected, ...expected])
    expect(cache.size).toBe(7)
  })
}

describe('nearest sites through the site cache, on PostgreSQL', () => {
  cacheContract(createTestDatabase)
})

describe('nearest sites through the site cache, on embedded PGlite', () => {
  cacheContract(openEmbeddedDatabase)
})

describe('SiteCache', () => {
  it('forgets every site when the table moves to another revision, and keeps the most recently used', () => {
    const cache = lruSites(2)
    cache.holdRevision('a')
    cache.add(site(1))
    cache.add(site(2))
    cache.holdRevision('a')
    expect(cache.get(1)).toEqual(site(1))
    cache.add(site(3))
    expect(cache.get(2)).toBeUndefined()
    expect(cache.get(1)).toEqual(site(1))
    cache.holdRevision('b')
    expect(cache.size).toBe(0)
    expect(cache.get(1)).toBeUndefined()
  })
})

describe('SiteCache.share', () => {
  const copy = (id: number): Site => ({ ...site(id) })

  it('gives the held object for a site it holds and holds the others, so each site is one object', () => {
    const cache = lruSites(10)
    cache.holdRevision('a')
    const held = copy(1)
    cache.add(held)
    const read = [copy(1), copy(2), copy(3)]
    const shared = cache.share('a', read)
    expect(shared).toEqual(read)
    expect(shared[0]).toBe(held)
    expect(shared[1]).toBe(read[1])
    expect(cache.get(2)).toBe(read[1])
    expect(cache.get(3)).toBe(read[2])
  })

  it('takes a read of another revision as the one held from now on, keeping nothing of the old', () => {
    const cache = lruSites(10)
    cache.holdRevision('a')
    const old = copy(1)
    cache.add(old)
    const read = [copy(1), copy(2)]
    const shared = cache.share('b', read)
    expect(shared[0]).toBe(read[0])
    expect(cache.get(1)).toBe(read[0])
    expect(cache.size).toBe(2)
  })

  it('answers every site even when it holds fewer than the table', () => {
    const cache = lruSites(2)
    const read = [copy(1), copy(2), copy(3), copy(4)]
    expect(cache.share('a', read)).toEqual(read)
    expect(cache.size).toBe(2)
  })
})
