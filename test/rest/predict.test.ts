import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS, predictBody } from '../support/sites.ts'
import {
  expectError,
  expectInvalidRequest,
  post,
  predictionProblems,
  type RestResult,
  rest,
  SPECIES_CODES,
} from './client.ts'

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

const predict = (body: unknown): Promise<RestResult> => post(server.url, '/v1/predict', body, key)

describe('POST /v1/predict: success (spec §4)', () => {
  it('answers 200 with exactly the prediction response fields, all three horizons by default', async () => {
    const result = await predict(predictBody())
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('content-type')).toMatch(/^application\/json/)
    expect(
      predictionProblems(result.body, {
        species_code: 'PSME',
        planting_method: 'manual',
        horizons: [1, 3, 5],
        ...FOREST_POINTS.coastRange,
      }),
    ).toEqual([])
    expect(result.body.species_common_name).toBe('Douglas-fir')
    expect(result.body.site.region).toBe('pnw')
    expect(result.body.model).toMatchObject({ version: '0.2', series: 'mycel' })
    const generated = Date.parse(result.body.generated_at)
    expect(Number.isNaN(generated)).toBe(false)
    expect(new Date(generated).toISOString()).toBe(result.body.generated_at)
  })

  it('reports the matched point and its distance from the requested point', async () => {
    const result = await predict(predictBody())
    const { site } = result.body
    expect(site.latitude).toBe(FOREST_POINTS.coastRange.latitude)
    expect(site.longitude).toBe(FOREST_POINTS.coastRange.longitude)
    const dLat = ((site.matched_latitude - site.latitude) * Math.PI) / 180
    const dLon = ((site.matched_longitude - site.longitude) * Math.PI) / 180
    const a =
      Math.sin(dLat / 2) ** 2 +
      Math.cos((site.latitude * Math.PI) / 180) *
        Math.cos((site.matched_latitude * Math.PI) / 180) *
        Math.sin(dLon / 2) ** 2
    const km = 2 * 6371.0088 * Math.asin(Math.sqrt(a))
    expect(Math.abs(site.match_distance_km - km)).toBeLessThan(0.05)
    const coverage = await rest(server.url, 'GET', '/v1/coverage', { key })
    expect(site.match_distance_km).toBeLessThanOrEqual(coverage.body.search_radius_km)
  })

  it.each(Object.entries(FOREST_POINTS))('drone_seeded at %s', async (_name, point) => {
    const result = await predict(predictBody({ ...point, planting_method: 'drone_seeded' }))
    expect(result.status, result.text).toBe(200)
    expect(predictionProblems(result.body, { planting_method: 'drone_seeded', horizons: [1, 3, 5] })).toEqual(
      [],
    )
  })

  it('predicts for every one of the 20 species', async () => {
    for (const code of SPECIES_CODES) {
      const result = await predict(predictBody({ species_code: code }))
      expect(result.status, `${code}: ${result.text}`).toBe(200)
      expect(predictionProblems(result.body, { species_code: code })).toEqual([])
    }
  })

  it('each prediction has exactly 3 risk factors ranked by magnitude, impact negative or positive', async () => {
    for (const point of Object.values(FOREST_POINTS)) {
      for (const method of ['manual', 'drone_seeded']) {
        const result = await predict(predictBody({ ...point, planting_method: method }))
        for (const horizon of result.body.predictions) {
          expect(horizon.risk_factors).toHaveLength(3)
          const magnitudes = horizon.risk_factors.map((f: { magnitude: number }) => f.magnitude)
          expect(magnitudes).toEqual([...magnitudes].sort((a, b) => b - a))
          for (const factor of horizon.risk_factors) expect(['negative', 'positive']).toContain(factor.impact)
        }
      }
    }
  })
})

describe('horizons (spec §4, §8.4)', () => {
  it.each([
    [[1], [1]],
    [[3], [3]],
    [[5], [5]],
    [
      [5, 1],
      [1, 5],
    ],
    [
      [5, 3, 1],
      [1, 3, 5],
    ],
    [
      [3, 3, 1, 3],
      [1, 3],
    ],
    [[5, 5, 5], [5]],
  ])('%j → predictions for %j in ascending order', async (requested, expected) => {
    const result = await predict(predictBody({ horizons: requested }))
    expect(result.status, result.text).toBe(200)
    expect(result.body.predictions.map((p: { horizon_years: number }) => p.horizon_years)).toEqual(expected)
    expect(predictionProblems(result.body, { horizons: expected })).toEqual([])
  })

  it('the same horizon gives the same probability whether asked alone or with others', async () => {
    const all = await predict(predictBody())
    const five = await predict(predictBody({ horizons: [5] }))
    expect(five.body.predictions[0]).toEqual(all.body.predictions[2])
  })

  it.each([
    ['[2]', [2]],
    ['[]', []],
    ['["1"]', ['1']],
    ['[0]', [0]],
    ['[1.5]', [1.5]],
    ['[1, 7]', [1, 7]],
    ['[-1]', [-1]],
    ['[null]', [null]],
    ['a number', 3],
    ['a string', '1,3,5'],
    ['an object', { 1: true }],
  ])(
    'horizons %s → 400 invalid_request naming horizons (or the offending element)',
    async (_label, horizons) => {
      const error = expectError(await predict(predictBody({ horizons })), 400, 'invalid_request')
      expect(error.details?.field).toMatch(/^horizons(\[\d+\])?$/)
      expect(typeof error.details?.reason).toBe('string')
      expect(error.message).toMatch(/horizons/)
    },
  )

  it.each([
    ['["1"]', ['1']],
    ['[null]', [null]],
  ])('a present but mistyped horizon (%s) is not reported as missing', async (_label, horizons) => {
    const error = expectError(await predict(predictBody({ horizons })), 400, 'invalid_request')
    expect(error.details?.reason).not.toMatch(/required/)
  })
})

