import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS } from '../../../test/support/sites.ts'
import { createSurvivalClient, type PredictRequest, SurvivalApiError } from '../src/client.ts'
import { retryAfterMs } from '../src/errors.ts'
import { answerError, startProxy } from './support.ts'

const site = (point: { latitude: number; longitude: number }, species = 'PSME'): PredictRequest => ({
  ...point,
  species_code: species,
  planting_method: 'manual',
})

async function caught(promise: Promise<unknown>): Promise<SurvivalApiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SurvivalApiError) return error
    throw error
  }
  throw new Error('expected a SurvivalApiError')
}

describe('typed client against a live server', () => {
  let running: SeededServer
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
  })
  afterAll(() => stopSeededServer(running))
  const client = () => createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })

  it('predict: the typed body of the prediction', async () => {
    const prediction = await client().predict({ ...site(FOREST_POINTS.coastRange), horizons: [5, 1] })
    expect(prediction.species_code).toBe('PSME')
    expect(prediction.predictions.map((p) => p.horizon_years)).toEqual([1, 5])
    expect(prediction.predictions[0]?.risk_factors).toHaveLength(3)
    expect(prediction.site.region).toBe('pnw')
  })

  it('batch: per-item predictions and errors in request order', async () => {
    const { results } = await client().batch([
      site(FOREST_POINTS.westCascades, 'TSHE'),
      site(NO_DATA_POINTS.downtownPortland),
      site(OUTSIDE_POINTS.boise),
    ])
    expect(results.map((item) => [item.index, 'error' in item ? item.error.code : 'ok'])).toEqual([
      [0, 'ok'],
      [1, 'no_nearby_data'],
      [2, 'outside_coverage'],
    ])
  })

  it('models, model and a batch pinned to a version', async () => {
    const api = client()
    const { models } = await api.models()
    expect(models.map((m) => [m.version, m.kind, m.default])).toEqual([['0.2', 'base', true]])
    expect((await api.model('0.2')).uncertainty.status).toBe('assumption')
    const pinned = await api.batch([site(FOREST_POINTS.westCascades, 'TSHE')], { modelVersion: '0.2' })
    expect(
      pinned.results[0] && 'prediction' in pinned.results[0]
        ? pinned.results[0].prediction.model.version
        : null,
    ).toBe('0.2')
    await expect(api.model('9.9')).rejects.toMatchObject({ status: 422, code: 'invalid_model_version' })
  })

  it('compare, rank, species, methods, treatments, usage: typed bodies', async () => {
    const api = client()
    const comparison = await api.compare({ ...FOREST_POINTS.coastRange, species_code: 'PSME' })
    expect(comparison.method_differential).toHaveLength(3)
    const ranking = await api.rank({ ...FOREST_POINTS.westCascades, planting_method: 'manual', horizon: 5 })
    expect(ranking.ranking).toHaveLength(20)
    expect((await api.species({ group: 'hardwood' })).count).toBe(4)
    expect((await api.methods()).methods.map((m) => m.id)).toEqual(['manual', 'drone_seeded'])
    const treatments = await api.treatments()
    expect(treatments.treatments.map((t) => t.name)).toContain('animal_protection')
    expect(treatments.effects.every((e) => e.sources.length > 0)).toBe(true)
    const usage = await api.usage()
    expect(usage.key.tier).toBe('mycel')
    expect(usage.limits.batch_size).toBe(100)
  })

  it('audit: a typed page of the account’s log, and its cursor', async () => {
    const page = await client().audit({ limit: 1 })
    // The key was created by an operator (the keys CLI's createKey): the first event of its account.
    expect(page.events.map((event) => [event.kind, event.actor, event.key_id])).toEqual([
      ['key.created', 'operator', null],
    ])
    expect(page.next_cursor).toBeNull()
    const refused = await caught(client().audit({ cursor: 'not-a-cursor' }))
    expect(refused).toMatchObject({ status: 400, code: 'invalid_request', details: { field: 'cursor' } })
  })

  it('a 4xx surfaces as SurvivalApiError with status, code, message, details and the Request-Id', async () => {
    const error = await caught(
      client().predict(site(FOREST_POINTS.coastRange, 'PSMA'), { requestId: 'client-test-1' }),
    )
    expect(error).toMatchObject({
      name: 'SurvivalApiError',
      status: 422,
      code: 'invalid_species',
      requestId: 'client-test-1',
    })
    expect(error.message).toMatch(/PSMA/)
    expect(error.details?.closest_code).toBe('PSME')

    const generated = await caught(client().batch([{ ...site(FOREST_POINTS.coastRange), latitude: 95 }]))
    expect(generated).toMatchObject({ status: 400, code: 'invalid_request' })
    expect(generated.details?.field).toBe('sites[0].latitude')
    expect(generated.requestId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('a bad key is 401 invalid_api_key, not retried', async () => {
    const api = createSurvivalClient({ baseUrl: running.server.url, apiKey: `tsp_live_${'0'.repeat(32)}` })
    expect(await caught(api.usage())).toMatchObject({ status: 401, code: 'invalid_api_key' })
  })

  it('retries a 503 after its Retry-After (seconds), then answers', async () => {
    const proxy = await startProxy(running.server.url, {
      answer: (req, res, seen) =>
        req.url === '/v1/predict' &&
        seen === 1 &&
        answerError(res, 503, 'service_unavailable', { 'retry-after': '1' }),
    })
    try {
      const started = Date.now()
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const prediction = await api.predict(site(FOREST_POINTS.coastRange))
      expect(prediction.species_code).toBe('PSME')
      expect(Date.now() - started).toBeGreaterThanOrEqual(950)
      expect(proxy.requests).toEqual(['POST /v1/predict', 'POST /v1/predict'])
    } finally {
      await proxy.close()
    }
  })

  it('retries a 429 whose Retry-After is an HTTP date', async () => {
    const proxy = await startProxy(running.server.url, {
      answer: (req, res, seen) =>
        req.url === '/v1/usage' &&
        seen === 1 &&
        answerError(res, 429, 'rate_limit_exceeded', {
          'retry-after': new Date(Date.now() + 1000).toUTCString(),
        }),
    })
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      expect((await api.usage()).key.tier).toBe('mycel')
      expect(proxy.requests).toEqual(['GET /v1/usage', 'GET /v1/usage'])
    } finally {
      await proxy.close()
    }
  })

  it('does not wait for a daily-quota 429 hours away: throws it at once with retryAfterSeconds', async () => {
    const proxy = await startProxy(running.server.url, {
      answer: (_req, res) => answerError(res, 429, 'rate_limit_exceeded', { 'retry-after': '36000' }),
    })
    try {
      const started = Date.now()
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const error = await caught(api.predict(site(FOREST_POINTS.coastRange)))
      expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfterSeconds: 36000 })
      expect(error.requestId).toBe('proxy-rate_limit_exceeded')
      expect(Date.now() - started).toBeLessThan(1000)
      expect(proxy.requests).toHaveLength(1)
    } finally {
      await proxy.close()
    }
  })

  it('gives up after maxRetries and throws the last 503', async () => {
    const proxy = await startProxy(running.server.url, {
      answer: (_req, res) => answerError(res, 503, 'service_unavailable', { 'retry-after': '0' }),
    })
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key, maxRetries: 2 })
      expect(await caught(api.methods())).toMatchObject({ status: 503, code: 'service_unavailable' })
      expect(proxy.requests).toHaveLength(3)
    } finally {
      await proxy.close()
    }
  })

  it('no response at all is a SurvivalApiError network_error with status 0', async () => {
    const api = createSurvivalClient({ baseUrl: 'http://127.0.0.1:9', apiKey: running.key })
    expect(await caught(api.health())).toMatchObject({ status: 0, code: 'network_error', requestId: null })
  })

  it('a non-envelope error body keeps its status as the code', async () => {
    const proxy = await startProxy(running.server.url, {
      answer: (_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' })
        res.end('<h1>Bad gateway</h1>')
        return true
      },
    })
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const error = await caught(api.methods())
      expect(error).toMatchObject({ status: 502, code: 'http_502', requestId: null })
      expect(error.message).toContain('Bad gateway')
    } finally {
      await proxy.close()
    }
  })

  it('uploadJob streams a file as a chunked body (never read whole)', async () => {
    const file = join(tmpdir(), `client-upload-${process.pid}.csv`)
    writeFileSync(file, 'latitude,longitude,species_code,planting_method\n44.6,-123.6,PSME,manual\n')
    let seen: Record<string, unknown> = {}
    let body = ''
    const proxy = await startProxy(running.server.url, {
      answer: (req, res) => {
        seen = { ...req.headers }
        req.setEncoding('utf8')
        req.on('data', (chunk) => {
          body += chunk
        })
        req.on('end', () => {
          res.writeHead(202, { 'content-type': 'application/json', location: '/v1/jobs/job_x' })
          res.end(
            JSON.stringify({
              id: 'job_x',
              status: 'queued',
              rows: 1,
              links: { self: '/v1/jobs/job_x', results: '/v1/jobs/job_x/results' },
            }),
          )
        })
        return true
      },
    })
    try {
      const api = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const job = await api.uploadJob(file, { format: 'csv' })
      expect(job.id).toBe('job_x')
      expect(seen['transfer-encoding']).toBe('chunked')
      expect(seen['content-length']).toBeUndefined()
      expect(seen['content-type']).toBe('text/csv')
      expect(body).toContain('44.6,-123.6,PSME,manual')
    } finally {
      await proxy.close()
    }
  })
})

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T23:00:00Z')
    expect(retryAfterMs('120', now)).toBe(120_000)
    expect(retryAfterMs('Sun, 22 Nov 2026 23:00:30 GMT', now)).toBe(30_000)
    expect(retryAfterMs('Sun, 22 Nov 2026 22:00:00 GMT', now)).toBe(0)
    expect(retryAfterMs('soon', now)).toBeNull()
    expect(retryAfterMs(null, now)).toBeNull()
  })
})
