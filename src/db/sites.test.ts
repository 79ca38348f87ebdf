import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestDatabase,
  openEmbeddedDatabase,
  release,
  type TestDatabase,
} from '../../test/support/database.ts'
import { DEFAULT_SEARCH_RADIUS_KM } from '../config/config.ts'
import { greatCircleKm } from '../geo/great-circle.ts'
import { generateSites } from '../seed/generate-sites.ts'
import { seedSites } from '../seed/load.ts'
import type { Coordinates, Site, SiteBox } from '../types.ts'
import { type Database, openDatabase } from './connect.ts'
import { migrate } from './migrate.ts'
import { activeSiteVersion } from './site-data-versions.ts'
import { findNearestSiteIds, findNearestSites, findSitesInBox, siteRevision } from './sites.ts'

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
  const [nearest] = (await findNearestSites(sql, [point], radiusKm)).nearest
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
  const activeVersionName = async () => (await activeSiteVersion(db.sql))?.version

  it('equals a brute-force scan over all sites for 1,000 random points (one statement)', async () => {
    const unlimited = (await findNearestSites(db.sql, POINTS, 20_000)).nearest
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
    expect(hit).toEqual({ site, distanceKm: expect.closeTo(0, 6), dataVersion: await activeVersionName() })
    expect(
      await findNearestSite(db.sql, { latitude: 45.5152, longitude: -122.6784 }, DEFAULT_SEARCH_RADIUS_KM),
    ).toBeNull()
    expect(await findNearestSite(db.sql, { latitude: 0, longitude: 0 }, DEFAULT_SEARCH_RADIUS_KM)).toBeNull()
  })

  it('answers in request order, duplicates included, and an empty batch with the revision alone', async () => {
    const points = [POINTS[3], POINTS[1], POINTS[3], POINTS[2]] as { latitude: number; longitude: number }[]
    const answers = (await findNearestSites(db.sql, points, 20_000)).nearest
    expect(answers.map((a) => a?.site.id)).toEqual(
      points.map((p) => bruteForceNearest(p.latitude, p.longitude).site.id),
    )
    expect(await findNearestSites(db.sql, [], 10)).toEqual({
      revision: await siteRevision(db.sql),
      dataVersion: await activeVersionName(),
      nearest: [],
    })
  })

  it("reads the table's revision in the same statement as the sites", async () => {
    const revision = await siteRevision(db.sql)
    expect((await findNearestSites(db.sql, POINTS.slice(0, 3), 10)).revision).toBe(revision)
    expect((await findNearestSiteIds(db.sql, POINTS.slice(0, 3), 10)).revision).toBe(revision)
  })

  it('names by id and distance the same nearest sites as the full lookup, null beyond the radius alike', async () => {
    for (const radiusKm of [DEFAULT_SEARCH_RADIUS_KM, 20_000]) {
      const full = (await findNearestSites(db.sql, POINTS, radiusKm)).nearest
      const ids = (await findNearestSiteIds(db.sql, POINTS, radiusKm)).nearest
      expect(ids).toEqual(full.map((n) => (n ? { siteId: n.site.id, distanceKm: n.distanceKm } : null)))
    }
    expect((await findNearestSiteIds(db.sql, [], 10)).nearest).toEqual([])
  })

  it('uses the GiST index for the KNN ordering', async () => {
    const plan = await db.sql.unsafe(
      `EXPLAIN SELECT id FROM sites ORDER BY earth_point <-> ll_to_earth(45.5, -122.0) LIMIT 1`,
    )
    const text = plan.map((row) => Object.values(row)[0]).join('\n')
    expect(text).toMatch(/Index Scan using sites_[0-9a-f]{12}_knn/)
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
      expect(answers.nearest).toHaveLength(500)
      expect(statements).toHaveLength(1)
      await findNearestSiteIds(counting.sql, POINTS.slice(900, 902), DEFAULT_SEARCH_RADIUS_KM)
      statements.length = 0
      const ids = await findNearestSiteIds(counting.sql, POINTS.slice(0, 500), DEFAULT_SEARCH_RADIUS_KM)
      expect(ids.nearest).toHaveLength(500)
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
    const answers = (await findNearestSites(db.sql, sample, 20_000)).nearest
    const ids = (await findNearestSiteIds(db.sql, sample, 20_000)).nearest
    sample.forEach((point, index) => {
      const expected = bruteForceNearest(point.latitude, point.longitude).site.id
      expect(answers[index]?.site.id).toBe(expected)
      expect(ids[index]?.siteId).toBe(expected)
    })
  })
})

