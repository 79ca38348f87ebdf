import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPECIES } from '../../src/domain/species.ts'
import { NUMERIC_SITE_ATTRIBUTES } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import {
  batchInputTypeName,
  batchQuery,
  firstError,
  graphql,
  predictField,
  predictInput,
} from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, OUTSIDE_POINTS, predictionInputs } from '../support/sites.ts'

let db: TestDatabase
let server: TestServer
let key: string
let batchType: string

beforeAll(async () => {
  // mycel: plenty of requests for this file, batches up to 100.
  ;({ db, server, key } = await startSeededServer({}, 'mycel'))
  batchType = await batchInputTypeName(server.url)
})

afterAll(() => stopSeededServer({ db, server }))

const SITE_FIELDS = `latitude longitude matchedLatitude matchedLongitude matchDistanceKm region siteId forestRegion zone
  elevationM slopeDeg aspectDeg heatLoadIndex soilDepthCm rockFractionPct vegetationCoverPct annualPrecipMm
  summerWaterDeficitMm growingSeasonFrostDays browsePressureIndex`

const FACTOR_FIELDS = 'factor key impact magnitude contribution'

interface Factor {
  factor: string
  key: string
  impact: 'NEGATIVE' | 'POSITIVE'
  magnitude: number
  contribution: number
}

