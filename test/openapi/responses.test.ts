import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { utcDay } from '../../src/access/quota/day-window.ts'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { setKeyStatus } from '../../src/db/keys.ts'
import {
  expectError,
  expectInvalidRequest,
  type RestOptions,
  type RestResult,
  rawRequest,
  rest,
} from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { withRedis } from '../support/redis.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { loadOpenApiDocument, OpenApiValidator } from './openapi-validator.ts'

/**
 * Real responses of every /v1 endpoint and every error the service can be made to give, validated
 * against schema/openapi.yaml: status documented, media type, body schema, headers.
 */

type KeyName = 'spore' | 'mycel' | 'hypha' | 'inactive' | 'revoked' | 'exhausted' | 'unknown' | 'malformed'

/** A request as the client sends it, with one of the keys below named instead of given. */
interface Call extends Omit<RestOptions, 'key'> {
  method: string
  path: string
  key?: KeyName
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read freely in tests
type Body = any

const PSME_MANUAL = { species_code: 'PSME', planting_method: 'manual' }
const FOREST = { ...FOREST_POINTS.coastRange, ...PSME_MANUAL }

let db: TestDatabase
let server: TestServer
let validator: OpenApiValidator
const keys = {} as Record<KeyName, string>

beforeAll(async () => {
  validator = new OpenApiValidator(loadOpenApiDocument())
  ;({ db, server } = await startSeededServer({ keyCacheMs: 0 }))
  keys.spore = (await issueKey(db, 'spore')).key
  keys.mycel = (await issueKey(db, 'mycel')).key
  keys.hypha = (await issueKey(db, 'hypha')).key
  const inactive = await issueKey(db, 'spore')
  await setKeyStatus(db.sql, inactive.id, 'deactivate')
  keys.inactive = inactive.key
  const revoked = await issueKey(db, 'mycel')
  await setKeyStatus(db.sql, revoked.id, 'revoke')
  keys.revoked = revoked.key
  // A spore key whose daily counter already stands at the limit of 100.
  const exhausted = await issueKey(db, 'spore')
  await withRedis((redis) =>
    redis.set(`${server.quotaPrefix}${exhausted.id}:${utcDay(new Date())}`, '100', 'EX', 2 * 86_400),
  )
  keys.exhausted = exhausted.key
  keys.unknown = `${keys.spore.slice(0, keys.spore.indexOf('_live_'))}_live_${'0'.repeat(32)}`
  keys.malformed = 'not-a-key'
})

afterAll(() => stopSeededServer({ db, server }))

/** Sends a call through the REST client; a raw body goes out as JSON unless the call says otherwise. */
function call({ method, path, key, ...options }: Call): Promise<RestResult> {
  const contentType =
    options.contentType === undefined && options.raw !== undefined ? 'application/json' : options.contentType
  return rest(server.url, method, path, { ...options, contentType, key: key && keys[key] })
}

/** A request whose body exceeds the limit, sent with node:http so an early answer is still read. */
function oversized(path: string, key: KeyName, bytes: number): Promise<RestResult> {
  const padding = `{"latitude": 44.6, "pad": "${'x'.repeat(bytes - 30)}"}`
  return rawRequest(
    server.url,
    'POST',
    path,
    { 'x-api-key': keys[key], 'content-type': 'application/json', 'content-length': bytes },
    [padding.slice(0, bytes).padEnd(bytes, ' ')],
  )
}

function expectConforms(method: string, path: string, result: RestResult): void {
  expect(validator.check(method, path, result), JSON.stringify(result.body).slice(0, 400)).toEqual([])
}

describe('successful responses conform', () => {
  it('POST /v1/predict', async () => {
    const result = await call({
      method: 'POST',
      path: '/v1/predict',
      key: 'mycel',
      json: { ...FOREST, horizons: [5, 1, 5] },
    })
    expect(result.status).toBe(200)
    expectConforms('POST', '/v1/predict', result)
    expect(result.body.predictions.map((p: Body) => p.horizon_years)).toEqual([1, 5])
    expect(result.body.planting_method).toBe('manual')
  })

  it('POST /v1/predict with drone_seeded and the default horizons', async () => {
    const result = await call({
      method: 'POST',
      path: '/v1/predict',
      key: 'mycel',
      json: { ...FOREST_POINTS.westCascades, species_code: 'TSHE', planting_method: 'drone_seeded' },
    })
    expect(result.status).toBe(200)
    expectConforms('POST', '/v1/predict', result)
    expect(result.body.predictions.map((p: Body) => p.horizon_years)).toEqual([1, 3, 5])
  })

  it('POST /v1/predict/compare, with difference = manual − drone_seeded', async () => {
    const result = await call({
      method: 'POST',
      path: '/v1/predict/compare',
      key: 'mycel',
      json: { ...FOREST_POINTS.eastCascades, species_code: 'PIPO' },
    })
    expect(result.status).toBe(200)
    expectConforms('POST', '/v1/predict/compare', result)
    for (const [index, row] of (result.body.method_differential as Body[]).entries()) {
      expect(row.manual).toBe(result.body.predictions.manual[index].survival_probability)
      expect(row.drone_seeded).toBe(result.body.predictions.drone_seeded[index].survival_probability)
      expect(row.difference).toBeCloseTo(row.manual - row.drone_seeded, 12)
    }
  })

  it('POST /v1/predict/batch with per-item successes and every per-item error', async () => {
    const result = await call({
      method: 'POST',
      path: '/v1/predict/batch',
      key: 'mycel',
      json: {
        sites: [
          FOREST,
          { ...OUTSIDE_POINTS.boise, ...PSME_MANUAL },
          { ...NO_DATA_POINTS.downtownPortland, ...PSME_MANUAL },
          { ...FOREST, species_code: 'PSMA' },
          { ...FOREST, species_code: 'ZZZZZZZZ' },
          { ...FOREST, planting_method: 'helicopter' },
          {
            ...FOREST_POINTS.westCascades,
            species_code: 'ALRU',
            planting_method: 'drone_seeded',
            horizons: [3],
          },
        ],
      },
    })
    expect(result.status).toBe(200)
    expectConforms('POST', '/v1/predict/batch', result)
    const outcome = (result.body.results as Body[]).map((r) => [r.index, r.error?.code ?? 'ok'])
    expect(outcome).toEqual([
      [0, 'ok'],
      [1, 'outside_coverage'],
      [2, 'no_nearby_data'],
      [3, 'invalid_species'],
      [4, 'invalid_species'],
      [5, 'invalid_method'],
      [6, 'ok'],
    ])
    expect(result.body.results[3].error.details.closest_code).toBe('PSME')
    expect(result.body.results[4].error.details.closest_code).toBeUndefined()
  })

  it.each([
    ['', 20],
    ['?group=conifer', 16],
    ['?group=hardwood', 4],
    ['?search=fir', undefined],
    ['?zone=coast', undefined],
    ['?zone=nowhere', 0],
    ['?group=conifer&search=PSME&zone=coast', 1],
  ])('GET /v1/species%s', async (query, count) => {
    const result = await call({ method: 'GET', path: `/v1/species${query}`, key: 'mycel' })
    expect(result.status).toBe(200)
    expectConforms('GET', '/v1/species', result)
    expect(result.body.count).toBe(result.body.species.length)
    if (count !== undefined) expect(result.body.count).toBe(count)
  })

  it('GET /v1/methods', async () => {
    const result = await call({ method: 'GET', path: '/v1/methods', key: 'mycel' })
    expect(result.status).toBe(200)
    expectConforms('GET', '/v1/methods', result)
    expect(result.body.methods.map((m: Body) => m.id)).toEqual(['manual', 'drone_seeded'])
  })

  it('GET /v1/coverage as application/geo+json', async () => {
    const result = await call({ method: 'GET', path: '/v1/coverage', key: 'mycel' })
    expect(result.status).toBe(200)
    expect(result.headers.get('content-type')).toMatch(/^application\/geo\+json/)
    expectConforms('GET', '/v1/coverage', result)
    expect(result.body.region).toBe('pnw')
    for (const feature of result.body.features as Body[]) {
      expect(feature.properties.search_radius_km).toBe(result.body.search_radius_km)
    }
  })

  it('GET /v1/health without a key and without rate-limit fields', async () => {
    const result = await call({ method: 'GET', path: '/v1/health' })
    expect(result.status).toBe(200)
    expectConforms('GET', '/v1/health', result)
    expect(result.body).toMatchObject({ status: 'healthy', database: 'connected', version: '1.0.0' })
  })

  it('GET /v1/health with a key still counts nothing and sends no rate-limit fields', async () => {
    const result = await call({ method: 'GET', path: '/v1/health', key: 'spore' })
    expectConforms('GET', '/v1/health', result)
    expect(result.headers.get('x-ratelimit-limit')).toBeNull()
  })
})

describe('rate-limit and request-id headers', () => {
  it('a spore response carries RateLimit-Policy, RateLimit and X-RateLimit-Limit/-Remaining/-Reset', async () => {
    const result = await call({ method: 'GET', path: '/v1/methods', key: 'spore' })
    expectConforms('GET', '/v1/methods', result)
    const h = result.headers
    expect(h.get('ratelimit-policy')).toBe('"daily";q=100;w=86400')
    const [, remaining, seconds] = /^"daily";r=(\d+);t=(\d+)$/.exec(h.get('ratelimit') ?? '') ?? []
    expect(Number(remaining)).toBe(Number(h.get('x-ratelimit-remaining')))
    expect(h.get('x-ratelimit-limit')).toBe('100')
    const reset = Number(h.get('x-ratelimit-reset'))
    expect(reset % 86_400).toBe(0)
    expect(Math.abs(reset - Date.now() / 1000 - Number(seconds))).toBeLessThanOrEqual(2)
    expect(h.get('x-ratelimit-used')).toBeNull()
  })

  it('a hypha response says unlimited: X-RateLimit-Limit, -Used, -Reset and no RateLimit fields', async () => {
    const result = await call({ method: 'POST', path: '/v1/predict', key: 'hypha', json: FOREST })
    expect(result.status).toBe(200)
    expectConforms('POST', '/v1/predict', result)
    const h = result.headers
    expect(h.get('x-ratelimit-limit')).toBe('unlimited')
    expect(Number(h.get('x-ratelimit-used'))).toBeGreaterThan(0)
    expect(Number(h.get('x-ratelimit-reset')) % 86_400).toBe(0)
    for (const name of ['ratelimit', 'ratelimit-policy', 'x-ratelimit-remaining'])
      expect(h.get(name)).toBeNull()
  })

  it('every admitted request counts one, also when it fails with a 4xx', async () => {
    const { key } = await issueKey(db, 'spore')
    const remaining: number[] = []
    const attempts: (RestOptions & { method: string; path: string })[] = [
      { method: 'GET', path: '/v1/methods' },
      { method: 'POST', path: '/v1/predict', raw: '{"latitude":', contentType: 'application/json' },
      { method: 'POST', path: '/v1/predict', raw: '{}', contentType: 'text/plain' },
      { method: 'POST', path: '/v1/predict', json: { ...FOREST, species_code: 'NOPE' } },
      { method: 'GET', path: '/v1/species?bogus=1' },
      { method: 'POST', path: '/v1/predict/batch', json: { sites: [FOREST, FOREST] } },
    ]
    for (const { method, path, ...options } of attempts) {
      const result = await rest(server.url, method, path, { ...options, key })
      remaining.push(Number(result.headers.get('x-ratelimit-remaining')))
    }
    expect(remaining).toEqual([99, 98, 97, 96, 95, 94])
  })

  it.each([
    ['Request-Id', 'client-trace.42:abc'],
    ['X-Request-Id', 'x-trace_7'],
  ])('a well-formed incoming %s is echoed', async (name, value) => {
    const result = await call({ method: 'GET', path: '/v1/health', headers: { [name]: value } })
    expect(result.headers.get('request-id')).toBe(value)
  })

  it('a malformed incoming Request-Id is replaced by a UUID', async () => {
    const result = await call({
      method: 'GET',
      path: '/v1/nowhere',
      headers: { 'Request-Id': 'has spaces; and (parens)' },
    })
    expect(result.headers.get('request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    )
    expect(validator.checkComponent('NotFound', result)).toEqual([])
  })
})

const KEYED: readonly { method: string; path: string; json?: unknown }[] = [
  { method: 'POST', path: '/v1/predict', json: FOREST },
  {
    method: 'POST',
    path: '/v1/predict/compare',
    json: { ...FOREST_POINTS.coastRange, species_code: 'PSME' },
  },
  { method: 'POST', path: '/v1/predict/batch', json: { sites: [FOREST] } },
  { method: 'GET', path: '/v1/species' },
  { method: 'GET', path: '/v1/methods' },
  { method: 'GET', path: '/v1/coverage' },
]

describe('authentication errors conform (401, 403)', () => {
  describe.each(KEYED)('$method $path', ({ method, path, json }) => {
    it.each([
      [undefined, 401, 'invalid_api_key'],
      ['malformed', 401, 'invalid_api_key'],
      ['unknown', 401, 'invalid_api_key'],
      ['revoked', 401, 'invalid_api_key'],
      ['inactive', 403, 'key_inactive'],
    ] as const)('key %s → %i %s', async (key, status, code) => {
      const result = await call({ method, path, key, json })
      expectError(result, status, code)
      expectConforms(method, path, result)
    })
  })

  it('the key is checked before the body is read', async () => {
    const noKey = await call({
      method: 'POST',
      path: '/v1/predict',
      raw: '{not json',
      contentType: 'text/plain',
    })
    expectError(noKey, 401, 'invalid_api_key')
    expectConforms('POST', '/v1/predict', noKey)
    const inactive = await call({ method: 'POST', path: '/v1/predict/batch', key: 'inactive', raw: '[' })
    expectError(inactive, 403, 'key_inactive')
    expectConforms('POST', '/v1/predict/batch', inactive)
  })
})

describe('quota errors conform (429)', () => {
  it.each(KEYED)('$method $path with an exhausted spore key', async ({ method, path, json }) => {
    const result = await call({ method, path, key: 'exhausted', json })
    expectError(result, 429, 'rate_limit_exceeded')
    expectConforms(method, path, result)
    expect(result.body.error.message).toContain('spore')
    const retryAfter = Number(result.headers.get('retry-after'))
    const secondsToMidnight = 86_400 - ((Date.now() / 1000) % 86_400)
    expect(Math.abs(retryAfter - secondsToMidnight)).toBeLessThanOrEqual(2)
    expect(result.headers.get('x-ratelimit-remaining')).toBe('0')
  })
})

describe('routing errors conform (404, 405)', () => {
  it.each(['/v1/nowhere', '/v1', '/v1/predict/single', '/elsewhere'])(
    'GET %s → 404 not_found',
    async (path) => {
      const result = await call({ method: 'GET', path, key: 'mycel' })
      expectError(result, 404, 'not_found')
      expect(validator.checkComponent('NotFound', result)).toEqual([])
    },
  )

  it.each([
    ['GET', '/v1/predict', 'POST'],
    ['PUT', '/v1/predict/batch', 'POST'],
    ['POST', '/v1/species', 'GET, HEAD'],
    ['DELETE', '/v1/health', 'GET, HEAD'],
    ['POST', '/v1/openapi.json', 'GET, HEAD'],
  ])('%s %s → 405 method_not_allowed, Allow: %s', async (method, path, allow) => {
    const result = await call({ method, path, key: 'mycel' })
    expectError(result, 405, 'method_not_allowed')
    expect(result.headers.get('allow')).toBe(allow)
    expect(validator.checkComponent('MethodNotAllowed', result)).toEqual([])
  })
})

describe('body errors conform (400, 413, 415)', () => {
  const POSTS = ['/v1/predict', '/v1/predict/compare', '/v1/predict/batch']

  it.each(POSTS)('POST %s with a body over 1 MiB → 413 payload_too_large', async (path) => {
    const result = await oversized(path, 'mycel', 1024 * 1024 + 100)
    expectError(result, 413, 'payload_too_large')
    expect(result.body.error.details).toEqual({ limit_bytes: 1_048_576 })
    expectConforms('POST', path, result)
  })

  it.each(
    POSTS.flatMap((path) => [
      [path, null],
      [path, 'text/plain'],
      [path, 'application/x-www-form-urlencoded'],
    ]),
  )('POST %s with Content-Type %s → 415 unsupported_media_type', async (path, contentType) => {
    const result = await call({ method: 'POST', path, key: 'mycel', raw: '{}', contentType })
    expectError(result, 415, 'unsupported_media_type')
    expect(result.body.error.details).toEqual({ content_type: contentType })
    expectConforms('POST', path, result)
  })

  it.each(
    POSTS.flatMap((path) => [
      [path, '{"latitude": 44.6,'],
      [path, ''],
      [path, '   '],
    ]),
  )('POST %s with body %j → 400 invalid_json', async (path, raw) => {
    const result = await call({ method: 'POST', path, key: 'mycel', raw })
    expectError(result, 400, 'invalid_json')
    expectConforms('POST', path, result)
  })

  const { latitude, longitude } = FOREST_POINTS.coastRange
  it.each([
    ['/v1/predict', [], '(root)'],
    ['/v1/predict', 'a string', '(root)'],
    ['/v1/predict', null, '(root)'],
    ['/v1/predict', { longitude, ...PSME_MANUAL }, 'latitude'],
    ['/v1/predict', { ...FOREST, latitude: '44.6' }, 'latitude'],
    ['/v1/predict', { ...FOREST, latitude: 90.5 }, 'latitude'],
    ['/v1/predict', { ...FOREST, longitude: -181 }, 'longitude'],
    ['/v1/predict', { ...FOREST, species_code: 42 }, 'species_code'],
    ['/v1/predict', { latitude, longitude, species_code: 'PSME' }, 'planting_method'],
    ['/v1/predict', { ...FOREST, horizons: [2] }, 'horizons'],
    ['/v1/predict', { ...FOREST, horizons: [] }, 'horizons'],
    ['/v1/predict', { ...FOREST, horizons: [1.5] }, 'horizons[0]'],
    ['/v1/predict', { ...FOREST, horizons: 5 }, 'horizons'],
    ['/v1/predict', { ...FOREST, unexpected: true }, 'unexpected'],
    ['/v1/predict/compare', { ...FOREST }, 'planting_method'],
    ['/v1/predict/compare', { latitude, species_code: 'PSME' }, 'longitude'],
    ['/v1/predict/batch', { sites: [FOREST, { ...FOREST, latitude: 'north' }] }, 'sites[1].latitude'],
    [
      '/v1/predict/batch',
      { sites: [FOREST, FOREST, FOREST, { longitude, ...PSME_MANUAL }] },
      'sites[3].latitude',
    ],
    ['/v1/predict/batch', { sites: [{ ...FOREST, extra: 1 }] }, 'sites[0].extra'],
    ['/v1/predict/batch', { sites: FOREST }, 'sites'],
    ['/v1/predict/batch', { site: [FOREST] }, 'sites'],
    ['/v1/predict/batch', { sites: [] }, 'sites'],
  ])('POST %s with %j → 400 invalid_request naming %s', async (path, json, field) => {
    const result = await call({ method: 'POST', path, key: 'mycel', json })
    expectInvalidRequest(result, field)
    expectConforms('POST', path, result)
  })

  it.each([
    ['?group=shrub', 'group'],
    ['?bogus=1', 'bogus'],
    [`?search=${'x'.repeat(101)}`, 'search'],
  ])('GET /v1/species%s → 400 invalid_request naming %s', async (query, field) => {
    const result = await call({ method: 'GET', path: `/v1/species${query}`, key: 'mycel' })
    expectInvalidRequest(result, field)
    expectConforms('GET', '/v1/species', result)
  })
})

describe('domain errors conform (422)', () => {
  it.each([
    ['/v1/predict', { ...OUTSIDE_POINTS.boise, ...PSME_MANUAL }, 'outside_coverage'],
    ['/v1/predict', { ...OUTSIDE_POINTS.openPacific, ...PSME_MANUAL }, 'outside_coverage'],
    ['/v1/predict', { ...NO_DATA_POINTS.downtownPortland, ...PSME_MANUAL }, 'no_nearby_data'],
    ['/v1/predict', { ...NO_DATA_POINTS.openPugetSound, ...PSME_MANUAL }, 'no_nearby_data'],
    ['/v1/predict', { ...FOREST, species_code: 'PSMA' }, 'invalid_species'],
    ['/v1/predict', { ...FOREST, species_code: 'QQQQQQQQ' }, 'invalid_species'],
    ['/v1/predict', { ...FOREST, planting_method: 'helicopter' }, 'invalid_method'],
    ['/v1/predict', { ...FOREST, planting_method: 'MANUAL' }, 'invalid_method'],
    ['/v1/predict/compare', { ...OUTSIDE_POINTS.boise, species_code: 'PSME' }, 'outside_coverage'],
    ['/v1/predict/compare', { ...NO_DATA_POINTS.openPugetSound, species_code: 'PSME' }, 'no_nearby_data'],
    ['/v1/predict/compare', { ...FOREST_POINTS.coastRange, species_code: 'TSHA' }, 'invalid_species'],
    // Order of checks: species, then method, then coverage, then the nearest data point.
    [
      '/v1/predict',
      { ...OUTSIDE_POINTS.boise, species_code: 'NOPE', planting_method: 'x' },
      'invalid_species',
    ],
    [
      '/v1/predict',
      { ...OUTSIDE_POINTS.boise, species_code: 'PSME', planting_method: 'x' },
      'invalid_method',
    ],
    [
      '/v1/predict',
      { ...NO_DATA_POINTS.downtownPortland, species_code: 'NOPE', planting_method: 'x' },
      'invalid_species',
    ],
  ])('POST %s with %j → 422 %s', async (path, json, code) => {
    const result = await call({ method: 'POST', path, key: 'mycel', json })
    expectError(result, 422, code)
    expectConforms('POST', path, result)
  })

  it('invalid_species offers the closest code in the message and in details.closest_code', async () => {
    const result = await call({
      method: 'POST',
      path: '/v1/predict',
      key: 'mycel',
      json: { ...FOREST, species_code: 'PSMA' },
    })
    expect(result.body.error.message).toContain('PSME')
    expect(result.body.error.details).toMatchObject({ closest_code: 'PSME' })
    expect(result.body.error.details.suggestion).toContain('GET /v1/species')
  })

  it.each([
    ['spore', 11, 10],
    ['mycel', 101, 100],
    ['hypha', 501, 500],
  ] as const)(
    'POST /v1/predict/batch on %s with %i sites → 422 batch_too_large',
    async (tier, submitted, limit) => {
      const sites = Array.from({ length: submitted }, () => FOREST)
      const result = await call({ method: 'POST', path: '/v1/predict/batch', key: tier, json: { sites } })
      expectError(result, 422, 'batch_too_large')
      expect(result.body.error.details).toEqual({ submitted, tier_limit: limit, tier })
      expectConforms('POST', '/v1/predict/batch', result)
    },
  )
})

describe('with the data store unreachable (documented-but-rare 503)', () => {
  let deadDb: Database
  let deadServer: TestServer

  beforeAll(async () => {
    // Nothing listens on port 1: every query fails with ECONNREFUSED.
    deadDb = await openDatabase({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', DB_POOL_MAX: 1 })
    deadServer = await startTestServer({ database: deadDb, keyCacheMs: 0 })
  })

  afterAll(async () => {
    await deadServer?.close()
    await deadDb?.close()
  })

  it.each(KEYED)(
    '$method $path → 503 service_unavailable with Retry-After',
    async ({ method, path, json }) => {
      const result = await rest(deadServer.url, method, path, { key: keys.mycel, json })
      expectError(result, 503, 'service_unavailable')
      expectConforms(method, path, result)
    },
  )

  it('GET /v1/health reports database disconnected within the documented response', async () => {
    const result = await rest(deadServer.url, 'GET', '/v1/health')
    expect(result.body.database).toBe('disconnected')
    expectConforms('GET', '/v1/health', result)
  })
})
