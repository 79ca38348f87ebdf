import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { utcDay } from '../../src/access/quota/day-window.ts'
import { greatCircleKm } from '../../src/geo/great-circle.ts'
import { loadOpenApiDocument, OpenApiValidator } from '../openapi/openapi-validator.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { withRedis } from '../support/redis.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { expectError, expectInvalidRequest, type RestResult, rawRequest, rest } from './client.ts'

/**
 * POST /v1/plans/stocking end to end: the whole app on a throwaway PostgreSQL database and the test
 * Redis. Every answer, success or error, is checked against schema/openapi.yaml (by the REST client on
 * receipt, and again here with the document's validator); the values are checked against the
 * database, against POST /v1/predict, and against the plan's own arithmetic.
 */

const PATH = '/v1/plans/stocking'

type Position = [number, number]
type Ring = Position[]
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read freely in tests
type Body = any

interface SiteRow {
  id: number
  latitude: number
  longitude: number
  zone: string
  state: string
}

let db: TestDatabase
let server: TestServer
let key: string
let validator: OpenApiValidator

beforeAll(async () => {
  validator = new OpenApiValidator(loadOpenApiDocument())
  ;({ db, server, key } = await startSeededServer({}, 'hypha'))
})

afterAll(() => stopSeededServer({ db, server }))

/** Sends a plan and checks the answer against the document's description of this operation. */
async function plan(body: unknown, withKey: string = key): Promise<RestResult> {
  const result = await rest(server.url, 'POST', PATH, { json: body, key: withKey })
  expect(validator.check('POST', PATH, result), result.text.slice(0, 500)).toEqual([])
  return result
}

const PSME_ONLY = [{ species_code: 'PSME', share: 1 }]

/** A point plan in the Oregon Coast Range: Douglas-fir, hand planted, 300 trees per acre. */
function pointBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...FOREST_POINTS.coastRange,
    planting_method: 'manual',
    species_mix: PSME_ONLY,
    trees_per_acre: 300,
    ...overrides,
  }
}

function standBody(stand: unknown, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { stand, planting_method: 'manual', species_mix: PSME_ONLY, trees_per_acre: 300, ...overrides }
}

/** The answer without the moment it was made. */
function timeless(body: Record<string, unknown>) {
  const { generated_at: _at, ...rest } = body
  return rest
}

const close = (ring: Position[]): Ring => [...ring, ring[0] as Position]

/** A closed square ring around a point, `half` degrees each way. */
function square(longitude: number, latitude: number, half: number): Ring {
  return close([
    [longitude - half, latitude - half],
    [longitude + half, latitude - half],
    [longitude + half, latitude + half],
    [longitude - half, latitude + half],
  ])
}

/** An irregular pentagon around the Coast Range forest point (about 7,000 ha). */
const PENTAGON: Ring = close([
  [-123.66, 44.56],
  [-123.56, 44.555],
  [-123.53, 44.61],
  [-123.58, 44.65],
  [-123.67, 44.63],
])

/** A rectangle in the western Cascades (about 5,000 ha). */
const CASCADES_BOX: Ring = close([
  [-122.25, 44.17],
  [-122.15, 44.17],
  [-122.15, 44.23],
  [-122.25, 44.23],
])

/* An independent geometry: even-odd ray casting, and the area on a plane scaled at the ring's latitude. */

function inRing(longitude: number, latitude: number, ring: Ring): boolean {
  let inside = false
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as Position
    const [xj, yj] = ring[j] as Position
    if (yi > latitude !== yj > latitude && longitude < ((xj - xi) * (latitude - yi)) / (yj - yi) + xi)
      inside = !inside
  }
  return inside
}

/** Inside a polygon (its first ring) and in none of its holes. */
function inPolygon(longitude: number, latitude: number, rings: Ring[]): boolean {
  const [outer, ...holes] = rings
  return inRing(longitude, latitude, outer as Ring) && !holes.some((h) => inRing(longitude, latitude, h))
}

/** Square kilometres of a ring: shoelace on a plane scaled at the ring's latitude (fine at a stand's size). */
function ringKm2(ring: Ring): number {
  const lat0 = ring.reduce((sum, [, lat]) => sum + lat, 0) / ring.length
  const kx = 111.32 * Math.cos((lat0 * Math.PI) / 180)
  const ky = 110.57
  let twice = 0
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i] as Position
    const [x2, y2] = ring[i + 1] as Position
    twice += x1 * kx * (y2 * ky) - x2 * kx * (y1 * ky)
  }
  return Math.abs(twice / 2)
}

/** Hectares of a polygon: its exterior less its holes. */
const polygonHa = (rings: Ring[]) =>
  100 * (ringKm2(rings[0] as Ring) - rings.slice(1).reduce((sum, h) => sum + ringKm2(h), 0))

/** Every site in the box around some rings, read with plain SQL. */
async function sitesAround(rings: Ring[]): Promise<SiteRow[]> {
  const positions = rings.flat()
  const lons = positions.map(([lon]) => lon)
  const lats = positions.map(([, lat]) => lat)
  return db.sql<SiteRow[]>`
    SELECT id, latitude, longitude, zone, state FROM sites
    WHERE latitude BETWEEN ${Math.min(...lats)} AND ${Math.max(...lats)}
      AND longitude BETWEEN ${Math.min(...lons)} AND ${Math.max(...lons)}
    ORDER BY id`
}