describe('predict', () => {
  it('returns every field: site with its attributes, species, method, predictions, model, timestamp', async () => {
    const point = FOREST_POINTS.coastRange
    const result = await graphql(
      server.url,
      `{ ${predictField(
        point,
        `site { ${SITE_FIELDS} } species { code commonName scientificName group } speciesCode speciesCommonName
         plantingMethod predictions { horizonYears survivalProbability riskFactors { ${FACTOR_FIELDS} } }
         model { version codename series } generatedAt`,
      )} }`,
      { key },
    )
    expect(result.status).toBe(200)
    expect(result.body.errors).toBeUndefined()
    const p = result.body.data.predict
    expect(p.site.latitude).toBe(point.latitude)
    expect(p.site.longitude).toBe(point.longitude)
    expect(p.site.region).toBe('pnw')
    expect(p.site.matchDistanceKm).toBeGreaterThanOrEqual(0)
    expect(p.site.matchDistanceKm).toBeLessThanOrEqual(10)
    expect(Math.abs(p.site.matchedLatitude - point.latitude)).toBeLessThan(0.1)
    expect(Math.abs(p.site.matchedLongitude - point.longitude)).toBeLessThan(0.15)
    expect(Number.isInteger(p.site.siteId)).toBe(true)
    expect(typeof p.site.forestRegion).toBe('string')
    expect(typeof p.site.zone).toBe('string')
    for (const field of NUMERIC_SITE_ATTRIBUTES) {
      expect(typeof p.site[field], field).toBe('number')
    }
    expect(p.species).toEqual({
      code: 'PSME',
      commonName: 'Douglas-fir',
      scientificName: 'Pseudotsuga menziesii',
      group: 'CONIFER',
    })
    expect(p.speciesCode).toBe('PSME')
    expect(p.speciesCommonName).toBe('Douglas-fir')
    expect(p.plantingMethod).toBe('MANUAL')
    expect(p.predictions.map((h: { horizonYears: number }) => h.horizonYears)).toEqual([1, 3, 5])
    for (const horizon of p.predictions) {
      expect(horizon.survivalProbability).toBeGreaterThanOrEqual(0)
      expect(horizon.survivalProbability).toBeLessThanOrEqual(1)
      expect(horizon.riskFactors).toHaveLength(3)
      const magnitudes = horizon.riskFactors.map((f: Factor) => f.magnitude)
      expect(magnitudes).toEqual([...magnitudes].sort((a, b) => b - a))
      for (const factor of horizon.riskFactors as Factor[]) {
        expect(['NEGATIVE', 'POSITIVE']).toContain(factor.impact)
        expect(factor.magnitude).toBeCloseTo(Math.abs(factor.contribution), 12)
        expect(factor.impact).toBe(factor.contribution < 0 ? 'NEGATIVE' : 'POSITIVE')
      }
    }
    expect(p.model).toEqual({ version: '0.2', codename: expect.any(String), series: 'mycel' })
    expect(new Date(p.generatedAt).toISOString()).toBe(p.generatedAt)
  })

  it('answers drone seeding too, with lower survival than hand planting here', async () => {
    const selection = 'plantingMethod predictions { survivalProbability }'
    const result = await graphql(
      server.url,
      `{ manual: ${predictField(FOREST_POINTS.westCascades, selection)}
         drone: ${predictField({ ...FOREST_POINTS.westCascades, plantingMethod: 'DRONE_SEEDED' }, selection)} }`,
      { key },
    )
    expect(result.body.errors).toBeUndefined()
    expect(result.body.data.drone.plantingMethod).toBe('DRONE_SEEDED')
    const manual = result.body.data.manual.predictions.map(
      (h: { survivalProbability: number }) => h.survivalProbability,
    )
    const drone = result.body.data.drone.predictions.map(
      (h: { survivalProbability: number }) => h.survivalProbability,
    )
    for (const [index, m] of manual.entries()) expect(m).toBeGreaterThan(drone[index])
  })

  it('gives the top 3 risk factors by default and honours `limit`', async () => {
    const result = await graphql(
      server.url,
      `{ ${predictField(
        FOREST_POINTS.eastCascades,
        `predictions { top: riskFactors { key magnitude } one: riskFactors(limit: 1) { key }
          five: riskFactors(limit: 5) { key magnitude } all: allFactors { key magnitude } }`,
      )} }`,
      { key },
    )
    expect(result.body.errors).toBeUndefined()
    for (const horizon of result.body.data.predict.predictions) {
      expect(horizon.top).toHaveLength(3)
      expect(horizon.one).toHaveLength(1)
      expect(horizon.five).toHaveLength(5)
      expect(horizon.one[0].key).toBe(horizon.top[0].key)
      expect(horizon.five.slice(0, 3)).toEqual(horizon.top)
      expect(horizon.all.slice(0, 5)).toEqual(horizon.five)
    }
  })

  it.each([
    [0, 'Too small: expected number to be >=1'],
    [51, 'Too big: expected number to be <=50'],
  ])('refuses riskFactors(limit: %i): 1 to 50, named as the argument', async (limit, reason) => {
    const result = await graphql(
      server.url,
      `{ ${predictField(FOREST_POINTS.eastCascades, `predictions { riskFactors(limit: ${limit}) { key } }`)} }`,
      { key },
    )
    expect(result.body.data).toEqual({ predict: null })
    expect(result.body.errors).toEqual(
      [0, 1, 2].map((horizon) => ({
        message: `limit ${reason}`,
        path: ['predict', 'predictions', horizon, 'riskFactors'],
        extensions: { code: 'invalid_request', status: 400, details: { field: 'limit', reason } },
      })),
    )
  })

  it('explains the whole prediction with allFactors: baselineLogOdds + Σ contribution = logOdds', async () => {
    const result = await graphql(
      server.url,
      `{ ${predictField(
        FOREST_POINTS.westCascades,
        `predictions { horizonYears survivalProbability baselineLogOdds logOdds allFactors { ${FACTOR_FIELDS} } }`,
      )} modelFactors { key } }`,
      { key },
    )
    expect(result.body.errors).toBeUndefined()
    const factorKeys = result.body.data.modelFactors.map((f: { key: string }) => f.key).sort()
    for (const horizon of result.body.data.predict.predictions) {
      const factors = horizon.allFactors as Factor[]
      expect(factors.length).toBeGreaterThan(3)
      expect(factors.map((f) => f.key).sort()).toEqual(factorKeys)
      const sum = factors.reduce((total, f) => total + f.contribution, 0)
      expect(horizon.baselineLogOdds + sum).toBeCloseTo(horizon.logOdds, 9)
      expect(1 / (1 + Math.exp(-horizon.logOdds))).toBeCloseTo(horizon.survivalProbability, 9)
      const magnitudes = factors.map((f) => f.magnitude)
      expect(magnitudes).toEqual([...magnitudes].sort((a, b) => b - a))
    }
  })

  it('normalises horizons: a subset, duplicates and any order come back unique and ascending', async () => {
    const cases: [number[], number[]][] = [
      [[5], [5]],
      [
        [3, 1],
        [1, 3],
      ],
      [
        [5, 1, 5, 3, 1],
        [1, 3, 5],
      ],
      [[5, 5], [5]],
    ]
    for (const [requested, expected] of cases) {
      const result = await graphql(
        server.url,
        `{ ${predictField({ ...FOREST_POINTS.coastRange, horizons: requested }, 'predictions { horizonYears }')} }`,
        { key },
      )
      expect(result.body.errors, JSON.stringify(requested)).toBeUndefined()
      expect(
        result.body.data.predict.predictions.map((h: { horizonYears: number }) => h.horizonYears),
      ).toEqual(expected)
    }
  })

  it('gives the same probabilities for a horizon subset as for the full request', async () => {
    const selection = 'predictions { horizonYears survivalProbability }'
    const result = await graphql(
      server.url,
      `{ all: ${predictField(FOREST_POINTS.coastRange, selection)}
         three: ${predictField({ ...FOREST_POINTS.coastRange, horizons: [3] }, selection)} }`,
      { key },
    )
    expect(result.body.data.three.predictions[0]).toEqual(result.body.data.all.predictions[1])
  })
})