/**
 * A few sites far from Oregon and Washington, some on the edges of the map, for boxes the plan's stands
 * never make but the port's contract (every site in the box) still covers.
 */
const WORLD_SITES: Site[] = [
  [0, 179.5],
  [0, 0],
  [-45, 10],
  [60, 100],
  [89.9, -179.9],
  [-89.9, 179.9],
  [45, -180],
  [45, 180],
].map(([latitude, longitude], index) => ({
  ...(SITES[0] as Site),
  id: 1_000_001 + index,
  latitude: latitude as number,
  longitude: longitude as number,
  state: undefined,
}))

const ALL_SITES = [...SITES, ...WORLD_SITES]
const SITE_BY_ID = new Map(ALL_SITES.map((site) => [site.id, site]))

/** 300 fixed pseudo-random boxes over and around Oregon/Washington, from a few metres to 2° across. */
const BOXES: SiteBox[] = fc
  .sample(
    // Sizes in thousandths of a degree: up to 0.05° for one box in two (a stand's size), up to 2° otherwise.
    fc.record({
      south: fc.double({ min: 41.5, max: 49.2, noNaN: true }),
      west: fc.double({ min: -125, max: -116.3, noNaN: true }),
      height: fc
        .oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 2000 }))
        .map((n) => n / 1000),
      width: fc
        .oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 2000 }))
        .map((n) => n / 1000),
    }),
    { numRuns: 300, seed: 20261124 },
  )
  .map(({ south, west, height, width }) => ({ south, west, north: south + height, east: west + width }))

/** Sites near which boxes are drawn edge on: spread over the table. */
const EDGE_SITES = Array.from({ length: 40 }, (_, i) => SITES[Math.floor((i * SITES.length) / 40)] as Site)

/**
 * Boxes whose edges run exactly through a site's coordinates (each edge, a corner, all four), boxes
 * that miss it by a hair on each side, and tiny boxes across it.
 */
function edgeBoxes(site: Site): { box: SiteBox; holds: boolean }[] {
  const { latitude: lat, longitude: lon } = site
  const d = 0.05
  const hair = 1e-9
  return [
    { box: { west: lon, east: lon + d, south: lat - d, north: lat + d }, holds: true },
    { box: { west: lon - d, east: lon, south: lat - d, north: lat + d }, holds: true },
    { box: { west: lon - d, east: lon + d, south: lat, north: lat + d }, holds: true },
    { box: { west: lon - d, east: lon + d, south: lat - d, north: lat }, holds: true },
    { box: { west: lon, east: lon + d, south: lat, north: lat + d }, holds: true },
    { box: { west: lon, east: lon, south: lat, north: lat }, holds: true },
    { box: { west: lon, east: lon, south: lat - d, north: lat + d }, holds: true },
    { box: { west: lon + hair, east: lon + d, south: lat - d, north: lat + d }, holds: false },
    { box: { west: lon - d, east: lon - hair, south: lat - d, north: lat + d }, holds: false },
    { box: { west: lon - d, east: lon + d, south: lat + hair, north: lat + d }, holds: false },
    { box: { west: lon - d, east: lon + d, south: lat - d, north: lat - hair }, holds: false },
    { box: { west: lon - 1e-6, east: lon + 1e-6, south: lat - 1e-6, north: lat + 1e-6 }, holds: true },
    { box: { west: lon - 0.5, east: lon + 0.5, south: lat - 0.5, north: lat + 0.5 }, holds: true },
  ]
}

