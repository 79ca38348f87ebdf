import { IncomingMessage, type ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jobServiceOver } from '../../test/support/fake-jobs.ts'
import {
  accessControlOver,
  FakeKeyDirectory,
  FakeSiteLookup,
  FOREST_POINTS,
  failingSiteLookup,
  keyServiceOver,
  MemoryAuditLog,
  recordingLogger,
  requestContext,
  TIERS,
} from '../../test/support/fakes.ts'
import { MemoryModelVersionStore } from '../../test/support/model-version-fakes.ts'
import { AuditService } from '../domain/audit-service.ts'
import { CalibrationService, fitHere } from '../domain/calibration/calibration-service.ts'
import { Catalogue } from '../domain/catalogue.ts'
import { StoreUnavailableError } from '../domain/errors.ts'
import { HealthMonitor } from '../domain/health.ts'
import { DefaultVersions } from '../domain/models/default-version.ts'
import { ModelRegistry } from '../domain/models/model-registry.ts'
import type { NearestSiteLookup } from '../domain/ports/sites.ts'
import type { SurveyUploadTicketStore } from '../domain/ports/survey-upload-tickets.ts'
import type { SurveyUploadStore } from '../domain/ports/survey-uploads.ts'
import type { SurveyStore } from '../domain/ports/surveys.ts'
import { PredictionService } from '../domain/prediction-service.ts'
import { ReportLinks, reportLinkSecret } from '../domain/reports/report-links.ts'
import { ReportService } from '../domain/reports/report-service.ts'
import { SPECIES } from '../domain/species.ts'
import { StockingPlanService } from '../domain/stocking/stocking-service.ts'
import { SurveyService } from '../domain/surveys/survey-service.ts'
import { SurveyUploadService } from '../domain/surveys/survey-upload-service.ts'
import { SurveyUploadTickets } from '../domain/surveys/survey-upload-tickets.ts'
import { loadSurvivalModel } from '../model/index.ts'
import { renderPdfReport } from '../report-files/pdf-report.ts'
import { surveyFileFormats } from '../survey-files/survey-upload-rows.ts'
import { createRestHandler } from './router.ts'
import { ROUTES } from './routes.ts'

const NOW = new Date('2026-11-22T12:00:00Z')
const model = loadSurvivalModel(SPECIES)

/** What the handler wrote: writeHead once, then the body (in chunks, corked, for a large one) and end once. */
class RecordedResponse {
  status = 0
  headers: Record<string, string | number> = {}
  text = ''

  writeHead(status: number, headers: Record<string, string | number>) {
    this.status = status
    this.headers = headers
    return this
  }

  cork() {}
  uncork() {}

  write(chunk: Buffer) {
    this.text += chunk.toString('utf8')
    return true
  }

  end(payload?: Buffer | string) {
    if (payload !== undefined) this.text += payload.toString()
    return this
  }

  get json(): Record<string, unknown> {
    return JSON.parse(this.text)
  }
}

/** A Node request as the front door hands it over: method, headers and (already buffered) body. */
function incoming(method: string, headers: Record<string, string>, body?: string): IncomingMessage {
  const req = new IncomingMessage(new Socket())
  req.method = method
  req.headers = body === undefined ? headers : { 'content-type': 'application/json', ...headers }
  if (body !== undefined) req.push(body)
  req.push(null)
  return req
}

interface Setup {
  lookup?: NearestSiteLookup
  directory?: FakeKeyDirectory
  databaseAnswers?: boolean
}

/** An account with no survey plots (test/rest/surveys.test.ts stores some, over PostgreSQL). */
const noSurveyStore: SurveyStore = {
  save: () => Promise.reject(new Error('no surveys are stored in the router tests')),
  page: async () => [],
  plot: async () => [],
  remove: async () => 0,
  reportPlots: async () => [],
  calibrationPlots: async () => ({ groups: [], otherVersionPlots: 0, dataVersions: [] }),
}

/** Uploads are tested over PostgreSQL (test/rest/survey-uploads.test.ts); here none is kept. */
const noSurveyUploadStore: SurveyUploadStore = {
  create: () => Promise.reject(new Error('no survey uploads are kept in the router tests')),
  addBatch: () => Promise.reject(new Error('no survey uploads are kept in the router tests')),
  touch: async () => {},
  commit: () => Promise.reject(new Error('no survey uploads are kept in the router tests')),
  finishEmpty: async () => {},
  find: async () => null,
  refusals: async () => [],
  sweep: async () => ({ stalled: 0, expired: 0 }),
}

const noSurveyUploadTicketStore: SurveyUploadTicketStore = {
  issue: () => Promise.reject(new Error('no survey upload tickets are kept in the router tests')),
  redeem: async () => null,
  sweep: async () => 0,
}

const TEST_KEY = 'router-test-address-hash-key-0000000'