describe('compareMethods', () => {
  it('returns both methods and methodDifferential = manual − droneSeeded per horizon', async () => {
    const { latitude, longitude } = FOREST_POINTS.coastRange
    const result = await graphql(
      server.url,
      `{ compareMethods(input: { latitude: ${latitude}, longitude: ${longitude}, speciesCode: "TSHE" }) {
          site { latitude longitude matchedLatitude region }
          species { code commonName }
          manual { horizonYears survivalProbability riskFactors { key } }
          droneSeeded { horizonYears survivalProbability riskFactors { key } }
          methodDifferential { horizonYears manual droneSeeded difference }
          model { version series }
          generatedAt
        } }`,
      { key },
    )
    expect(result.status).toBe(200)
    expect(result.body.errors).toBeUndefined()
    const c = result.body.data.compareMethods
    expect(c.site).toMatchObject({ latitude, longitude, region: 'pnw' })
    expect(c.species).toEqual({ code: 'TSHE', commonName: 'western hemlock' })
    expect(c.manual.map((h: { horizonYears: number }) => h.horizonYears)).toEqual([1, 3, 5])
    expect(c.droneSeeded.map((h: { horizonYears: number }) => h.horizonYears)).toEqual([1, 3, 5])
    expect(c.methodDifferential).toHaveLength(3)
    for (const [index, d] of c.methodDifferential.entries()) {
      expect(d.horizonYears).toBe(c.manual[index].horizonYears)
      expect(d.manual).toBe(c.manual[index].survivalProbability)
      expect(d.droneSeeded).toBe(c.droneSeeded[index].survivalProbability)
      expect(d.difference).toBeCloseTo(d.manual - d.droneSeeded, 12)
      expect(d.difference).toBeGreaterThan(0)
    }
    expect(c.model).toEqual({ version: '0.2', series: 'mycel' })
  })

  it('matches the separate predictions for each method and honours horizons', async () => {
    const point = FOREST_POINTS.eastCascades
    const selection = 'predictions { horizonYears survivalProbability }'
    const result = await graphql(
      server.url,
      `{ c: compareMethods(input: { latitude: ${point.latitude}, longitude: ${point.longitude}, speciesCode: "PIPO", horizons: [5, 1] }) {
          manual { horizonYears survivalProbability } droneSeeded { horizonYears survivalProbability }
          methodDifferential { horizonYears difference } }
         m: ${predictField({ ...point, speciesCode: 'PIPO', horizons: [1, 5] }, selection)}
         d: ${predictField({ ...point, speciesCode: 'PIPO', horizons: [1, 5], plantingMethod: 'DRONE_SEEDED' }, selection)} }`,
      { key },
    )
    expect(result.body.errors).toBeUndefined()
    const { c, m, d } = result.body.data
    expect(c.manual).toEqual(m.predictions)
    expect(c.droneSeeded).toEqual(d.predictions)
    expect(c.methodDifferential.map((x: { horizonYears: number }) => x.horizonYears)).toEqual([1, 5])
  })
})

