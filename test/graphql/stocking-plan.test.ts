import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, type GraphQLResult, graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, forestGrid, OUTSIDE_POINTS } from '../support/sites.ts'

/**
 * GraphQL stockingPlan, Prediction.survivalInterval, HorizonPrediction.survivalInterval and
 * Site.siteClass on the real stack (PostgreSQL, Redis), and their agreement with POST /v1/plans/stocking.
 */

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db })
  key = (await issueKey(db, 'hypha')).key
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read freely in tests
type Body = any
type Ring = [number, number][]

const PLAN_FIELDS = `
  rule { id name citation minimumTreesPerAcre targetTreesPerAcre customTarget horizonYears siteClass
    hardwoodShareCap verify status sources }
  plantingMethod plantedTreesPerAcre plantedTreesPerHectare confidence
  horizons { horizonYears survivalProbability expectedTreesPerAcre lower upper expectedTreesPerHectare
    bySpecies { species { code commonName group } share plantedTreesPerAcre survivalProbability
      expectedTreesPerAcre countsInFull } }
  meetsProbability meetsAtConfidence requiredTreesPerAcre requiredTreesPerHectare overplantingFactor
  site { latitude longitude siteId matchedLatitude matchedLongitude matchDistanceKm zone state siteClass }
  stand { areaHa centroidLatitude centroidLongitude sitesInside nearestSiteUsed nearestSiteDistanceKm state
    siteClass sites { siteId latitude longitude zone siteClass } }
  climatePeriod climateScenario ninetyPercentHalfWidthShare notes model { version codename series } generatedAt`

const PLAN_QUERY = `query Plan($input: StockingPlanInput!) { stockingPlan(input: $input) { ${PLAN_FIELDS} } }`

const MIX = [
  { speciesCode: 'PSME', share: 0.7 },
  { speciesCode: 'ALRU', share: 0.3 },
]

const close = (ring: Ring): Ring => [...ring, ring[0] as [number, number]]

/** The Coast Range pentagon of test/rest/plans.test.ts: several data sites inside. */
const PENTAGON: Ring = close([
  [-123.66, 44.56],
  [-123.56, 44.555],
  [-123.53, 44.61],
  [-123.58, 44.65],
  [-123.67, 44.63],
])

function square(longitude: number, latitude: number, half: number): Ring {
  return close([
    [longitude - half, latitude - half],
    [longitude + half, latitude - half],
    [longitude + half, latitude + half],
    [longitude - half, latitude + half],
  ])
}

function pointInput(overrides: Record<string, unknown> = {}) {
  return {
    ...FOREST_POINTS.coastRange,
    plantingMethod: 'MANUAL',
    speciesMix: MIX,
    treesPerAcre: 300,
    ...overrides,
  }
}

function standInput(stand: unknown, overrides: Record<string, unknown> = {}) {
  return { stand, plantingMethod: 'MANUAL', speciesMix: MIX, treesPerAcre: 300, ...overrides }
}

const stockingPlan = (input: unknown, withKey = key) =>
  graphql(server.url, PLAN_QUERY, { key: withKey, variables: { input } })

