import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { compareBody, FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS, predictBody } from '../support/sites.ts'
import {
  comparisonProblems,
  expectError,
  expectInvalidRequest,
  post,
  type RestResult,
  SPECIES_CODES,
} from './client.ts'

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

const compare = (body: unknown): Promise<RestResult> => post(server.url, '/v1/predict/compare', body, key)

describe('POST /v1/predict/compare (spec §4)', () => {
  it('answers both methods and the differential manual − drone_seeded for all three horizons', async () => {
    const result = await compare(compareBody())
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('content-type')).toMatch(/^application\/json/)
    expect(comparisonProblems(result.body, { species_code: 'PSME', horizons: [1, 3, 5] })).toEqual([])
    expect(result.body.species_common_name).toBe('Douglas-fir')
    expect(result.body.site).toMatchObject(FOREST_POINTS.coastRange)
    expect(result.body.method_differential.map((d: { horizon_years: number }) => d.horizon_years)).toEqual([
      1, 3, 5,
    ])
  })

  it.each(Object.entries(FOREST_POINTS))(
    'matches /v1/predict for each method at %s',
    async (_name, point) => {
      const comparison = await compare(compareBody(point))
      expect(comparison.status, comparison.text).toBe(200)
      for (const method of ['manual', 'drone_seeded'] as const) {
        const single = await post(
          server.url,
          '/v1/predict',
          predictBody({ ...point, planting_method: method }),
          key,
        )
        expect(single.status).toBe(200)
        expect(comparison.body.predictions[method]).toEqual(single.body.predictions)
        expect(comparison.body.site).toEqual(single.body.site)
      }
      for (const entry of comparison.body.method_differential) {
        expect(entry.difference).toBeCloseTo(entry.manual - entry.drone_seeded, 12)
      }
    },
  )

  it('manual planting generally predicts higher survival than drone seeding (positive difference)', async () => {
    const differences: number[] = []
    for (const point of Object.values(FOREST_POINTS)) {
      for (const code of SPECIES_CODES) {
        const result = await compare(compareBody({ ...point, species_code: code }))
        expect(result.status, result.text).toBe(200)
        expect(comparisonProblems(result.body, { species_code: code })).toEqual([])
        for (const entry of result.body.method_differential) differences.push(entry.difference)
      }
    }
    const positive = differences.filter((d) => d > 0).length
    expect(positive / differences.length).toBeGreaterThan(0.5)
  })

  it.each([
    [
      [5, 1],
      [1, 5],
    ],
    [[3, 3], [3]],
    [[1], [1]],
  ])('horizons %j → %j in every list', async (requested, expected) => {
    const result = await compare(compareBody({ horizons: requested }))
    expect(result.status, result.text).toBe(200)
    expect(comparisonProblems(result.body, { horizons: expected })).toEqual([])
  })

  it.each([
    ['[2]', [2]],
    ['[]', []],
    ['["1"]', ['1']],
  ])('bad horizons %s → 400 invalid_request', async (_label, horizons) => {
    const error = expectError(await compare(compareBody({ horizons })), 400, 'invalid_request')
    expect(error.details?.field).toMatch(/^horizons(\[\d+\])?$/)
  })
})

describe('compare: validation and rules', () => {
  it('planting_method is not a compare field: 400 invalid_request naming it', async () => {
    expectInvalidRequest(await compare(compareBody({ planting_method: 'manual' })), 'planting_method')
  })

  it.each(['latitude', 'longitude', 'species_code'])('missing %s → 400 naming it', async (field) => {
    const body = compareBody()
    delete body[field]
    expectInvalidRequest(await compare(body), field)
  })

  it.each([
    ['latitude', '44.6'],
    ['longitude', null],
    ['species_code', 7],
    ['latitude', 91],
    ['longitude', -180.5],
  ])('%s = %j → 400 naming it', async (field, value) => {
    expectInvalidRequest(await compare(compareBody({ [field]: value })), field)
  })

  it.each([
    ['an array', []],
    ['a string', 'x'],
    ['null', null],
  ])('body %s → field "(root)"', async (_label, body) => {
    expectInvalidRequest(await compare(body), '(root)')
  })

  it('outside coverage → 422 outside_coverage with the GET /v1/coverage suggestion', async () => {
    const error = expectError(await compare(compareBody(OUTSIDE_POINTS.boise)), 422, 'outside_coverage')
    expect(String(error.details?.suggestion)).toContain('GET /v1/coverage')
  })

  it('no data point within the radius → 422 no_nearby_data', async () => {
    expectError(await compare(compareBody(NO_DATA_POINTS.openPugetSound)), 422, 'no_nearby_data')
  })

  it('"PSMA" → 422 invalid_species offering PSME (Douglas-fir)', async () => {
    const error = expectError(await compare(compareBody({ species_code: 'PSMA' })), 422, 'invalid_species')
    expect(error.message).toContain('PSME')
    expect(error.message).toContain('Douglas-fir')
    expect(String(error.details?.suggestion)).toContain('GET /v1/species')
  })
})