describe('predictBatch', () => {
  it('answers each item in order with its index; one item outside coverage does not fail the others', async () => {
    const sites = predictionInputs(5)
    const outside = { ...sites[2], ...OUTSIDE_POINTS.boise }
    sites[2] = outside as (typeof sites)[number]
    sites[4] = { ...(sites[4] as (typeof sites)[number]), speciesCode: 'NOPE' }
    const result = await graphql(server.url, batchQuery(batchType), { key, variables: { sites } })
    expect(result.status).toBe(200)
    expect(result.body.errors).toBeUndefined()
    const items = result.body.data.predictBatch
    expect(items.map((item: { index: number }) => item.index)).toEqual([0, 1, 2, 3, 4])
    expect(items[2].prediction).toBeNull()
    expect(items[2].error).toMatchObject({
      code: 'outside_coverage',
      details: { suggestion: expect.any(String) },
    })
    expect(items[4].prediction).toBeNull()
    expect(items[4].error.code).toBe('invalid_species')
    for (const index of [0, 1, 3]) {
      const item = items[index]
      if (item.error) {
        // A grid point may lie beyond the radius; that is its own error, never another item's.
        expect(item.error.code).toBe('no_nearby_data')
        continue
      }
      expect(item.prediction.site.latitude).toBe(sites[index]?.latitude)
      expect(item.prediction.site.longitude).toBe(sites[index]?.longitude)
      expect(item.prediction.speciesCode).toBe('PSME')
    }
    expect(items.filter((item: { prediction: unknown }) => item.prediction).length).toBeGreaterThanOrEqual(2)
  })

  it('keeps the order of the items and answers each like predict does', async () => {
    const sites = [
      { ...FOREST_POINTS.eastCascades, speciesCode: 'PIPO', plantingMethod: 'drone_seeded', horizons: [5] },
      { ...FOREST_POINTS.coastRange, speciesCode: 'PSME', plantingMethod: 'manual' },
    ]
    const result = await graphql(
      server.url,
      `query B($sites: [${batchType}!]!) {
        predictBatch(sites: $sites) { index prediction { speciesCode plantingMethod predictions { horizonYears survivalProbability } } error { code } }
        single: ${predictField({ ...FOREST_POINTS.eastCascades, speciesCode: 'PIPO', plantingMethod: 'DRONE_SEEDED', horizons: [5] }, 'predictions { horizonYears survivalProbability }')}
      }`,
      { key, variables: { sites } },
    )
    expect(result.body.errors).toBeUndefined()
    const [first, second] = result.body.data.predictBatch
    expect(first.prediction.speciesCode).toBe('PIPO')
    expect(first.prediction.plantingMethod).toBe('DRONE_SEEDED')
    expect(first.prediction.predictions).toEqual(result.body.data.single.predictions)
    expect(second.prediction.speciesCode).toBe('PSME')
    expect(second.prediction.predictions).toHaveLength(3)
  })
})

