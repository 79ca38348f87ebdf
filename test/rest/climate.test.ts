import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, predictBody } from '../support/sites.ts'
import { expectError, expectInvalidRequest, get, post, type RestResult } from './client.ts'

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({}, 'hypha'))
})

afterAll(() => stopSeededServer({ db, server }))

const predict = (body: unknown): Promise<RestResult> => post(server.url, '/v1/predict', body, key)
const FUTURE = { period: '2071-2100', scenario: 'ssp585' }

/** The answer without the moment it was made. */
function timeless(body: Record<string, unknown>) {
  const { generated_at: _at, ...rest } = body
  return rest
}

describe('GET /v1/climate', () => {
  it('lists the periods, scenarios, deltas by zone, the data’s version and sources, saying it is a synthesis', async () => {
    const result = await get(server.url, '/v1/climate', key)
    expect(result.status, result.text).toBe(200)
    expect(result.body.baseline_period).toBe('1991_2020')
    expect(result.body.periods).toEqual(['1991_2020', '2011-2040', '2041-2070', '2071-2100'])
    expect(result.body.scenarios).toEqual([
      { id: 'ssp245', name: 'SSP2-4.5' },
      { id: 'ssp370', name: 'SSP3-7.0' },
      { id: 'ssp585', name: 'SSP5-8.5' },
    ])
    expect(result.body.deltas).toHaveLength(72)
    expect(result.body.deltas[0]).toEqual({
      period: '2011-2040',
      scenario: 'ssp245',
      zone: 'coast',
      mean_annual_temperature_c: 0.5,
      summer_max_temperature_c: 0.7,
      annual_precipitation_pct: 0,
      summer_precipitation_pct: -2,
      water_deficit_mm: 15,
    })
    expect(result.body.data).toMatchObject({
      synthesis: true,
      version: expect.stringMatching(/^climate-synthesis-/),
    })
    expect(result.body.data.note).toMatch(/synthesis/)
    expect(result.body.data.sources.length).toBeGreaterThan(3)
    expect(result.headers.get('x-ratelimit-used')).not.toBeNull()
  })

  it('needs a key', async () => {
    expectError(await get(server.url, '/v1/climate'), 401, 'invalid_api_key')
  })
})

describe('POST /v1/predict with a climate', () => {
  it('without a climate, or with the baseline period alone, the answer is exactly today’s', async () => {
    const today = await predict(predictBody())
    for (const climate of [undefined, { period: '1991_2020' }, { period: '1991_2020', scenario: null }]) {
      const answer = await predict(predictBody({ climate }))
      expect(answer.status, answer.text).toBe(200)
      expect(timeless(answer.body)).toEqual(timeless(today.body))
      expect(answer.body.climate).toBeUndefined()
    }
  })

  it('a future climate: survival for the projected site, with the deltas and projected attributes', async () => {
    const today = await predict(predictBody({ species_code: 'TSHE' }))
    const future = await predict(predictBody({ species_code: 'TSHE', climate: FUTURE }))
    expect(future.status, future.text).toBe(200)
    expect(future.body.climate).toMatchObject({
      ...FUTURE,
      data_version: expect.stringMatching(/^climate-synthesis-/),
      note: expect.stringMatching(/synthesis/),
      deltas: { mean_annual_temperature_c: 4.2, water_deficit_mm: 130 },
    })
    const projected = future.body.climate.projected
    expect(Object.keys(projected).sort()).toEqual([
      'annual_precip_mm',
      'growing_season_frost_days',
      'summer_water_deficit_mm',
      'thermal_elevation_m',
    ])
    // Western hemlock scorches on hot, dry sites: a much drier, warmer summer costs it survival.
    for (const [i, p] of (future.body.predictions as { survival_probability: number }[]).entries())
      expect(p.survival_probability).toBeLessThan(today.body.predictions[i].survival_probability)
    expect(future.body.site).toEqual(today.body.site)
  })

  it('each batch item takes its own climate, and an unknown one fails only that item', async () => {
    const result = await post(
      server.url,
      '/v1/predict/batch',
      {
        sites: [
          predictBody({ climate: FUTURE }),
          predictBody(),
          predictBody({ climate: { period: '2050', scenario: 'ssp245' } }),
        ],
      },
      key,
    )
    expect(result.status, result.text).toBe(200)
    const [first, second, third] = result.body.results
    expect(first.prediction.climate).toMatchObject(FUTURE)
    expect(second.prediction.climate).toBeUndefined()
    expect(third.error.code).toBe('invalid_climate')
  })

  it.each([
    { period: '2041-2070' },
    { period: '2041-2070', scenario: 'rcp85' },
    { period: '2041_2070', scenario: 'ssp245' },
    { period: '1991_2020', scenario: 'ssp245' },
    { scenario: 'ssp245' },
  ])('%j answers 422 invalid_climate, pointing to GET /v1/climate', async (climate) => {
    const result = await predict(predictBody({ climate }))
    expectError(result, 422, 'invalid_climate')
    expect(result.body.error.details).toMatchObject({
      allowed_periods: ['1991_2020', '2011-2040', '2041-2070', '2071-2100'],
      allowed_scenarios: ['ssp245', 'ssp370', 'ssp585'],
      suggestion: expect.stringContaining('GET /v1/climate'),
    })
  })

  it.each([
    ['a string', '2041-2070', 'climate'],
    ['an array', ['2041-2070', 'ssp245'], 'climate'],
    ['an unknown key', { period: '2041-2070', scenario: 'ssp245', model: 'CanESM5' }, 'climate.model'],
    ['a period that is not a string', { period: 2050, scenario: 'ssp245' }, 'climate.period'],
  ])('a climate that is %s answers 400 invalid_request naming the field', async (_what, climate, field) => {
    expectInvalidRequest(await predict(predictBody({ climate })), field)
  })

  it('the species and method checks come first, then the climate, then coverage', async () => {
    const both = predictBody({ species_code: 'NOPE', climate: { period: 'x' } })
    expectError(await predict(both), 422, 'invalid_species')
    expectError(
      await predict({
        ...FOREST_POINTS.coastRange,
        species_code: 'PSME',
        planting_method: 'air',
        climate: { period: 'x' },
      }),
      422,
      'invalid_method',
    )
    expectError(
      await predict(predictBody({ latitude: 43.6, longitude: -116.2, climate: { period: 'x' } })),
      422,
      'invalid_climate',
    )
  })
})