/** The sites in a box by a plain filter on the coordinates, no index, ordered by id. */
async function plainFilter(sql: Database['sql'], box: SiteBox): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    SELECT id FROM sites
    WHERE latitude >= ${box.south} AND latitude <= ${box.north}
      AND longitude >= ${box.west} AND longitude <= ${box.east}
    ORDER BY id`
  return rows.map((row) => row.id)
}

async function expectSameAsPlainFilter(sql: Database['sql'], box: SiteBox): Promise<Site[]> {
  const { sites: found } = await findSitesInBox(sql, box)
  const ids = found.map((site) => site.id)
  expect(ids, JSON.stringify(box)).toEqual(await plainFilter(sql, box))
  for (const site of found) expect(site).toEqual(SITE_BY_ID.get(site.id))
  return found
}

function sitesInBoxTests(open: () => Promise<Database>) {
  let db: Database
  beforeAll(async () => {
    db = await open()
    await migrate(db.sql)
    await seedSites(db.sql, ALL_SITES)
  })
  afterAll(() => release(db))

  it('equals a plain filter on the coordinates for 300 random boxes, sites in full, by id', async () => {
    let nonEmpty = 0
    for (const box of BOXES) {
      const found = await expectSameAsPlainFilter(db.sql, box)
      if (found.length > 0) nonEmpty++
      const ids = found.map((site) => site.id)
      expect(ids).toEqual([...ids].sort((a, b) => a - b))
      // Independently of SQL: exactly the generated sites whose coordinates lie in the box.
      expect(ids).toEqual(
        ALL_SITES.filter(
          (s) =>
            s.latitude >= box.south &&
            s.latitude <= box.north &&
            s.longitude >= box.west &&
            s.longitude <= box.east,
        ).map((s) => s.id),
      )
    }
    expect(nonEmpty).toBeGreaterThan(40)
  })

  it('keeps a site on any edge or corner of the box, and drops it a hair outside', async () => {
    for (const site of EDGE_SITES) {
      for (const { box, holds } of edgeBoxes(site)) {
        const found = await expectSameAsPlainFilter(db.sql, box)
        expect(
          found.some((s) => s.id === site.id),
          `${site.id} in ${JSON.stringify(box)}`,
        ).toBe(holds)
      }
    }
  })

  it('answers an empty box (open ocean) with no sites, and the whole of both states with every one', async () => {
    expect(await findSitesInBox(db.sql, { west: -130, east: -126, south: 43, north: 47 })).toEqual({
      sites: [],
      dataVersion: null,
    })
    const both = await expectSameAsPlainFilter(db.sql, { west: -125, east: -116.4, south: 41.9, north: 49.1 })
    expect(both.map((site) => site.id)).toEqual(SITES.map((site) => site.id).sort((a, b) => a - b))
  })

  it('answers the same within a deadline', async () => {
    const box = BOXES[7] as SiteBox
    expect(await findSitesInBox(db.sql, box, { deadlineMs: 5000 })).toEqual(await findSitesInBox(db.sql, box))
  })

  it('boxes wider than half the globe, up to the whole map, hold every site inside them', async () => {
    await expectSameAsPlainFilter(db.sql, { west: -179, east: 179, south: 40, north: 50 })
    await expectSameAsPlainFilter(db.sql, { west: -170, east: 120, south: -60, north: 70 })
    // The whole map: its corners are the poles, 90° from its centre, and sites farther than that
    // from (0, 0) (the Pacific Northwest is 113° away) still lie inside it.
    const world = { west: -180, east: 180, south: -90, north: 90 }
    const found = new Set((await findSitesInBox(db.sql, world)).sites.map((site) => site.id))
    const missing = ALL_SITES.filter((site) => !found.has(site.id)).map((s) => [s.latitude, s.longitude])
    expect(missing).toEqual([])
    await expectSameAsPlainFilter(db.sql, world)
  })
}

describe('sites in a box on PostgreSQL', () => {
  sitesInBoxTests(async () => createTestDatabase().then((db) => ({ ...db, close: db.drop })))
})

describe('sites in a box on embedded PGlite', () => {
  sitesInBoxTests(openEmbeddedDatabase)
})