/** The sites inside a polygon (holes excluded), by id, found without the service. */
async function sitesInside(rings: Ring[]): Promise<SiteRow[]> {
  return (await sitesAround(rings)).filter((s) => inPolygon(s.longitude, s.latitude, rings))
}

/** The site nearest a point, by great-circle distance over every site. */
async function nearestSite(latitude: number, longitude: number): Promise<SiteRow & { km: number }> {
  const rows = await db.sql<SiteRow[]>`SELECT id, latitude, longitude, zone, state FROM sites`
  let best = { ...(rows[0] as SiteRow), km: Number.POSITIVE_INFINITY }
  for (const row of rows) {
    const km = greatCircleKm(latitude, longitude, row.latitude, row.longitude)
    if (km < best.km) best = { ...row, km }
  }
  return best
}

/** The predicted survival of a species at a point, as POST /v1/predict gives it. */
async function predicted(
  point: { latitude: number; longitude: number },
  speciesCode: string,
): Promise<Record<number, number>> {
  const result = await rest(server.url, 'POST', '/v1/predict', {
    key,
    json: { ...point, species_code: speciesCode, planting_method: 'manual' },
  })
  expect(result.status, result.text).toBe(200)
  return Object.fromEntries(
    result.body.predictions.map((p: Body) => [p.horizon_years, p.survival_probability]),
  )
}