describe('POST /v1/predict/compare and /v1/predict/rank with a climate', () => {
  const compare = (body: unknown) => post(server.url, '/v1/predict/compare', body, key)
  const rank = (body: unknown) => post(server.url, '/v1/predict/rank', body, key)
  const compareBody = (extra: Record<string, unknown> = {}) => ({
    ...FOREST_POINTS.coastRange,
    species_code: 'TSHE',
    ...extra,
  })
  const rankBody = (extra: Record<string, unknown> = {}) => ({
    ...FOREST_POINTS.eastCascades,
    planting_method: 'manual',
    horizon: 5,
    ...extra,
  })

  it('compare: both methods for the projected site, the same as predict under that climate', async () => {
    const today = await compare(compareBody())
    expect(timeless((await compare(compareBody({ climate: { period: '1991_2020' } }))).body)).toEqual(
      timeless(today.body),
    )
    const future = await compare(compareBody({ climate: FUTURE }))
    expect(future.status, future.text).toBe(200)
    expect(future.body.climate).toMatchObject(FUTURE)
    for (const method of ['manual', 'drone_seeded']) {
      const single = await predict(
        predictBody({ species_code: 'TSHE', planting_method: method, climate: FUTURE }),
      )
      expect(future.body.predictions[method]).toEqual(single.body.predictions)
    }
    expectError(await compare(compareBody({ climate: { period: '2071-2100' } })), 422, 'invalid_climate')
    expectInvalidRequest(await compare(compareBody({ climate: 'ssp585' })), 'climate')
  })

  it('rank: every species for the projected site; native range is still the site’s own', async () => {
    const today = await rank(rankBody())
    expect(timeless((await rank(rankBody({ climate: null }))).body)).toEqual(timeless(today.body))
    const future = await rank(rankBody({ climate: FUTURE }))
    expect(future.status, future.text).toBe(200)
    expect(future.body.climate).toMatchObject(FUTURE)
    const nativeToday = Object.fromEntries(
      today.body.ranking.map((r: { species_code: string; native_range: boolean }) => [
        r.species_code,
        r.native_range,
      ]),
    )
    for (const entry of future.body.ranking as {
      species_code: string
      native_range: boolean
      survival_probability: number
    }[]) {
      expect(entry.native_range).toBe(nativeToday[entry.species_code])
      const single = await predict({
        ...FOREST_POINTS.eastCascades,
        species_code: entry.species_code,
        planting_method: 'manual',
        horizons: [5],
        climate: FUTURE,
      })
      expect(entry.survival_probability).toBe(single.body.predictions[0].survival_probability)
    }
    expectError(
      await rank(rankBody({ climate: { period: '2071-2100', scenario: 'rcp45' } })),
      422,
      'invalid_climate',
    )
    expectInvalidRequest(
      await rank(rankBody({ climate: { period: '2071-2100', extra: 1 } })),
      'climate.extra',
    )
  })
})
