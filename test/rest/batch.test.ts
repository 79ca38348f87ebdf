import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TierName } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import {
  FOREST_POINTS,
  NO_DATA_POINTS,
  OUTSIDE_POINTS,
  predictBodies,
  predictBody,
} from '../support/sites.ts'
import {
  batchProblems,
  expectError,
  expectInvalidRequest,
  get,
  post,
  predictionProblems,
  type RestResult,
} from './client.ts'

let db: TestDatabase
let server: TestServer
let hypha: string

beforeAll(async () => {
  ;({ db, server, key: hypha } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

const batch = (body: unknown, key = hypha): Promise<RestResult> =>
  post(server.url, '/v1/predict/batch', body, key)

describe('POST /v1/predict/batch: {"sites": [...]} → {"results": [...]} (spec §4)', () => {
  it('one result per site, in order, each with its index and a prediction', async () => {
    const sites = predictBodies(6)
    const result = await batch({ sites })
    expect(result.status, result.text).toBe(200)
    expect(batchProblems(result.body, 6)).toEqual([])
    result.body.results.forEach((item: { index: number; prediction: unknown }, index: number) => {
      expect(item.index).toBe(index)
      expect(
        predictionProblems(item.prediction, {
          latitude: sites[index]?.latitude as number,
          longitude: sites[index]?.longitude as number,
          species_code: 'PSME',
          planting_method: 'manual',
          horizons: [1, 3, 5],
        }),
      ).toEqual([])
    })
  })

  it('a batch item answers exactly what /v1/predict answers for the same body', async () => {
    const body = predictBody({ ...FOREST_POINTS.eastCascades, species_code: 'PIPO', horizons: [5, 1] })
    const single = await post(server.url, '/v1/predict', body, hypha)
    const result = await batch({ sites: [body] })
    const { generated_at: _a, ...fromBatch } = result.body.results[0].prediction
    const { generated_at: _b, ...fromSingle } = single.body
    expect(fromBatch).toEqual(fromSingle)
    expect(fromBatch.predictions.map((p: { horizon_years: number }) => p.horizon_years)).toEqual([1, 5])
  })

  it('per-item domain errors do not fail the other items', async () => {
    const sites = [
      predictBody(),
      predictBody(OUTSIDE_POINTS.boise),
      predictBody({ species_code: 'PSMA' }),
      predictBody({ planting_method: 'helicopter' }),
      predictBody(NO_DATA_POINTS.downtownPortland),
      predictBody({ ...FOREST_POINTS.westCascades, planting_method: 'drone_seeded' }),
    ]
    const result = await batch({ sites })
    expect(result.status, result.text).toBe(200)
    expect(batchProblems(result.body, sites.length)).toEqual([])
    const outcomes = result.body.results.map(
      (item: { index: number; prediction?: unknown; error?: { code: string } }) =>
        item.prediction ? 'prediction' : item.error?.code,
    )
    expect(outcomes).toEqual([
      'prediction',
      'outside_coverage',
      'invalid_species',
      'invalid_method',
      'no_nearby_data',
      'prediction',
    ])
    const [, outside, species, method, noData, drone] = result.body.results
    expect(outside.error.details.suggestion).toContain('GET /v1/coverage')
    expect(species.error.message).toContain('PSME')
    expect(species.error.message).toContain('Douglas-fir')
    expect(species.error.details.suggestion).toContain('GET /v1/species')
    expect(method.error.details).toBeUndefined()
    expect(noData.error.details).toBeUndefined()
    expect(drone.prediction.planting_method).toBe('drone_seeded')
  })

  it('a batch whose every item fails is still 200 with one error per item', async () => {
    const sites = [predictBody(OUTSIDE_POINTS.openPacific), predictBody({ species_code: 'NOPE' })]
    const result = await batch({ sites })
    expect(result.status, result.text).toBe(200)
    expect(batchProblems(result.body, 2)).toEqual([])
    expect(result.body.results.map((r: { error: { code: string } }) => r.error.code)).toEqual([
      'outside_coverage',
      'invalid_species',
    ])
  })
})

describe('batch size caps per tier (spec §5, §7, §8.3)', () => {
  const LIMITS: [TierName, number][] = [
    ['spore', 10],
    ['mycel', 100],
    ['hypha', 500],
  ]

  it.each(LIMITS)('%s: exactly %d sites pass', async (tier, limit) => {
    const { key } = await issueKey(db, tier)
    const result = await batch({ sites: predictBodies(limit) }, key)
    expect(result.status, result.text.slice(0, 500)).toBe(200)
    expect(batchProblems(result.body, limit)).toEqual([])
  })

  it.each(LIMITS)(
    '%s: %d + 1 sites → 422 batch_too_large with submitted, tier_limit, tier',
    async (tier, limit) => {
      const { key } = await issueKey(db, tier)
      const error = expectError(await batch({ sites: predictBodies(limit + 1) }, key), 422, 'batch_too_large')
      expect(error.details).toEqual({ submitted: limit + 1, tier_limit: limit, tier })
      expect(error.message).toContain(tier)
    },
  )

  it('far over the cap reports the submitted count', async () => {
    const { key } = await issueKey(db, 'spore')
    const error = expectError(await batch({ sites: predictBodies(57) }, key), 422, 'batch_too_large')
    expect(error.details).toEqual({ submitted: 57, tier_limit: 10, tier: 'spore' })
  })
})

describe('a batch counts as one request (spec §8.1)', () => {
  it('a 10-site spore batch uses one request of the daily 100', async () => {
    const { key } = await issueKey(db, 'spore')
    const first = await batch({ sites: predictBodies(10) }, key)
    expect(first.status).toBe(200)
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99')
    expect(first.headers.get('ratelimit')).toMatch(/^"daily";r=99;t=\d+$/)
    const second = await batch({ sites: predictBodies(7) }, key)
    expect(second.headers.get('x-ratelimit-remaining')).toBe('98')
    const methods = await get(server.url, '/v1/methods', key)
    expect(methods.headers.get('x-ratelimit-remaining')).toBe('97')
  })

  it('a refused oversize batch is one keyed request too', async () => {
    const { key } = await issueKey(db, 'spore')
    const refused = await batch({ sites: predictBodies(11) }, key)
    expect(refused.status).toBe(422)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('99')
  })

  it('a 100-site mycel batch uses one request', async () => {
    const { key } = await issueKey(db, 'mycel')
    const result = await batch({ sites: predictBodies(100) }, key)
    expect(result.status).toBe(200)
    expect(result.headers.get('x-ratelimit-remaining')).toBe('9999')
  })
})

describe('batch body validation → 400 invalid_request', () => {
  it.each([
    ['sites missing', {}, 'sites'],
    ['sites not an array', { sites: predictBody() }, 'sites'],
    ['sites null', { sites: null }, 'sites'],
    [
      'an item missing a field',
      { sites: [predictBody(), { latitude: 44.6, longitude: -123.6 }] },
      'sites[1].species_code',
    ],
    ['an item out of range', { sites: [predictBody({ latitude: 95 })] }, 'sites[0].latitude'],
    ['an item with an unknown field', { sites: [predictBody({ foo: 1 })] }, 'sites[0].foo'],
    ['an unknown top-level field', { sites: [predictBody()], extra: true }, 'extra'],
  ])('%s → field %s', async (_label, body, field) => {
    expectInvalidRequest(await batch(body), field)
  })

  it('an item that is not an object names the item', async () => {
    const error = expectError(await batch({ sites: [predictBody(), 'x'] }), 400, 'invalid_request')
    expect(error.details?.field).toBe('sites[1]')
  })

  it('an item with bad horizons names the item field', async () => {
    const error = expectError(
      await batch({ sites: [predictBody({ horizons: [2] })] }),
      400,
      'invalid_request',
    )
    expect(error.details?.field).toMatch(/^sites\[0\]\.horizons/)
  })

  it('an empty batch → 400 invalid_request naming sites, with a reason', async () => {
    expectInvalidRequest(await batch({ sites: [] }), 'sites')
  })

  it.each([
    ['an array of sites', [predictBody()]],
    ['a string', 'sites'],
    ['null', null],
  ])('a body that is %s → field "(root)"', async (_label, body) => {
    expectInvalidRequest(await batch(body), '(root)')
  })
})