/** What the document cannot say about a plan: the relations between its numbers. */
function expectConsistentPlan(body: Body, plantedPerAcre: number) {
  expect(body.planted.trees_per_acre).toBeCloseTo(plantedPerAcre, 2)
  expect(body.planted.trees_per_hectare).toBeCloseTo(plantedPerAcre * 2.471, 1)
  expect(body.horizons.map((h: Body) => h.horizon_years)).toEqual([1, 3, 5])
  for (const h of body.horizons) {
    expect(h.expected_trees_per_acre).toBeCloseTo(plantedPerAcre * h.survival_probability, 1)
    expect(h.lower).toBeLessThanOrEqual(h.upper)
    expect(h.lower).toBeLessThanOrEqual(Math.ceil(h.expected_trees_per_acre))
    expect(h.upper).toBeGreaterThanOrEqual(Math.floor(h.expected_trees_per_acre))
    expect(h.upper).toBeLessThanOrEqual(Math.ceil(plantedPerAcre))
    expect(h.expected_trees_per_hectare).toBe(Math.round(h.expected_trees_per_acre * 2.471 * 10) / 10)
    expect(h.lower_per_hectare).toBe(Math.round(h.lower * 2.471 * 10) / 10)
    expect(h.upper_per_hectare).toBe(Math.round(h.upper * 2.471 * 10) / 10)
    const mixed = h.by_species.reduce((sum: number, s: Body) => sum + s.share * s.survival_probability, 0)
    expect(mixed).toBeCloseTo(h.survival_probability, 9)
    for (const s of h.by_species) {
      expect(s.planted_trees_per_acre).toBeCloseTo(plantedPerAcre * s.share, 2)
      expect(s.expected_trees_per_acre).toBeCloseTo(plantedPerAcre * s.share * s.survival_probability, 1)
    }
  }
  // Survival only falls with time.
  const [one, three, five] = body.horizons
  expect(one.survival_probability).toBeGreaterThanOrEqual(three.survival_probability)
  expect(three.survival_probability).toBeGreaterThanOrEqual(five.survival_probability)
  expect(body.meets_standard.horizon_years).toBe(body.rule.horizon_years)
  expect(body.meets_standard.at_confidence).toBe(body.meets_standard.probability >= body.confidence)
  const { required } = body
  if (required.trees_per_acre === null) {
    expect(required).toEqual({ trees_per_acre: null, trees_per_hectare: null, overplanting_factor: null })
  } else {
    expect(required.trees_per_hectare).toBe(Math.ceil(required.trees_per_acre * 2.471))
    expect(required.overplanting_factor).toBeCloseTo(
      required.trees_per_acre / body.rule.target_trees_per_acre,
      3,
    )
    expect(required.trees_per_acre).toBeGreaterThanOrEqual(body.rule.target_trees_per_acre)
  }
  expect(body.notes.length).toBeGreaterThanOrEqual(3)
  expect(body.notes.join(' ')).toMatch(/synthetic/i)
  expect(body.model).toMatchObject({ version: '0.2', series: 'mycel' })
  expect(body.generated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
}

/** A site of a state and zones, seeded in the test database (the one with the lowest id). */
async function seededSite(state: string, zones: string[]): Promise<SiteRow> {
  const [row] = await db.sql<SiteRow[]>`
    SELECT id, latitude, longitude, zone, state FROM sites
    WHERE state = ${state} AND zone IN ${db.sql(zones)}
    ORDER BY id LIMIT 1`
  if (!row) throw new Error(`no ${state} site in ${zones.join(', ')}`)
  return row
}

const OREGON_MINIMUMS: Record<string, number> = { 'I-III': 200, 'IV-V': 120, VI: 100 }

describe('a point plan', () => {
  it('in Oregon: the or_fpa rule for the site’s class, each horizon, the probability and the density needed', async () => {
    const mix = [
      { species_code: 'PSME', share: 0.8 },
      { species_code: 'ALRU', share: 0.2 },
    ]
    const result = await plan(pointBody({ species_mix: mix }))
    expect(result.status, result.text).toBe(200)
    const body = result.body
    expect(body.stand).toBeUndefined()
    const nearest = await nearestSite(FOREST_POINTS.coastRange.latitude, FOREST_POINTS.coastRange.longitude)
    expect(body.site).toEqual({
      ...FOREST_POINTS.coastRange,
      site_id: nearest.id,
      matched_latitude: nearest.latitude,
      matched_longitude: nearest.longitude,
      match_distance_km: expect.closeTo(nearest.km, 6),
      zone: nearest.zone,
      state: 'OR',
      site_class: expect.stringMatching(/^(I-III|IV-V|VI)$/),
    })
    const siteClass = body.site.site_class
    expect(body.rule).toMatchObject({
      id: 'or_fpa',
      horizon_years: 5,
      site_class: siteClass,
      minimum_trees_per_acre: OREGON_MINIMUMS[siteClass],
      target_trees_per_acre: OREGON_MINIMUMS[siteClass],
      custom_target: false,
      hardwood_share_cap: 0.2,
      verify: siteClass !== 'I-III',
    })
    expect(body.rule.citation).toContain('OAR 629-610')
    expect(body.planting_method).toBe('manual')
    expect(body.confidence).toBe(0.9)
    expect(body.climate).toBeNull()
    expectConsistentPlan(body, 300)
    // Red alder is a hardwood: under Oregon's rule it counts only up to the cap.
    expect(body.horizons[0].by_species).toEqual([
      expect.objectContaining({ species_code: 'PSME', group: 'conifer', share: 0.8, counts_in_full: true }),
      expect.objectContaining({ species_code: 'ALRU', group: 'hardwood', share: 0.2, counts_in_full: false }),
    ])
    expect(body.notes.join(' ')).toMatch(/Hardwoods count toward the standard for at most 20 %/)
    // Each species' survival is the prediction of POST /v1/predict there.
    const psme = await predicted(FOREST_POINTS.coastRange, 'PSME')
    const alru = await predicted(FOREST_POINTS.coastRange, 'ALRU')
    for (const h of body.horizons) {
      expect(h.by_species[0].survival_probability).toBeCloseTo(psme[h.horizon_years] as number, 9)
      expect(h.by_species[1].survival_probability).toBeCloseTo(alru[h.horizon_years] as number, 9)
    }
    const half = body.carbon.ninety_percent_half_width_share
    expect(half).toBeGreaterThan(0)
    expect(body.notes.join(' ')).toContain(`${Math.round(half * 1000) / 10} %`)
  })

  it('the density it says is needed meets the standard at the confidence, and one tree fewer does not', async () => {
    const first = await plan(pointBody())
    const needed = first.body.required.trees_per_acre
    expect(needed, first.text).not.toBeNull()
    const enough = await plan(pointBody({ trees_per_acre: needed }))
    expect(enough.body.meets_standard.at_confidence).toBe(true)
    expect(enough.body.required).toEqual(first.body.required)
    const short = await plan(pointBody({ trees_per_acre: needed - 1 }))
    expect(short.body.meets_standard.at_confidence).toBe(false)
    expect(short.body.meets_standard.probability).toBeLessThan(enough.body.meets_standard.probability)
  })

  it('trees per hectare, a confidence, a custom target, a site class and a rule set are taken as asked', async () => {
    const perHectare = await plan(pointBody({ trees_per_acre: undefined, trees_per_hectare: 741.3 }))
    expect(perHectare.status, perHectare.text).toBe(200)
    expect(perHectare.body.planted).toEqual({ trees_per_acre: 300, trees_per_hectare: 741.3 })

    const strict = await plan(pointBody({ confidence: 0.99 }))
    const loose = await plan(pointBody({ confidence: 0.5 }))
    expect(strict.body.confidence).toBe(0.99)
    const width = (b: Body) => b.horizons[2].upper - b.horizons[2].lower
    expect(width(strict.body)).toBeGreaterThan(width(loose.body))
    expect(strict.body.required.trees_per_acre).toBeGreaterThan(loose.body.required.trees_per_acre)

    const custom = await plan(pointBody({ target_trees_per_acre: 250 }))
    expect(custom.body.rule).toMatchObject({ target_trees_per_acre: 250, custom_target: true })
    expectConsistentPlan(custom.body, 300)

    const classVI = await plan(pointBody({ site_class: 'VI' }))
    expect(classVI.body.rule).toMatchObject({ id: 'or_fpa', site_class: 'VI', minimum_trees_per_acre: 100 })
    expect(classVI.body.rule.verify).toBe(true)
    expect(classVI.body.notes.join(' ')).toMatch(/verify it against/)

    const washington = await plan(pointBody({ rule_set: 'wa_fpa_east' }))
    expect(washington.body.rule).toMatchObject({
      id: 'wa_fpa_east',
      horizon_years: 1,
      minimum_trees_per_acre: 150,
      site_class: null,
      hardwood_share_cap: null,
    })
    expect(washington.body.meets_standard.horizon_years).toBe(1)
  })

  it.each([
    ['west', ['westside_cascades', 'westside_lowland', 'coast'], 'wa_fpa_west', 190],
    ['east', ['eastside_cascades', 'okanogan_selkirk', 'blue_mountains'], 'wa_fpa_east', 150],
  ])('in Washington %s of the crest: %s, judged at 1 year', async (_side, zones, rule, minimum) => {
    const site = await seededSite('WA', zones)
    const result = await plan(pointBody({ latitude: site.latitude, longitude: site.longitude }))
    expect(result.status, result.text).toBe(200)
    expect(result.body.site).toMatchObject({ site_id: site.id, state: 'WA', zone: site.zone })
    expect(result.body.site.match_distance_km).toBeCloseTo(0, 6)
    expect(result.body.rule).toMatchObject({
      id: rule,
      horizon_years: 1,
      minimum_trees_per_acre: minimum,
      target_trees_per_acre: minimum,
      site_class: null,
      hardwood_share_cap: null,
      verify: false,
    })
    expect(result.body.meets_standard.horizon_years).toBe(1)
    expectConsistentPlan(result.body, 300)
  })

  it('the same request twice gives the same answer, but for generated_at', async () => {
    const body = pointBody({
      species_mix: [
        { species_code: 'PSME', share: 0.5 },
        { species_code: 'TSHE', share: 0.3 },
        { species_code: 'THPL', share: 0.2 },
      ],
    })
    const first = await plan(body)
    const second = await plan(body)
    expect(second.status).toBe(200)
    expect(timeless(second.body)).toEqual(timeless(first.body))
    const stand = standBody({ type: 'Polygon', coordinates: [PENTAGON] })
    expect(timeless((await plan(stand)).body)).toEqual(timeless((await plan(stand)).body))
  })

  it('a future climate changes the numbers and is echoed; the baseline climate is today’s', async () => {
    const today = await plan(pointBody())
    const future = await plan(pointBody({ climate: { period: '2071-2100', scenario: 'ssp585' } }))
    expect(future.status, future.text).toBe(200)
    expect(future.body.climate).toEqual({
      period: '2071-2100',
      scenario: 'ssp585',
      data_version: expect.stringMatching(/^climate-synthesis-/),
    })
    expect(future.body.horizons.map((h: Body) => h.survival_probability)).not.toEqual(
      today.body.horizons.map((h: Body) => h.survival_probability),
    )
    expect(future.body.meets_standard.probability).not.toBe(today.body.meets_standard.probability)
    expect(future.body.notes.length).toBe(today.body.notes.length + 1)
    expect(future.body.site).toEqual(today.body.site)
    for (const climate of [null, { period: '1991_2020' }, { period: '1991_2020', scenario: null }]) {
      const baseline = await plan(pointBody({ climate }))
      expect(baseline.body.climate).toBeNull()
      expect(timeless(baseline.body)).toEqual(timeless(today.body))
    }
  })
})

describe('a stand plan', () => {
  it('a Polygon: every data site inside it, counted as the database counts them', async () => {
    const rings = [PENTAGON]
    const inside = await sitesInside(rings)
    const around = await sitesAround(rings)
    // The shape matters: some sites of its box lie outside it.
    expect(inside.length).toBeGreaterThanOrEqual(2)
    expect(around.length).toBeGreaterThan(inside.length)
    const result = await plan(standBody({ type: 'Polygon', coordinates: rings }))
    expect(result.status, result.text).toBe(200)
    const { stand } = result.body
    expect(result.body.site).toBeUndefined()
    expect(stand.sites_inside).toBe(inside.length)
    expect(stand.nearest_site_used).toBe(false)
    expect(stand.nearest_site_distance_km).toBeNull()
    expect(stand.sites.map((s: Body) => s.site_id)).toEqual(inside.map((s) => s.id))
    expect(stand.sites.map((s: Body) => [s.latitude, s.longitude, s.zone])).toEqual(
      inside.map((s) => [s.latitude, s.longitude, s.zone]),
    )
    expect(stand.state).toBe('OR')
    expect(Math.abs(stand.area_ha / polygonHa(rings) - 1)).toBeLessThan(0.01)
    expect(stand.centroid.latitude).toBeGreaterThan(44.555)
    expect(stand.centroid.latitude).toBeLessThan(44.65)
    expect(stand.centroid.longitude).toBeGreaterThan(-123.67)
    expect(stand.centroid.longitude).toBeLessThan(-123.53)
    expect(result.body.rule.id).toBe('or_fpa')
    expect(result.body.rule.site_class).toBe(stand.site_class)
    expectConsistentPlan(result.body, 300)
    // Each species' survival is the mean of its survival at the sites inside.
    const bySite = await Promise.all(
      inside.map((s) => predicted({ latitude: s.latitude, longitude: s.longitude }, 'PSME')),
    )
    for (const h of result.body.horizons) {
      const mean = bySite.reduce((sum, p) => sum + (p[h.horizon_years] as number), 0) / bySite.length
      expect(h.by_species[0].survival_probability).toBeCloseTo(mean, 9)
    }
  })

  it('a Polygon with a hole: the sites in the hole are left out, and its area', async () => {
    const outer = await sitesInside([PENTAGON])
    const holed = outer[0] as SiteRow
    const hole = square(holed.longitude, holed.latitude, 0.004).reverse()
    const rings = [PENTAGON, hole]
    const inside = await sitesInside(rings)
    expect(inside.length).toBe(outer.length - (await sitesInside([hole])).length)
    expect(inside.map((s) => s.id)).not.toContain(holed.id)
    const whole = await plan(standBody({ type: 'Polygon', coordinates: [PENTAGON] }))
    const result = await plan(standBody({ type: 'Polygon', coordinates: rings }))
    expect(result.status, result.text).toBe(200)
    expect(result.body.stand.sites_inside).toBe(inside.length)
    expect(result.body.stand.sites.map((s: Body) => s.site_id)).toEqual(inside.map((s) => s.id))
    expect(Math.abs(result.body.stand.area_ha / polygonHa(rings) - 1)).toBeLessThan(0.01)
    expect(whole.body.stand.area_ha - result.body.stand.area_ha).toBeCloseTo(polygonHa([hole]), -1)
    expectConsistentPlan(result.body, 300)
  })

  it('a MultiPolygon: the sites of all its parts', async () => {
    const parts = [[PENTAGON], [CASCADES_BOX]]
    const inside = [...(await sitesInside(parts[0] as Ring[])), ...(await sitesInside(parts[1] as Ring[]))]
    inside.sort((a, b) => a.id - b.id)
    expect((await sitesInside(parts[1] as Ring[])).length).toBeGreaterThanOrEqual(1)
    const result = await plan(standBody({ type: 'MultiPolygon', coordinates: parts }))
    expect(result.status, result.text).toBe(200)
    expect(result.body.stand.sites_inside).toBe(inside.length)
    expect(result.body.stand.sites.map((s: Body) => s.site_id)).toEqual(inside.map((s) => s.id))
    const area = polygonHa([PENTAGON]) + polygonHa([CASCADES_BOX])
    expect(Math.abs(result.body.stand.area_ha / area - 1)).toBeLessThan(0.01)
    expectConsistentPlan(result.body, 300)
  })

  it('a Feature, with foreign members, is its geometry', async () => {
    const geometry = { type: 'Polygon', coordinates: [PENTAGON] }
    const feature = {
      type: 'Feature',
      id: 'unit-7',
      properties: { name: 'Unit 7', owner: null },
      geometry: { ...geometry, bbox: [-123.67, 44.555, -123.53, 44.65] },
      title: 'a foreign member',
    }
    const plain = await plan(standBody(geometry))
    const result = await plan(standBody(feature))
    expect(result.status, result.text).toBe(200)
    expect(timeless(result.body)).toEqual(timeless(plain.body))
    const withAltitude = await plan(
      standBody({ type: 'Polygon', coordinates: [PENTAGON.map(([lon, lat]) => [lon, lat, 120])] }),
    )
    expect(timeless(withAltitude.body)).toEqual(timeless(plain.body))
  })

  it('a small stand with no site inside: the site nearest its centre stands for it', async () => {
    // A 2-ha square 1 km north of a site, checked empty in the database.
    const anchor = (await sitesInside([PENTAGON]))[0] as SiteRow
    let ring: Ring | undefined
    for (const offset of [0.009, 0.012, 0.015, -0.009, -0.012]) {
      const candidate = square(anchor.longitude, anchor.latitude + offset, 0.0006)
      if ((await sitesAround([candidate])).length === 0) {
        ring = candidate
        break
      }
    }
    if (!ring) throw new Error('no empty square found near the anchor site')
    const result = await plan(standBody({ type: 'Polygon', coordinates: [ring] }))
    expect(result.status, result.text).toBe(200)
    const { stand } = result.body
    const nearest = await nearestSite(stand.centroid.latitude, stand.centroid.longitude)
    expect(stand.sites_inside).toBe(0)
    expect(stand.nearest_site_used).toBe(true)
    expect(stand.nearest_site_distance_km).toBeCloseTo(nearest.km, 2)
    expect(stand.sites).toEqual([
      expect.objectContaining({ site_id: nearest.id, latitude: nearest.latitude, zone: nearest.zone }),
    ])
    expect(stand.area_ha).toBeGreaterThan(1)
    expect(stand.area_ha).toBeLessThan(2)
    expect(result.body.notes.join(' ')).toMatch(/No data site lies inside the stand/)
    expectConsistentPlan(result.body, 300)
  })

  it('a MultiPolygon whose parts lie far apart still counts the sites inside each part', async () => {
    // Two tiny parts near opposite corners of the map stretch the stand's box over the whole globe.
    const parts = [[PENTAGON], [square(-179.9, -88.9, 0.001)], [square(179.9, 88.9, 0.001)]]
    const inside = await sitesInside([PENTAGON])
    const result = await plan(standBody({ type: 'MultiPolygon', coordinates: parts }))
    expect(result.status, result.text).toBe(200)
    expect(result.body.stand.nearest_site_used).toBe(false)
    expect(result.body.stand.sites_inside).toBe(inside.length)
    expect(result.body.stand.sites.map((s: Body) => s.site_id)).toEqual(inside.map((s) => s.id))
  })

  it('a hardwood-only mix in Oregon cannot meet the standard: the required density is null', async () => {
    const result = await plan(pointBody({ species_mix: [{ species_code: 'ALRU', share: 1 }] }))
    expect(result.status, result.text).toBe(200)
    expect(result.body.required).toEqual({
      trees_per_acre: null,
      trees_per_hectare: null,
      overplanting_factor: null,
    })
    expect(result.body.meets_standard.at_confidence).toBe(false)
    expect(result.body.horizons[0].by_species[0].counts_in_full).toBe(false)
    expect(result.body.notes.join(' ')).toMatch(/No density up to 5000 trees per acre meets/)
    expectConsistentPlan(result.body, 300)
  })

  it('shares within 0.001 of 1 are scaled to sum to exactly 1; a tiny density expects no survivors', async () => {
    const thirds = ['PSME', 'TSHE', 'THPL'].map((species_code) => ({ species_code, share: 0.3335 }))
    const result = await plan(pointBody({ species_mix: thirds }))
    expect(result.status, result.text).toBe(200)
    const shares = result.body.horizons[0].by_species.map((s: Body) => s.share)
    expect(shares.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(1, 12)
    expect(shares[0]).toBeCloseTo(1 / 3, 12)
    const tiny = await plan(pointBody({ trees_per_acre: undefined, trees_per_hectare: 0.01 }))
    expect(tiny.status, tiny.text).toBe(200)
    expect(tiny.body.planted).toEqual({ trees_per_acre: 0, trees_per_hectare: 0 })
    expect(tiny.body.horizons.map((h: Body) => h.expected_trees_per_acre)).toEqual([0, 0, 0])
    expect(tiny.body.carbon).toEqual({ ninety_percent_half_width_share: null })
    expect(tiny.body.required).toEqual((await plan(pointBody())).body.required)
  })

  it('a stand out at sea is outside_coverage; one on open water in coverage is no_nearby_data', async () => {
    const sea = square(OUTSIDE_POINTS.openPacific.longitude, OUTSIDE_POINTS.openPacific.latitude, 0.01)
    const outside = await plan(standBody({ type: 'Polygon', coordinates: [sea] }))
    const error = expectError(outside, 422, 'outside_coverage')
    expect(error.details).toEqual({ suggestion: expect.stringContaining('GET /v1/coverage') })
    const sound = square(
      NO_DATA_POINTS.openPugetSound.longitude,
      NO_DATA_POINTS.openPugetSound.latitude,
      0.005,
    )
    expectError(await plan(standBody({ type: 'Polygon', coordinates: [sound] })), 422, 'no_nearby_data')
    expectError(await plan(pointBody(OUTSIDE_POINTS.boise)), 422, 'outside_coverage')
    expectError(await plan(pointBody(NO_DATA_POINTS.downtownPortland)), 422, 'no_nearby_data')
  })
})

/** A ring of `count` positions (closing one included) on a circle, in the Coast Range. */
function circle(count: number, radiusDegrees: number): Ring {
  const ring: Ring = []
  for (let i = 0; i < count - 1; i++) {
    const angle = (2 * Math.PI * i) / (count - 1)
    ring.push([
      Number((-123.6 + radiusDegrees * Math.cos(angle)).toFixed(7)),
      Number((44.6 + radiusDegrees * Math.sin(angle)).toFixed(7)),
    ])
  }
  return close(ring)
}

const BOW_TIE: Ring = [
  [-123.62, 44.58],
  [-123.58, 44.62],
  [-123.58, 44.58],
  [-123.62, 44.62],
  [-123.62, 44.58],
]

const polygon = (...rings: unknown[]) => ({ type: 'Polygon', coordinates: rings })

describe('bad input answers 400 invalid_request naming the field', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['both a point and a stand', { ...pointBody(), stand: polygon(PENTAGON) }, 'stand'],
    ['neither a point nor a stand', pointBody({ latitude: undefined, longitude: undefined }), 'latitude'],
    ['a latitude without a longitude', pointBody({ longitude: null }), 'longitude'],
    ['an unclosed ring', standBody(polygon(PENTAGON.slice(0, -1))), 'stand.coordinates[0]'],
    [
      'fewer than four positions',
      standBody(
        polygon(
          close([
            [-123.6, 44.6],
            [-123.59, 44.6],
          ]),
        ),
      ),
      'stand.coordinates[0]',
    ],
    ['a bow-tie crossing itself', standBody(polygon(BOW_TIE)), 'stand.coordinates[0]'],
    [
      'an unclosed hole',
      standBody(polygon(PENTAGON, square(-123.6, 44.6, 0.005).slice(0, -1))),
      'stand.coordinates[1]',
    ],
    [
      'a bad ring of the second part of a MultiPolygon',
      standBody({ type: 'MultiPolygon', coordinates: [[PENTAGON], [BOW_TIE]] }),
      'stand.coordinates[1][0]',
    ],
    [
      'a bad ring inside a Feature',
      standBody({ type: 'Feature', properties: {}, geometry: polygon(BOW_TIE) }),
      'stand.geometry.coordinates[0]',
    ],
    ['more than 20,000 ha', standBody(polygon(square(-123.6, 44.6, 0.15))), 'stand'],
    [
      'more than 20,000 ha in two parts',
      standBody({
        type: 'MultiPolygon',
        coordinates: [[square(-123.6, 44.6, 0.075)], [square(-123.2, 44.6, 0.075)]],
      }),
      'stand',
    ],
    [
      'a ring that encloses no area',
      standBody(
        polygon(
          close([
            [-123.6, 44.6],
            [-123.59, 44.6],
            [-123.58, 44.6],
          ]),
        ),
      ),
      'stand.coordinates[0]',
    ],
    [
      'a hole outside its exterior, bringing a stand of 79,000 ha under the limit',
      standBody(polygon(square(-123.6, 44.6, 0.15), square(-123.6, 46.0, 0.14))),
      'stand.coordinates[1]',
    ],
    [
      'a hole around its exterior (a negative area)',
      standBody(polygon(square(-123.6, 44.6, 0.01), square(-123.6, 44.6, 0.05))),
      'stand.coordinates[1]',
    ],
    ['more than 10,000 positions', standBody(polygon(circle(10_001, 0.02))), 'stand'],
    ['a stand that is not a polygon', standBody({ type: 'Point', coordinates: [-123.6, 44.6] }), 'stand'],
    [
      'shares that do not sum to 1',
      pointBody({
        species_mix: [
          { species_code: 'PSME', share: 0.5 },
          { species_code: 'THPL', share: 0.4 },
        ],
      }),
      'species_mix',
    ],
    [
      'a species listed twice',
      pointBody({
        species_mix: [
          { species_code: 'PSME', share: 0.5 },
          { species_code: 'PSME', share: 0.5 },
        ],
      }),
      'species_mix[1].species_code',
    ],
    ['an empty mix', pointBody({ species_mix: [] }), 'species_mix'],
    [
      'a share above 1',
      pointBody({ species_mix: [{ species_code: 'PSME', share: 1.5 }] }),
      'species_mix[0].share',
    ],
    ['an unknown field', pointBody({ spacing_ft: 10 }), 'spacing_ft'],
    [
      'an unknown field of a mix item',
      pointBody({ species_mix: [{ species_code: 'PSME', share: 1, x: 1 }] }),
      'species_mix[0].x',
    ],
    ['both densities', pointBody({ trees_per_hectare: 741 }), 'trees_per_hectare'],
    ['no density', pointBody({ trees_per_acre: undefined }), 'trees_per_acre'],
    ['a density of 0', pointBody({ trees_per_acre: 0 }), 'trees_per_acre'],
    ['a confidence of 0.3', pointBody({ confidence: 0.3 }), 'confidence'],
    ['a confidence of 1', pointBody({ confidence: 1 }), 'confidence'],
    ['an unknown rule set', pointBody({ rule_set: 'ca_fpa' }), 'rule_set'],
    ['an unknown site class', pointBody({ site_class: 'VII' }), 'site_class'],
    [
      'a site class with a Washington rule',
      pointBody({ rule_set: 'wa_fpa_west', site_class: 'I-III' }),
      'site_class',
    ],
    ['a climate that is not an object', pointBody({ climate: '2071-2100' }), 'climate'],
    ['a missing planting method', pointBody({ planting_method: undefined }), 'planting_method'],
  ])('%s', async (_what, body, field) => {
    const result = await plan(body)
    const error = expectInvalidRequest(result, field)
    expect(error.details?.reason).toEqual(expect.any(String))
    expect(String(error.details?.reason).length).toBeGreaterThan(0)
  })

  it('the reasons say what is wrong with a ring and with the limits', async () => {
    const reason = async (body: unknown) => (await plan(body)).body.error.details.reason as string
    expect(await reason(standBody(polygon(PENTAGON.slice(0, -1))))).toMatch(/not closed/)
    expect(
      await reason(
        standBody(
          polygon(
            close([
              [-123.6, 44.6],
              [-123.59, 44.6],
            ]),
          ),
        ),
      ),
    ).toMatch(/four positions/)
    expect(await reason(standBody(polygon(BOW_TIE)))).toMatch(/intersects itself/)
    expect(await reason(standBody(polygon(square(-123.6, 44.6, 0.15))))).toMatch(/at most 20000 ha/)
    expect(await reason(standBody(polygon(circle(10_001, 0.02))))).toMatch(/10001 positions.*at most 10000/)
    // 10,000 positions exactly, and a stand just under 20,000 ha, are fine.
    expect((await plan(standBody(polygon(circle(10_000, 0.02))))).status).toBe(200)
    expect((await plan(standBody(polygon(square(-123.6, 44.6, 0.075))))).status).toBe(200)
  })

  it('a site class on a Washington location whose rule was not asked for', async () => {
    const site = await seededSite('WA', ['westside_cascades'])
    const result = await plan(
      pointBody({ latitude: site.latitude, longitude: site.longitude, site_class: 'IV-V' }),
    )
    expectInvalidRequest(result, 'site_class')
  })
})

