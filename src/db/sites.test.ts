import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSites } from '../../seed/generate-sites.ts'
import { seedSites } from '../../seed/load.ts'
import { createTestDatabase, openEmbeddedDatabase, type TestDatabase } from '../../test/support/database.ts'
import { DEFAULT_SEARCH_RADIUS_KM } from '../config/config.ts'
import { greatCircleKm } from '../geo/great-circle.ts'
import type { Coordinates, Site } from '../types.ts'
import { type Database, openDatabase } from './connect.ts'
import { migrate } from './migrate.ts'
import { findNearestSites } from './sites.ts'

const SITES = generateSites()

function bruteForceNearest(latitude: number, longitude: number): { site: Site; distanceKm: number } {
  let best = { site: SITES[0] as Site, distanceKm: Number.POSITIVE_INFINITY }
  for (const site of SITES) {
    const distanceKm = greatCircleKm(latitude, longitude, site.latitude, site.longitude)
    if (distanceKm < best.distanceKm) best = { site, distanceKm }
  }
  return best
}

/** 1,000 fixed pseudo-random points over and around Oregon/Washington. */
const POINTS = fc.sample(
  fc.record({
    latitude: fc.double({ min: 41.5, max: 49.2, noNaN: true }),
    longitude: fc.double({ min: -125, max: -116.3, noNaN: true }),
  }),
  { numRuns: 1000, seed: 20261122 },
)

async function findNearestSite(sql: TestDatabase['sql'], point: Coordinates, radiusKm: number) {
  const [nearest] = await findNearestSites(sql, [point], radiusKm)
  return nearest ?? null
}

describe('nearest-site lookup on PostgreSQL', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql)
    await seedSites(db.sql, SITES)
  })
  afterAll(() => db.drop())

  it('equals a brute-force scan over all sites for 1,000 random points (one statement)', async () => {
    const unlimited = await findNearestSites(db.sql, POINTS, 20_000)
    POINTS.forEach((point, index) => {
      const expected = bruteForceNearest(point.latitude, point.longitude)
      const actual = unlimited[index]
      expect(actual?.site.id).toBe(expected.site.id)
      expect(actual?.distanceKm).toBeCloseTo(expected.distanceKm, 6)
    })
  })

  it('returns the full site and null beyond the search radius', async () => {
    const site = SITES[1234] as Site
    const hit = await findNearestSite(
      db.sql,
      { latitude: site.latitude, longitude: site.longitude },
      DEFAULT_SEARCH_RADIUS_KM,
    )
    expect(hit).toEqual({ site, distanceKm: expect.closeTo(0, 6) })
    expect(
      await findNearestSite(db.sql, { latitude: 45.5152, longitude: -122.6784 }, DEFAULT_SEARCH_RADIUS_KM),
    ).toBeNull()
    expect(await findNearestSite(db.sql, { latitude: 0, longitude: 0 }, DEFAULT_SEARCH_RADIUS_KM)).toBeNull()
  })

  it('answers in request order, duplicates included, and an empty batch without a query', async () => {
    const points = [POINTS[3], POINTS[1], POINTS[3], POINTS[2]] as { latitude: number; longitude: number }[]
    const answers = await findNearestSites(db.sql, points, 20_000)
    expect(answers.map((a) => a?.site.id)).toEqual(
      points.map((p) => bruteForceNearest(p.latitude, p.longitude).site.id),
    )
    expect(await findNearestSites(db.sql, [], 10)).toEqual([])
  })

  it('uses the GiST index for the KNN ordering', async () => {
    const plan = await db.sql.unsafe(
      `EXPLAIN SELECT id FROM sites ORDER BY earth_point <-> ll_to_earth(45.5, -122.0) LIMIT 1`,
    )
    const text = plan.map((row) => Object.values(row)[0]).join('\n')
    expect(text).toMatch(/Index Scan using sites_earth_point_knn/)
  })

  it('answers a 500-point batch with exactly one SQL statement', async () => {
    const statements: string[] = []
    const counting = await openDatabase(
      { DATABASE_URL: db.url, DB_POOL_MAX: 1 },
      { onQuery: (q) => statements.push(q) },
    )
    try {
      // The first use of a statement adds a protocol-level describe of the same SQL; prepare it first.
      await findNearestSites(counting.sql, POINTS.slice(900, 902), DEFAULT_SEARCH_RADIUS_KM)
      statements.length = 0
      const answers = await findNearestSites(counting.sql, POINTS.slice(0, 500), DEFAULT_SEARCH_RADIUS_KM)
      expect(answers).toHaveLength(500)
      expect(statements).toHaveLength(1)
    } finally {
      await counting.close()
    }
  })
})

describe('nearest-site lookup on embedded PGlite', () => {
  let db: Database
  beforeAll(async () => {
    db = await openEmbeddedDatabase()
    await migrate(db.sql)
    await seedSites(db.sql, SITES)
  })
  afterAll(() => db.close())

  it('gives the same answers as the brute-force scan', async () => {
    const sample = POINTS.slice(0, 200)
    const answers = await findNearestSites(db.sql, sample, 20_000)
    sample.forEach((point, index) => {
      expect(answers[index]?.site.id).toBe(bruteForceNearest(point.latitude, point.longitude).site.id)
    })
  })
})