function setup({
  lookup = new FakeSiteLookup(),
  directory = new FakeKeyDirectory(),
  databaseAnswers = true,
}: Setup = {}) {
  const { logger, entries } = recordingLogger()
  const predictions = new PredictionService(model, lookup, () => NOW)
  const versions = new MemoryModelVersionStore(() => NOW)
  const models = new ModelRegistry([{ model, releasedAt: new Date(0) }], model.version, versions)
  const handle = createRestHandler(
    {
      predictions,
      plans: new StockingPlanService(
        model,
        lookup,
        { within: async () => ({ sites: [], dataVersion: null }) },
        () => NOW,
      ),
      jobs: jobServiceOver(predictions).jobs,
      catalogue: new Catalogue(model, 5),
      health: new HealthMonitor({
        databaseAnswers: async () => databaseAnswers,
        model,
        quotaStoreState: () => 'not_configured',
        now: () => NOW,
      }),
      access: accessControlOver(directory, () => NOW),
      keys: keyServiceOver(directory, () => NOW),
      surveys: new SurveyService(noSurveyStore, predictions, TEST_KEY, () => NOW),
      surveyUploads: new SurveyUploadService(
        noSurveyUploadStore,
        surveyFileFormats,
        predictions,
        TEST_KEY,
        () => NOW,
      ),
      surveyUploadTickets: new SurveyUploadTickets(noSurveyUploadTicketStore, () => NOW),
      models,
      calibrations: new CalibrationService(models.current, versions, noSurveyStore, fitHere, TEST_KEY),
      defaultVersions: new DefaultVersions(models, versions, TEST_KEY),
      // No test here posts to /keys (test/rest/key-requests.test.ts does, over PostgreSQL and SMTP).
      keyRequests: null,
      audit: new AuditService(new MemoryAuditLog(() => NOW)),
      reports: new ReportService(renderPdfReport, { synthetic: async () => true }),
      reportLinks: new ReportLinks(reportLinkSecret('router-test-secret-'.repeat(2)), () => NOW),
    },
    logger,
  )

  /** Runs one request through the router and returns what it wrote, and the request's context. */
  async function send(
    method: string,
    path: string,
    options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const headers = { ...(options.key ? { 'x-api-key': options.key } : {}), ...options.headers }
    const body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
    const req = incoming(method, headers, options.body === undefined ? undefined : body)
    const res = new RecordedResponse()
    const context = requestContext('req-42')
    await handle(req, res as unknown as ServerResponse, new URL(path, 'http://localhost'), context)
    return { res, context }
  }

  return { send, directory, logs: entries }
}

const predictBody = { ...FOREST_POINTS.coastRange, species_code: 'PSME', planting_method: 'manual' }
const ROUTE_PATHS = new Set(ROUTES.map((r) => r.path))

describe('route matching', () => {
  it('serves every route of the table at its path, with or without a trailing slash', async () => {
    const { send, directory } = setup()
    const { key } = directory.issue('mycel')
    // Routes with `{…}` segments are reached with an id: no such job, plot, upload or calibration → 404 not_found from its
    // service; a model version that exists → 200.
    // The raster needs the sites and a query: test/rest/rasters.test.ts serves it.
    for (const route of ROUTES.filter((r) => r.method === 'GET' && r.path !== '/v1/rasters/survival.tif')) {
      const concrete = route.path
        .replaceAll('{id}', 'job_000000000000000000000000')
        .replaceAll('{plot_id}', 'plot-0')
        .replaceAll('{upload_id}', 'upl_000000000000000000000000')
        .replaceAll('{version}', model.version)
        .replaceAll('{token}', 'not-a-token')
      // A report link is its own credential: one the service did not sign is 403 invalid_report_link.
      const linked = route.path.includes('{token}')
      const missing = route.path.includes('{') && !route.path.includes('{version}') && !linked
      for (const path of [concrete, `${concrete}/`]) {
        const { res, context } = await send('GET', path, { key })
        expect(res.status, path).toBe(linked ? 403 : missing ? 404 : 200)
        if (missing)
          expect((res.json as { error: { message: string } }).error.message).toMatch(
            /No job job_0000|No survey plot "plot-0"|No survey upload "upl_0000|No calibration "job_0000/,
          )
        expect(context.route).toBe(route.path)
      }
    }
  })

  it('answers HEAD on a GET route as GET', async () => {
    const { send } = setup()
    const { res } = await send('HEAD', '/v1/health')
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ status: 'healthy' })
  })

  it('answers an unknown path with 404 not_found, in the error envelope, with the request id', async () => {
    const { send } = setup()
    const { res, context } = await send('GET', '/v1/predictions')
    expect(res.status).toBe(404)
    expect(res.json).toEqual({ error: { code: 'not_found', message: 'No endpoint at /v1/predictions' } })
    expect(res.headers['request-id']).toBe('req-42')
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(context).toMatchObject({ route: 'unmatched', errorCode: 'not_found' })
  })

  it('answers 404 for any path that is not a route, whatever the method, before asking for a key', async () => {
    const { send, directory } = setup()
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}$/)
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        async (path, method) => {
          fc.pre(!ROUTE_PATHS.has(path))
          const { res } = await send(method, path)
          expect(res.status).toBe(404)
          expect(res.json).toEqual({ error: { code: 'not_found', message: `No endpoint at ${path}` } })
        },
      ),
      { numRuns: 60 },
    )
    expect(directory.lookups).toBe(0)
  })

  it.each([
    ['POST', '/v1/species', 'GET, HEAD'],
    ['DELETE', '/v1/health', 'GET, HEAD'],
    ['GET', '/v1/predict', 'POST'],
    ['PUT', '/v1/predict/batch', 'POST'],
  ])('answers %s %s with 405 method_not_allowed and Allow: %s', async (method, path, allow) => {
    const { send, directory } = setup()
    const { res, context } = await send(method, path)
    expect(res.status).toBe(405)
    expect(res.headers.allow).toBe(allow)
    expect(res.headers['request-id']).toBe('req-42')
    expect(res.json).toEqual({
      error: { code: 'method_not_allowed', message: `${method} is not allowed on ${path}; use ${allow}` },
    })
    expect(context).toMatchObject({ route: path, errorCode: 'method_not_allowed' })
    expect(directory.lookups).toBe(0)
  })
})