describe('unanswerable input answers 422', () => {
  it('an unknown species is invalid_species, offering the closest code', async () => {
    const result = await plan(
      pointBody({
        species_mix: [
          { species_code: 'PSME', share: 0.5 },
          { species_code: 'THPX', share: 0.5 },
        ],
      }),
    )
    const error = expectError(result, 422, 'invalid_species')
    expect(error.details).toMatchObject({
      suggestion: expect.stringContaining('GET /v1/species'),
      closest_code: 'THPL',
    })
  })

  it('an unknown planting method is invalid_method', async () => {
    const error = expectError(await plan(pointBody({ planting_method: 'helicopter' })), 422, 'invalid_method')
    expect(error.details).toBeUndefined()
  })

  it('an unknown climate is invalid_climate, with what was sent and what is allowed', async () => {
    const climate = { period: '2041-2070', scenario: 'ssp999' }
    const error = expectError(await plan(pointBody({ climate })), 422, 'invalid_climate')
    expect(error.details).toMatchObject({
      period: '2041-2070',
      scenario: 'ssp999',
      allowed_scenarios: ['ssp245', 'ssp370', 'ssp585'],
      suggestion: expect.stringContaining('GET /v1/climate'),
    })
  })
})

describe('quota', () => {
  const remaining = (result: RestResult) => {
    const match = /r=(\d+)/.exec(result.headers.get('ratelimit') ?? '')
    expect(match, result.headers.get('ratelimit') ?? 'no RateLimit header').not.toBeNull()
    expect(result.headers.get('x-ratelimit-remaining')).toBe(match?.[1])
    return Number(match?.[1])
  }

  it('a plan counts exactly one request, whatever its stand; a refused one too', async () => {
    const { key: spore } = await issueKey(db, 'spore')
    const first = await plan(pointBody(), spore)
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-policy')).toBe('"daily";q=100;w=86400')
    expect(remaining(first)).toBe(99)
    const multi = standBody({ type: 'MultiPolygon', coordinates: [[PENTAGON], [CASCADES_BOX]] })
    const stand = await plan(multi, spore)
    expect(stand.status).toBe(200)
    expect(stand.body.stand.sites_inside).toBeGreaterThan(1)
    expect(remaining(stand)).toBe(98)
    const refused = await plan(pointBody({ confidence: 0.3 }), spore)
    expect(refused.status).toBe(400)
    expect(remaining(refused)).toBe(97)
    const unprocessable = await plan(pointBody({ planting_method: 'helicopter' }), spore)
    expect(unprocessable.status).toBe(422)
    expect(remaining(unprocessable)).toBe(96)
  })

  it('on the unlimited tier: X-RateLimit-Used goes up by one a plan', async () => {
    const { key: hypha } = await issueKey(db, 'hypha')
    const used = (result: RestResult) => Number(result.headers.get('x-ratelimit-used'))
    const first = await plan(pointBody(), hypha)
    expect(first.headers.get('x-ratelimit-limit')).toBe('unlimited')
    expect(first.headers.get('ratelimit')).toBeNull()
    const second = await plan(standBody(polygon(PENTAGON)), hypha)
    expect(used(second)).toBe(used(first) + 1)
  })

  it('needs a key, and an exhausted key is refused before the body is read', async () => {
    const noKey = await rest(server.url, 'POST', PATH, { json: pointBody() })
    expect(validator.check('POST', PATH, noKey)).toEqual([])
    expectError(noKey, 401, 'invalid_api_key')
    // A spore key whose daily counter already stands at the limit of 100.
    const exhausted = await issueKey(db, 'spore')
    await withRedis((redis) =>
      redis.set(`${server.quotaPrefix}${exhausted.id}:${utcDay(new Date())}`, '100', 'EX', 2 * 86_400),
    )
    const over = await plan({ not: 'even a plan' }, exhausted.key)
    expectError(over, 429, 'rate_limit_exceeded')
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/)
  })
})