describe('request body validation → 400 invalid_request with details.field and details.reason', () => {
  it.each(['latitude', 'longitude', 'species_code', 'planting_method'])('missing %s', async (field) => {
    const body = predictBody()
    delete body[field]
    const error = expectInvalidRequest(await predict(body), field)
    expect(error.message).toContain(field)
    expect(error.details?.reason).toBe('is required')
  })

  it.each([
    ['latitude', '44.6'],
    ['latitude', null],
    ['latitude', true],
    ['latitude', [44.6]],
    ['longitude', '-123.6'],
    ['longitude', { value: -123.6 }],
    ['species_code', 42],
    ['species_code', null],
    ['species_code', ['PSME']],
    ['planting_method', false],
    ['planting_method', 1],
  ])('%s mistyped as %j', async (field, value) => {
    const error = expectInvalidRequest(await predict(predictBody({ [field]: value })), field)
    // The field is there, just of the wrong type: the reason must say so, not claim it is missing.
    expect(error.details?.reason).toMatch(/must be/)
  })

  it.each([
    ['latitude', 90.0001],
    ['latitude', -90.5],
    ['latitude', 1e9],
    ['longitude', 180.01],
    ['longitude', -181],
    ['longitude', -1e300],
  ])('%s out of range (%d)', async (field, value) => {
    expectInvalidRequest(await predict(predictBody({ [field]: value })), field)
  })

  it.each([
    ['latitude', 90, 'longitude', 0],
    ['latitude', -90, 'longitude', 0],
    ['longitude', 180, 'latitude', 0],
    ['longitude', -180, 'latitude', 0],
  ])(
    '%s at the boundary (%d) is valid input, just outside coverage',
    async (field, value, other, otherValue) => {
      const result = await predict(predictBody({ [field]: value, [other]: otherValue }))
      expectError(result, 422, 'outside_coverage')
    },
  )

  it.each(['speciesCode', 'foo', 'method', 'region'])('unknown field %s', async (field) => {
    const error = expectInvalidRequest(await predict(predictBody({ [field]: 'x' })), field)
    expect(error.details?.reason).toMatch(/not .*recognized|unknown/i)
  })

  it.each([
    ['an array', [predictBody()]],
    ['a string', 'PSME'],
    ['a number', 42],
    ['null', null],
    ['true', true],
  ])('body is %s → field "(root)"', async (_label, body) => {
    expectInvalidRequest(await predict(body), '(root)')
  })
})

describe('prediction rules (spec §4 rules 1–4, §7)', () => {
  it.each(Object.entries(OUTSIDE_POINTS))(
    'rule 1: outside Oregon/Washington (%s) → 422 outside_coverage pointing to GET /v1/coverage',
    async (_name, point) => {
      const error = expectError(await predict(predictBody(point)), 422, 'outside_coverage')
      expect(String(error.details?.suggestion)).toContain('GET /v1/coverage')
    },
  )

  it.each([
    ['California (Sacramento)', { latitude: 38.58, longitude: -121.49 }],
    ['Idaho (Coeur d’Alene)', { latitude: 47.68, longitude: -116.78 }],
    ['British Columbia (Vancouver)', { latitude: 49.28, longitude: -123.12 }],
    ['the other side of the globe', { latitude: -33.87, longitude: 151.21 }],
  ])('rule 1 also for %s', async (_name, point) => {
    expectError(await predict(predictBody(point)), 422, 'outside_coverage')
  })

  it.each(Object.entries(NO_DATA_POINTS))(
    'rule 2: inside coverage but no data point within the radius (%s) → 422 no_nearby_data, no details',
    async (_name, point) => {
      const error = expectError(await predict(predictBody(point)), 422, 'no_nearby_data')
      expect(error.details).toBeUndefined()
    },
  )

  it('rule 3: "PSMA" → 422 invalid_species offering PSME (Douglas-fir), suggestion GET /v1/species', async () => {
    const error = expectError(await predict(predictBody({ species_code: 'PSMA' })), 422, 'invalid_species')
    expect(error.message).toContain('PSME')
    expect(error.message).toContain('Douglas-fir')
    expect(String(error.details?.suggestion)).toContain('GET /v1/species')
  })

  it.each(['XXXX', 'ZZZZZZZZ', '', 'PSME ', 'psme', 'Douglas-fir'])(
    'rule 3: unrecognised species code %j → 422 invalid_species with the suggestion',
    async (code) => {
      const error = expectError(await predict(predictBody({ species_code: code })), 422, 'invalid_species')
      expect(String(error.details?.suggestion)).toContain('GET /v1/species')
    },
  )

  it.each(['helicopter', 'MANUAL', 'drone', 'drone-seeded', ''])(
    'rule 4: planting_method %j → 422 invalid_method, no details',
    async (method) => {
      const error = expectError(
        await predict(predictBody({ planting_method: method })),
        422,
        'invalid_method',
      )
      expect(error.message).toMatch(/manual/)
      expect(error.details).toBeUndefined()
    },
  )
})