describe('access', () => {
  it('serves health and the OpenAPI document without a key, and counts nothing', async () => {
    const { send, directory } = setup()
    for (const path of ['/v1/health', '/v1/openapi.json']) {
      const { res } = await send('GET', path)
      expect(res.status).toBe(200)
      expect(res.headers).not.toHaveProperty('x-ratelimit-limit')
    }
    expect(directory.lookups).toBe(0)
  })

  it('refuses a keyed route without a good key (401 invalid_api_key) before reading the body', async () => {
    const { send } = setup()
    for (const key of [undefined, 'tsp_live_not-a-key', `tsp_live_${'0'.repeat(32)}`]) {
      const { res, context } = await send('POST', '/v1/predict', { key, body: '{ not json' })
      expect(res.status).toBe(401)
      expect(res.json).toEqual({
        error: { code: 'invalid_api_key', message: 'A valid API key is required in the X-API-Key header' },
      })
      expect(res.headers).not.toHaveProperty('x-ratelimit-limit')
      expect(context.errorCode).toBe('invalid_api_key')
    }
  })

  it('refuses a deactivated key with 403 key_inactive', async () => {
    const { send, directory } = setup()
    const { res } = await send('GET', '/v1/methods', { key: directory.issue('spore', 'inactive').key })
    expect(res.status).toBe(403)
    expect(res.json).toMatchObject({ error: { code: 'key_inactive' } })
  })

  it('counts each keyed request once and says where the caller stands', async () => {
    const { send, directory } = setup()
    const { key, id } = directory.issue('spore')
    const first = await send('GET', '/v1/methods', { key })
    const second = await send('GET', '/v1/methods', { key })

    expect(first.res.headers).toMatchObject({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99' })
    expect(second.res.headers).toMatchObject({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '98',
      ratelimit: '"daily";r=98;t=43200',
      'ratelimit-policy': '"daily";q=100;w=86400',
      'request-id': 'req-42',
    })
    expect(second.context).toMatchObject({ keyId: id, tier: 'spore', route: '/v1/methods' })
  })

  it('answers 429 rate_limit_exceeded with Retry-After once the daily limit is used', async () => {
    const directory = new FakeKeyDirectory([{ ...TIERS.spore, dailyRequestLimit: 1 }])
    const { send } = setup({ directory })
    const { key } = directory.issue('spore')
    expect((await send('GET', '/v1/methods', { key })).res.status).toBe(200)

    const { res } = await send('GET', '/v1/methods', { key })
    expect(res.status).toBe(429)
    expect(res.json).toMatchObject({ error: { code: 'rate_limit_exceeded' } })
    expect(res.headers).toMatchObject({ 'retry-after': '43200', 'x-ratelimit-remaining': '0' })
  })
})

describe('handlers', () => {
  it('POST /v1/predict answers the API contract JSON for the nearest site', async () => {
    const lookup = new FakeSiteLookup()
    const { send, directory } = setup({ lookup })
    const { res } = await send('POST', '/v1/predict', {
      key: directory.issue('spore').key,
      body: predictBody,
    })

    expect(res.status).toBe(200)
    expect(lookup.oneCalls).toMatchObject([FOREST_POINTS.coastRange])
    const body = res.json as { predictions: { horizon_years: number; risk_factors: unknown[] }[] }
    expect(body).toMatchObject({
      site: { latitude: 44.6, longitude: -123.6, match_distance_km: 1.11, region: 'pnw' },
      species_code: 'PSME',
      species_common_name: 'Douglas-fir',
      planting_method: 'manual',
      model: { version: model.version, codename: model.codename, series: model.series },
      generated_at: NOW.toISOString(),
    })
    expect(body.predictions.map((p) => p.horizon_years)).toEqual([1, 3, 5])
    expect(body.predictions.every((p) => p.risk_factors.length === 3)).toBe(true)
  })

  it('reports a body that breaks an input rule as 400 invalid_request, after counting the request', async () => {
    const { send, directory } = setup()
    const { res } = await send('POST', '/v1/predict', {
      key: directory.issue('spore').key,
      body: { ...predictBody, latitude: 91 },
    })
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      error: {
        code: 'invalid_request',
        message: 'latitude must be from -90 to 90',
        details: { field: 'latitude', reason: 'must be from -90 to 90' },
      },
    })
    expect(res.headers['x-ratelimit-remaining']).toBe('99')
  })

  it('refuses a body that is not JSON (415) or not parseable (400 invalid_json)', async () => {
    const { send, directory } = setup()
    const { key } = directory.issue('hypha')
    const plain = await send('POST', '/v1/predict', {
      key,
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    })
    expect(plain.res.status).toBe(415)
    expect(plain.res.json).toMatchObject({ error: { code: 'unsupported_media_type' } })

    const broken = await send('POST', '/v1/predict', { key, body: '{"latitude": ' })
    expect(broken.res.status).toBe(400)
    expect(broken.res.json).toEqual({
      error: { code: 'invalid_json', message: 'The request body is not valid JSON' },
    })
  })

  it('checks a batch against the caller’s tier', async () => {
    const { send, directory } = setup()
    const sites = Array.from({ length: 11 }, () => predictBody)

    const spore = await send('POST', '/v1/predict/batch', {
      key: directory.issue('spore').key,
      body: { sites },
    })
    expect(spore.res.status).toBe(422)
    expect(spore.res.json).toEqual({
      error: {
        code: 'batch_too_large',
        message: 'This batch has 11 sites; the spore tier allows up to 10 per call',
        details: { submitted: 11, tier_limit: 10, tier: 'spore' },
      },
    })

    const mycel = await send('POST', '/v1/predict/batch', {
      key: directory.issue('mycel').key,
      body: { sites },
    })
    expect(mycel.res.status).toBe(200)
    const results = (mycel.res.json as { results: { index: number; prediction?: unknown }[] }).results
    expect(results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(results.every((r) => r.prediction)).toBe(true)
  })

  it('serves the coverage as GeoJSON', async () => {
    const { send, directory } = setup()
    const { res } = await send('GET', '/v1/coverage', { key: directory.issue('spore').key })
    expect(res.headers['content-type']).toBe('application/geo+json; charset=utf-8')
    expect(res.json).toMatchObject({ type: 'FeatureCollection', region: 'pnw', search_radius_km: 5 })
  })

  it('answers health with 503 while the database is away', async () => {
    const { send } = setup({ databaseAnswers: false })
    const { res } = await send('GET', '/v1/health')
    expect(res.status).toBe(503)
    expect(res.json).toMatchObject({ status: 'unavailable', database: 'disconnected' })
  })
})

describe('failures', () => {
  it('reports a data store that is away as 503 service_unavailable with Retry-After', async () => {
    const { send, directory, logs } = setup({
      lookup: failingSiteLookup(new StoreUnavailableError(new Error('ECONNREFUSED'))),
    })
    const { res, context } = await send('POST', '/v1/predict', {
      key: directory.issue('spore').key,
      body: predictBody,
    })
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.json).toMatchObject({ error: { code: 'service_unavailable' } })
    expect(context.errorCode).toBe('service_unavailable')
    expect(logs).toEqual([])
  })

  it('masks an unexpected failure as 500 internal_error and logs it with the request id', async () => {
    const bug = new Error('relation "sites" does not exist at postgres://app:secret@db')
    const { send, directory, logs } = setup({ lookup: failingSiteLookup(bug) })
    const { res } = await send('POST', '/v1/predict', {
      key: directory.issue('spore').key,
      body: predictBody,
    })

    expect(res.status).toBe(500)
    expect(res.json).toEqual({ error: { code: 'internal_error', message: 'Unexpected server failure' } })
    expect(res.text).not.toContain('secret')
    expect(res.headers).toMatchObject({ 'request-id': 'req-42', 'x-ratelimit-remaining': '99' })
    expect(logs).toEqual([
      {
        level: 'error',
        fields: { requestId: 'req-42', err: bug, route: '/v1/predict' },
        message: 'unexpected error',
      },
    ])
  })
})