describe('reference queries', () => {
  it('species lists all 20 (16 conifers, 4 hardwoods) with their attributes', async () => {
    const result = await graphql(
      server.url,
      `{ species { code commonName scientificName group elevationMinM elevationMaxM precipitationMinMm
          precipitationMaxMm droughtTolerance shadeTolerance frostTolerance rangeZones notes } }`,
      { key },
    )
    expect(result.body.errors).toBeUndefined()
    const species = result.body.data.species as { code: string; group: string; rangeZones: string[] }[]
    expect(species).toHaveLength(20)
    expect(species.map((s) => s.code).sort()).toEqual(SPECIES.map((s) => s.code).sort())
    expect(species.filter((s) => s.group === 'CONIFER')).toHaveLength(16)
    expect(species.filter((s) => s.group === 'HARDWOOD')).toHaveLength(4)
    for (const s of species) expect(s.code).toMatch(/^[A-Z]{4}$/)
  })

  it('species filters by group, search (code, common or scientific name, any case) and zone', async () => {
    const result = await graphql(
      server.url,
      `{ hardwoods: species(group: HARDWOOD) { code group }
         byCode: species(search: "psme") { code }
         byCommon: species(search: "Hemlock") { code }
         byScientific: species(search: "quercus") { code }
         none: species(search: "no such tree") { code }
         coast: species(zone: "coast") { code rangeZones }
         coastConifers: species(zone: "coast", group: CONIFER) { code group } }`,
      { key },
    )
    expect(result.body.errors).toBeUndefined()
    const d = result.body.data
    expect(d.hardwoods.map((s: { code: string }) => s.code).sort()).toEqual(['ACMA', 'ALRU', 'POTR', 'QUGA'])
    expect(d.byCode).toEqual([{ code: 'PSME' }])
    expect(d.byCommon.map((s: { code: string }) => s.code).sort()).toEqual(['TSHE', 'TSME'])
    expect(d.byScientific).toEqual([{ code: 'QUGA' }])
    expect(d.none).toEqual([])
    const coastal = SPECIES.filter((s) => (s.rangeZones as string[]).includes('coast')).map((s) => s.code)
    expect(d.coast.map((s: { code: string }) => s.code).sort()).toEqual([...coastal].sort())
    expect(d.coast.length).toBeGreaterThan(0)
    for (const s of d.coast) expect(s.rangeZones).toContain('coast')
    for (const s of d.coastConifers) expect(s.group).toBe('CONIFER')
    expect(d.coastConifers.length).toBeLessThan(d.coast.length + 1)
  })

  it('plantingMethods lists manual and drone seeding', async () => {
    const result = await graphql(server.url, '{ plantingMethods { id name description } }', { key })
    expect(result.body.errors).toBeUndefined()
    expect(result.body.data.plantingMethods).toEqual([
      {
        id: 'MANUAL',
        name: expect.any(String),
        description: 'Hand-planted seedlings installed by field crews',
      },
      {
        id: 'DRONE_SEEDED',
        name: expect.any(String),
        description: 'Aerial dispersal of seed pods or seedling capsules by drone',
      },
    ])
  })

  it('coverage is a GeoJSON FeatureCollection with the region and search radius', async () => {
    const result = await graphql(server.url, '{ coverage { region searchRadiusKm geojson } }', { key })
    expect(result.body.errors).toBeUndefined()
    const coverage = result.body.data.coverage
    expect(coverage.region).toBe('pnw')
    expect(coverage.searchRadiusKm).toBe(10)
    expect(coverage.geojson.type).toBe('FeatureCollection')
    expect(Array.isArray(coverage.geojson.features)).toBe(true)
    expect(coverage.geojson.features.length).toBeGreaterThan(0)
    for (const feature of coverage.geojson.features) {
      expect(feature.type).toBe('Feature')
      expect(['Polygon', 'MultiPolygon']).toContain(feature.geometry.type)
    }
  })

  it('health needs no key and reports status, version, model, regions, database and a timestamp', async () => {
    const result = await graphql(
      server.url,
      '{ health { status version model { version codename series } coverageRegions database timestamp } }',
    )
    expect(result.status).toBe(200)
    expect(result.body.errors).toBeUndefined()
    const health = result.body.data.health
    expect(health).toMatchObject({
      status: 'healthy',
      version: '1.0.0',
      coverageRegions: ['pnw'],
      database: 'connected',
      model: { version: '0.2', series: 'mycel', codename: expect.any(String) },
    })
    expect(new Date(health.timestamp).toISOString()).toBe(health.timestamp)
    expect(result.headers.get('x-ratelimit-limit')).toBeNull()
  })

  it('model needs no key and agrees with health', async () => {
    const result = await graphql(
      server.url,
      '{ model { version codename series } health { model { version codename series } } }',
    )
    expect(result.status).toBe(200)
    expect(result.body.errors).toBeUndefined()
    expect(result.body.data.model).toEqual(result.body.data.health.model)
    expect(result.body.data.model.version).toBe('0.2')
  })

  it('modelFactors needs a key and lists every factor with key, name and description', async () => {
    const anonymous = await graphql(server.url, '{ modelFactors { key } }')
    expect(anonymous.status).toBe(401)
    expect(firstError(anonymous).extensions?.code).toBe('invalid_api_key')
    const result = await graphql(server.url, '{ modelFactors { key name description } }', { key })
    expect(result.body.errors).toBeUndefined()
    const factors = result.body.data.modelFactors as { key: string; name: string; description: string }[]
    expect(factors.length).toBeGreaterThan(3)
    expect(new Set(factors.map((f) => f.key)).size).toBe(factors.length)
    for (const f of factors) {
      expect(f.name.length).toBeGreaterThan(0)
      expect(f.description.length).toBeGreaterThan(0)
    }
  })

  it('every query field is covered by these tests', async () => {
    const result = await graphql(server.url, '{ __schema { queryType { fields { name } } } }')
    const names = result.body.data.__schema.queryType.fields.map((f: { name: string }) => f.name).sort()
    expect(names).toEqual(
      [
        'compareMethods',
        'coverage',
        'health',
        'model',
        'modelFactors',
        'plantingMethods',
        'predict',
        'predictBatch',
        'species',
        // Covered by species-ranking.test.ts and survival-map.test.ts.
        'speciesRanking',
        'survivalMap',
        // Covered by viewer.test.ts.
        'viewer',
        // Covered by climate.test.ts.
        'climateScenarios',
        // Covered by treatments.test.ts.
        'treatmentCatalogue',
        // Covered by stocking-plan.test.ts.
        'stockingPlan',
        // Covered by planting-options.test.ts.
        'plantingOptions',
        // Covered by surveys.test.ts (with the survey mutations).
        'surveys',
        'surveyPlot',
        'surveyReport',
        'surveyUpload',
        // Covered by models.test.ts.
        'models',
        // Covered by calibrations.test.ts.
        'calibration',
        // Covered by job-survey-report-links.test.ts.
        'job',
      ].sort(),
    )
    expect(predictInput(FOREST_POINTS.coastRange)).toContain('MANUAL')
  })
})

describe('aliases with a failing site', () => {
  it('keep the other answers: the failing alias is null with its error, and the response is 200', async () => {
    const forest = FOREST_POINTS.coastRange
    const outside = OUTSIDE_POINTS.boise
    const input = (p: { latitude: number; longitude: number }) =>
      `{ latitude: ${p.latitude}, longitude: ${p.longitude}, speciesCode: "PSME", plantingMethod: MANUAL }`
    const result = await graphql(
      server.url,
      `{ good: predict(input: ${input(forest)}) { speciesCode } bad: predict(input: ${input(outside)}) { speciesCode } }`,
      { key },
    )
    expect(result.status).toBe(200)
    expect(result.body.data).toEqual({ good: { speciesCode: 'PSME' }, bad: null })
    expect(result.body.errors).toHaveLength(1)
    expect(result.body.errors?.[0]).toMatchObject({
      path: ['bad'],
      extensions: { code: 'outside_coverage', status: 422 },
    })
  })
})