/** The same plan over REST, with the REST names. */
async function restPlan(body: Record<string, unknown>): Promise<Body> {
  const response = await fetch(`${server.url}/v1/plans/stocking`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(200)
  return response.json()
}

const REST_MIX = [
  { species_code: 'PSME', share: 0.7 },
  { species_code: 'ALRU', share: 0.3 },
]

function expectPlanError(result: GraphQLResult, code: string, status: number) {
  expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(status)
  expect(result.body.data?.stockingPlan ?? null).toBeNull()
  const error = firstError(result)
  expect(error.extensions?.code).toBe(code)
  expect(error.extensions?.status).toBe(status)
  expect(error.extensions?.http).toBeUndefined()
  return error
}

/** The REST and GraphQL answers for the same plan hold the same numbers. */
function expectSamePlan(gql: Body, rest: Body) {
  expect(gql.rule).toEqual({
    id: rest.rule.id,
    name: rest.rule.name,
    citation: rest.rule.citation,
    minimumTreesPerAcre: rest.rule.minimum_trees_per_acre,
    targetTreesPerAcre: rest.rule.target_trees_per_acre,
    customTarget: rest.rule.custom_target,
    horizonYears: rest.rule.horizon_years,
    siteClass: rest.rule.site_class,
    hardwoodShareCap: rest.rule.hardwood_share_cap,
    verify: rest.rule.verify,
    status: rest.rule.status,
    sources: rest.rule.sources,
  })
  expect(gql.plantingMethod).toBe(rest.planting_method.toUpperCase())
  expect(gql.plantedTreesPerAcre).toBe(rest.planted.trees_per_acre)
  expect(gql.plantedTreesPerHectare).toBe(rest.planted.trees_per_hectare)
  expect(gql.confidence).toBe(rest.confidence)
  expect(gql.horizons).toEqual(
    rest.horizons.map((h: Body) => ({
      horizonYears: h.horizon_years,
      survivalProbability: h.survival_probability,
      expectedTreesPerAcre: h.expected_trees_per_acre,
      lower: h.lower,
      upper: h.upper,
      expectedTreesPerHectare: h.expected_trees_per_hectare,
      bySpecies: h.by_species.map((s: Body) => ({
        species: { code: s.species_code, commonName: s.species_common_name, group: s.group.toUpperCase() },
        share: s.share,
        plantedTreesPerAcre: s.planted_trees_per_acre,
        survivalProbability: s.survival_probability,
        expectedTreesPerAcre: s.expected_trees_per_acre,
        countsInFull: s.counts_in_full,
      })),
    })),
  )
  expect(gql.meetsProbability).toBe(rest.meets_standard.probability)
  expect(gql.meetsAtConfidence).toBe(rest.meets_standard.at_confidence)
  expect(gql.requiredTreesPerAcre).toBe(rest.required.trees_per_acre)
  expect(gql.requiredTreesPerHectare).toBe(rest.required.trees_per_hectare)
  expect(gql.overplantingFactor).toBe(rest.required.overplanting_factor)
  expect(gql.ninetyPercentHalfWidthShare).toBe(rest.carbon.ninety_percent_half_width_share)
  expect(gql.climatePeriod).toBe(rest.climate?.period ?? null)
  expect(gql.climateScenario).toBe(rest.climate?.scenario ?? null)
  expect(gql.notes).toEqual(rest.notes)
  expect(gql.model).toEqual(rest.model)
  if (rest.site) {
    expect(gql.stand).toBeNull()
    expect(gql.site).toEqual({
      latitude: rest.site.latitude,
      longitude: rest.site.longitude,
      siteId: rest.site.site_id,
      matchedLatitude: rest.site.matched_latitude,
      matchedLongitude: rest.site.matched_longitude,
      matchDistanceKm: rest.site.match_distance_km,
      zone: rest.site.zone,
      state: rest.site.state,
      siteClass: rest.site.site_class,
    })
  } else {
    expect(gql.site).toBeNull()
    expect(gql.stand).toEqual({
      areaHa: rest.stand.area_ha,
      centroidLatitude: rest.stand.centroid.latitude,
      centroidLongitude: rest.stand.centroid.longitude,
      sitesInside: rest.stand.sites_inside,
      nearestSiteUsed: rest.stand.nearest_site_used,
      nearestSiteDistanceKm: rest.stand.nearest_site_distance_km,
      state: rest.stand.state,
      siteClass: rest.stand.site_class,
      sites: rest.stand.sites.map((s: Body) => ({
        siteId: s.site_id,
        latitude: s.latitude,
        longitude: s.longitude,
        zone: s.zone,
        siteClass: s.site_class,
      })),
    })
  }
}

describe('stockingPlan', () => {
  it('for a point: the same plan as POST /v1/plans/stocking, number for number', async () => {
    const result = await stockingPlan(pointInput())
    expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(200)
    expect(result.body.errors).toBeUndefined()
    const gql = result.body.data.stockingPlan
    expect(gql.rule.id).toBe('or_fpa')
    expect(gql.horizons.map((h: Body) => h.horizonYears)).toEqual([1, 3, 5])
    expect(gql.generatedAt).toMatch(/Z$/)
    const rest = await restPlan({
      ...FOREST_POINTS.coastRange,
      planting_method: 'manual',
      species_mix: REST_MIX,
      trees_per_acre: 300,
    })
    expectSamePlan(gql, rest)
  })

  it('for a stand passed as a JSON variable (a Feature, a Polygon, a MultiPolygon), and with a climate and options', async () => {
    const stands = [
      {
        type: 'Feature',
        properties: { name: 'Unit 7' },
        geometry: { type: 'Polygon', coordinates: [PENTAGON] },
      },
      { type: 'Polygon', coordinates: [PENTAGON] },
      { type: 'MultiPolygon', coordinates: [[PENTAGON], [square(-122.2, 44.2, 0.03)]] },
    ]
    for (const stand of stands) {
      const result = await stockingPlan(
        standInput(stand, {
          treesPerAcre: null,
          treesPerHectare: 800,
          confidence: 0.8,
          targetTreesPerAcre: 180,
          climate: { period: '2041-2070', scenario: 'ssp370' },
        }),
      )
      expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(200)
      const gql = result.body.data.stockingPlan
      expect(gql.site).toBeNull()
      expect(gql.stand.sitesInside).toBeGreaterThan(1)
      expect(gql.climatePeriod).toBe('2041-2070')
      const rest = await restPlan({
        stand,
        planting_method: 'manual',
        species_mix: REST_MIX,
        trees_per_hectare: 800,
        confidence: 0.8,
        target_trees_per_acre: 180,
        climate: { period: '2041-2070', scenario: 'ssp370' },
      })
      expectSamePlan(gql, rest)
    }
  })

  it('a stand as an inline literal is the same JSON', async () => {
    const literal = `{ type: "Polygon", coordinates: [[${PENTAGON.map(([x, y]) => `[${x}, ${y}]`).join(', ')}]] }`
    const inline = await graphql(
      server.url,
      `{ stockingPlan(input: { stand: ${literal}, plantingMethod: MANUAL,
         speciesMix: [{ speciesCode: "PSME", share: 0.7 }, { speciesCode: "ALRU", share: 0.3 }], treesPerAcre: 300 })
         { stand { sitesInside areaHa } meetsProbability } }`,
      { key },
    )
    expect(inline.status, JSON.stringify(inline.body).slice(0, 600)).toBe(200)
    const variable = await stockingPlan(standInput({ type: 'Polygon', coordinates: [PENTAGON] }))
    expect(inline.body.data.stockingPlan).toEqual({
      stand: {
        sitesInside: variable.body.data.stockingPlan.stand.sitesInside,
        areaHa: variable.body.data.stockingPlan.stand.areaHa,
      },
      meetsProbability: variable.body.data.stockingPlan.meetsProbability,
    })
  })
  it('a stand literal holding a variable reads the variable, whichever executor runs the operation', async () => {
    const operation = (extraRootFields: string) => `query Nested($ring: JSON) {
      stockingPlan(input: { stand: { type: "Polygon", coordinates: [$ring] }, plantingMethod: MANUAL,
        speciesMix: [{ speciesCode: "PSME", share: 1 }], treesPerAcre: 300 }) { stand { sitesInside areaHa } }
      ${extraRootFields} }`
    const whole = await stockingPlan(standInput({ type: 'Polygon', coordinates: [PENTAGON] }))
    const expected = {
      sitesInside: whole.body.data.stockingPlan.stand.sitesInside,
      areaHa: whole.body.data.stockingPlan.stand.areaHa,
    }
    // Six root fields: graphql-js executes it (src/graphql/plugins/compiled-execution.ts).
    const interpreted = await graphql(
      server.url,
      operation('a: __typename b: __typename c: __typename d: __typename e: __typename'),
      {
        key,
        variables: { ring: PENTAGON },
      },
    )
    expect(interpreted.status, JSON.stringify(interpreted.body).slice(0, 600)).toBe(200)
    expect(interpreted.body.data.stockingPlan.stand).toEqual(expected)
    // One root field: graphql-jit executes it, and must read the variable inside the JSON literal too.
    const compiled = await graphql(server.url, operation(''), { key, variables: { ring: PENTAGON } })
    expect(compiled.status, JSON.stringify(compiled.body).slice(0, 600)).toBe(200)
    expect(compiled.body.data.stockingPlan.stand).toEqual(expected)
  })
})

describe('stockingPlan errors carry code and details.field in extensions', () => {
  const BOW_TIE: Ring = [
    [-123.62, 44.58],
    [-123.58, 44.62],
    [-123.58, 44.58],
    [-123.62, 44.62],
    [-123.62, 44.58],
  ]

  it.each<[string, Record<string, unknown>, string]>([
    [
      'both a point and a stand',
      pointInput({ stand: { type: 'Polygon', coordinates: [PENTAGON] } }),
      'stand',
    ],
    ['neither a point nor a stand', pointInput({ latitude: null, longitude: null }), 'latitude'],
    [
      'an unclosed ring',
      standInput({ type: 'Polygon', coordinates: [PENTAGON.slice(0, -1)] }),
      'stand.coordinates[0]',
    ],
    ['a bow-tie', standInput({ type: 'Polygon', coordinates: [BOW_TIE] }), 'stand.coordinates[0]'],
    [
      'more than 20,000 ha',
      standInput({ type: 'Polygon', coordinates: [square(-123.6, 44.6, 0.15)] }),
      'stand',
    ],
    ['not a GeoJSON polygon', standInput({ type: 'LineString', coordinates: PENTAGON }), 'stand'],
    [
      'shares not summing to 1',
      pointInput({ speciesMix: [{ speciesCode: 'PSME', share: 0.5 }] }),
      'speciesMix',
    ],
    [
      'a species listed twice',
      pointInput({
        speciesMix: [
          { speciesCode: 'PSME', share: 0.5 },
          { speciesCode: 'PSME', share: 0.5 },
        ],
      }),
      'speciesMix[1].speciesCode',
    ],
    ['both densities', pointInput({ treesPerHectare: 700 }), 'treesPerHectare'],
    ['no density', pointInput({ treesPerAcre: null }), 'treesPerAcre'],
    ['a confidence of 0.3', pointInput({ confidence: 0.3 }), 'confidence'],
    ['an unknown rule set', pointInput({ ruleSet: 'ca_fpa' }), 'ruleSet'],
    [
      'a site class with a Washington rule',
      pointInput({ ruleSet: 'wa_fpa_west', siteClass: 'VI' }),
      'siteClass',
    ],
    ['a latitude out of range', pointInput({ latitude: 91 }), 'latitude'],
  ])('%s → invalid_request naming the input field', async (_what, input, field) => {
    const error = expectPlanError(await stockingPlan(input), 'invalid_request', 400)
    expect(error.extensions?.details?.field).toBe(`input.${field}`)
    // The GraphQL names, never the REST ones.
    expect(error.message).not.toMatch(/species_mix|species_code|trees_per_|rule_set|site_class/)
    expect(error.extensions?.details?.reason).toEqual(expect.any(String))
    expect(error.path).toEqual(['stockingPlan'])
  })

  it('unanswerable plans: invalid_species, invalid_climate, outside_coverage (422)', async () => {
    const species = expectPlanError(
      await stockingPlan(pointInput({ speciesMix: [{ speciesCode: 'PSMA', share: 1 }] })),
      'invalid_species',
      422,
    )
    expect(species.extensions?.details).toMatchObject({ closest_code: 'PSME' })
    const climate = expectPlanError(
      await stockingPlan(pointInput({ climate: { period: '2041-2070' } })),
      'invalid_climate',
      422,
    )
    expect(climate.extensions?.details).toMatchObject({ period: '2041-2070', scenario: null })
    expectPlanError(await stockingPlan(pointInput(OUTSIDE_POINTS.boise)), 'outside_coverage', 422)
    const sea = standInput({
      type: 'Polygon',
      coordinates: [square(OUTSIDE_POINTS.openPacific.longitude, OUTSIDE_POINTS.openPacific.latitude, 0.01)],
    })
    expectPlanError(await stockingPlan(sea), 'outside_coverage', 422)
  })

  it('an unknown planting method is refused by the schema (the enum)', async () => {
    const result = await stockingPlan(pointInput({ plantingMethod: 'HELICOPTER' }))
    expect(result.status).toBe(400)
    expect(result.body.data ?? null).toBeNull()
    expect(firstError(result).message).toMatch(/HELICOPTER/)
  })
})

describe('survival intervals and site classes on predict', () => {
  const PREDICT = `query P($level: Float) {
    predict(input: { latitude: ${FOREST_POINTS.coastRange.latitude}, longitude: ${FOREST_POINTS.coastRange.longitude},
      speciesCode: "PSME", plantingMethod: MANUAL }) {
      survivalInterval { horizonYears lower upper level }
      wide: survivalInterval(level: $level) { horizonYears lower upper level }
      predictions { horizonYears survivalProbability logOdds
        survivalInterval(level: 0.5) { horizonYears lower upper level }
        defaultInterval: survivalInterval { lower upper level } }
      site { siteId siteClass }
    } }`

  const sigmoid = (x: number) => 1 / (1 + Math.exp(-x))
  /** Normal quantiles of the levels used here: z((1 + level) / 2). */
  const Z = { 0.5: 0.6744897501960817, 0.9: 1.6448536269514722, 0.99: 2.5758293035489004 }
  /** The model card's terms: planting-year SD 0.8, site SD 0.5, on the logit scale. */
  const SPREAD = Math.hypot(0.8, 0.5)

  it('each interval holds the probability, the 0.5 interval lies inside the 0.9 one, and both follow the stated terms', async () => {
    const result = await graphql(server.url, PREDICT, { key, variables: { level: 0.99 } })
    expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(200)
    expect(result.body.errors).toBeUndefined()
    const p = result.body.data.predict
    expect(p.survivalInterval.map((i: Body) => i.horizonYears)).toEqual([1, 3, 5])
    p.predictions.forEach((h: Body, index: number) => {
      const ninety = p.survivalInterval[index]
      const half = h.survivalInterval
      const wide = p.wide[index]
      expect(ninety).toMatchObject({ horizonYears: h.horizonYears, level: 0.9 })
      expect(half).toMatchObject({ horizonYears: h.horizonYears, level: 0.5 })
      expect(wide).toMatchObject({ horizonYears: h.horizonYears, level: 0.99 })
      expect(h.defaultInterval).toEqual({ lower: ninety.lower, upper: ninety.upper, level: 0.9 })
      for (const interval of [half, ninety, wide]) {
        expect(interval.lower).toBeLessThan(h.survivalProbability)
        expect(interval.upper).toBeGreaterThan(h.survivalProbability)
        expect(interval.lower).toBeGreaterThanOrEqual(0)
        expect(interval.upper).toBeLessThanOrEqual(1)
      }
      expect(half.lower).toBeGreaterThan(ninety.lower)
      expect(half.upper).toBeLessThan(ninety.upper)
      expect(ninety.lower).toBeGreaterThan(wide.lower)
      expect(ninety.upper).toBeLessThan(wide.upper)
      for (const [interval, level] of [
        [half, 0.5],
        [ninety, 0.9],
        [wide, 0.99],
      ] as const) {
        expect(interval.lower).toBeCloseTo(sigmoid(h.logOdds - SPREAD * Z[level]), 6)
        expect(interval.upper).toBeCloseTo(sigmoid(h.logOdds + SPREAD * Z[level]), 6)
      }
      // The probability is the interval's median: the logit-scale distances are equal.
      const logit = (q: number) => Math.log(q / (1 - q))
      expect(logit(ninety.upper) - h.logOdds).toBeCloseTo(h.logOdds - logit(ninety.lower), 6)
    })
  })

  it.each([1.5, 0.3, 1, -0.9])('a level of %d is invalid_request naming level', async (level) => {
    const result = await graphql(server.url, PREDICT, { key, variables: { level } })
    expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(400)
    const error = firstError(result)
    expect(error.extensions?.code).toBe('invalid_request')
    expect(String(error.extensions?.details?.field)).toMatch(/level$/)
  })

  it('Site.siteClass is the class the plan gives the same matched site', async () => {
    const result = await graphql(server.url, PREDICT, { key, variables: { level: 0.9 } })
    const site = result.body.data.predict.site
    expect(['I-III', 'IV-V', 'VI']).toContain(site.siteClass)
    const plan = (await stockingPlan(pointInput())).body.data.stockingPlan
    expect(plan.site.siteId).toBe(site.siteId)
    expect(plan.site.siteClass).toBe(site.siteClass)
    expect(plan.rule.siteClass).toBe(site.siteClass)
    // The stand's sites carry the class of each of them, as predict at each site gives it.
    const stand = (await stockingPlan(standInput({ type: 'Polygon', coordinates: [PENTAGON] }))).body.data
      .stockingPlan.stand
    for (const s of stand.sites.slice(0, 4)) {
      const at = await graphql(
        server.url,
        `{ predict(input: { latitude: ${s.latitude}, longitude: ${s.longitude}, speciesCode: "PSME",
           plantingMethod: MANUAL }) { site { siteId siteClass } } }`,
        { key },
      )
      expect(at.body.data.predict.site).toEqual({ siteId: s.siteId, siteClass: s.siteClass })
    }
  })
})

describe('aliased stockingPlans are capped like predict', () => {
  const aliased = (count: number) =>
    `{ ${forestGrid(count)
      .map(
        (p, i) =>
          `s${i}: stockingPlan(input: { latitude: ${p.latitude}, longitude: ${p.longitude}, plantingMethod: MANUAL,
             speciesMix: [{ speciesCode: "PSME", share: 1 }], treesPerAcre: 300 }) { plantedTreesPerAcre }`,
      )
      .join('\n')} }`

  it('10 pass on a spore key; 11 are batch_too_large (submitted 11, tier_limit 10), and so are plans with predicts', async () => {
    const spore = (await issueKey(db, 'spore')).key
    const ten = await graphql(server.url, aliased(10), { key: spore })
    expect(ten.status, JSON.stringify(ten.body).slice(0, 600)).toBe(200)
    expect(Object.keys(ten.body.data)).toHaveLength(10)
    const eleven = await graphql(server.url, aliased(11), { key: spore })
    expect(eleven.status).toBe(422)
    expect(eleven.body.data ?? null).toBeNull()
    const error = firstError(eleven)
    expect(error.extensions?.code).toBe('batch_too_large')
    expect(error.extensions?.details).toEqual({ submitted: 11, tier_limit: 10, tier: 'spore' })
    const mixed = aliased(6).replace(
      /}\s*$/,
      `${forestGrid(5)
        .map(
          (p, i) =>
            `p${i}: predict(input: { latitude: ${p.latitude}, longitude: ${p.longitude}, speciesCode: "PSME", plantingMethod: MANUAL }) { speciesCode }`,
        )
        .join('\n')} }`,
    )
    const tooMany = await graphql(server.url, mixed, { key: spore })
    expect(firstError(tooMany).extensions?.details).toEqual({ submitted: 11, tier_limit: 10, tier: 'spore' })
  })

  it('a mycel key allows 100 aliased plans and refuses 101', async () => {
    const mycel = (await issueKey(db, 'mycel')).key
    const hundred = await graphql(server.url, aliased(100), { key: mycel })
    expect(hundred.status).toBe(200)
    expect(Object.keys(hundred.body.data)).toHaveLength(100)
    const over = await graphql(server.url, aliased(101), { key: mycel })
    expect(firstError(over).extensions?.details).toEqual({ submitted: 101, tier_limit: 100, tier: 'mycel' })
  })

  it('one operation counts one request against the quota, whatever it plans', async () => {
    const spore = (await issueKey(db, 'spore')).key
    const first = await stockingPlan(standInput({ type: 'Polygon', coordinates: [PENTAGON] }), spore)
    const second = await stockingPlan(pointInput(), spore)
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99')
    expect(second.headers.get('x-ratelimit-remaining')).toBe('98')
  })
})