describe('body errors', () => {
  it('invalid JSON, a wrong media type and a body over 1 MiB', async () => {
    const broken = await rest(server.url, 'POST', PATH, {
      key,
      raw: '{"latitude": 44.6,',
      contentType: 'application/json',
    })
    expect(validator.check('POST', PATH, broken)).toEqual([])
    expectError(broken, 400, 'invalid_json')
    const text = await rest(server.url, 'POST', PATH, { key, raw: '{}', contentType: 'text/plain' })
    expect(validator.check('POST', PATH, text)).toEqual([])
    expectError(text, 415, 'unsupported_media_type')
    const bytes = 1024 * 1024 + 100
    const huge = JSON.stringify(standBody(polygon(PENTAGON), { pad: '' })).replace(
      '"pad":""',
      `"pad":"${'x'.repeat(bytes)}"`,
    )
    const large = await rawRequest(
      server.url,
      'POST',
      PATH,
      { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(huge) },
      [huge],
    )
    expect(validator.check('POST', PATH, large)).toEqual([])
    expectError(large, 413, 'payload_too_large')
  })
})

describe('the response schema catches drift', () => {
  it('a point plan with a stand too, or with neither, or with an extra field, does not conform', async () => {
    const point = await plan(pointBody())
    const stand = await plan(standBody(polygon(PENTAGON)))
    const check = (body: unknown) =>
      validator.check('POST', PATH, { status: 200, headers: point.headers, body })
    expect(check(point.body)).toEqual([])
    expect(check(stand.body)).toEqual([])
    expect(check({ ...point.body, stand: stand.body.stand })).not.toEqual([])
    const { site: _site, ...neither } = point.body
    expect(check(neither)).not.toEqual([])
    expect(check({ ...point.body, extra: 1 })).not.toEqual([])
    expect(check({ ...point.body, required: { ...point.body.required, trees_per_acre: 1.5 } })).not.toEqual(
      [],
    )
    expect(check({ ...point.body, climate: undefined })).not.toEqual([])
    expect(
      check({ ...stand.body, stand: { ...stand.body.stand, nearest_site_distance_km: undefined } }),
    ).not.toEqual([])
  })
})
