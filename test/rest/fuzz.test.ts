import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { predictBody } from '../support/sites.ts'
import {
  batchProblems,
  comparisonProblems,
  envelopeProblems,
  predictionProblems,
  type RestResult,
  rest,
  SPECIES_CODES,
} from './client.ts'

const NUM_RUNS = 200

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

type Endpoint = '/v1/predict' | '/v1/predict/compare' | '/v1/predict/batch'
const ENDPOINTS: Endpoint[] = ['/v1/predict', '/v1/predict/compare', '/v1/predict/batch']

/** Statuses a POST endpoint may answer with for any input a caller can send. */
const EXPECTED_STATUSES = [200, 400, 413, 415, 422]

/** The property every response must hold: no 5xx, the exact envelope on errors, the documented shape on 200. */
function problems(endpoint: Endpoint, sent: unknown, result: RestResult): string[] {
  if (result.status >= 500) return [`${result.status}: ${result.text.slice(0, 300)}`]
  if (!EXPECTED_STATUSES.includes(result.status)) return [`unexpected status ${result.status}`]
  if (!/^application\/json/.test(result.headers.get('content-type') ?? ''))
    return ['content-type is not JSON']
  if (!result.headers.get('request-id')) return ['no Request-Id']
  if (result.status >= 400) return envelopeProblems(result.body)
  if (endpoint === '/v1/predict') return predictionProblems(result.body)
  if (endpoint === '/v1/predict/compare') return comparisonProblems(result.body)
  const sites = (sent as { sites?: unknown[] } | undefined)?.sites
  return batchProblems(result.body, Array.isArray(sites) ? sites.length : -1)
}

async function check(endpoint: Endpoint, result: RestResult, sent?: unknown): Promise<void> {
  const found = problems(endpoint, sent, result)
  if (found.length > 0) {
    throw new Error(
      `${endpoint} → ${result.status} ${result.text.slice(0, 400)}\nproblems: ${found.join('; ')}`,
    )
  }
}

const sendJson = (endpoint: Endpoint, body: unknown) =>
  rest(server.url, 'POST', endpoint, { key, json: body })

// ---- arbitraries -------------------------------------------------------------------------------

/** Any JSON value, including the awkward ones (deep nesting, unicode keys, -0, huge numbers). */
const anyJson = fc.jsonValue({ maxDepth: 4 })

/** fc.anything, through JSON.stringify as a client would (undefined → no value, so null). */
const anythingAsJson = fc
  .anything({
    maxDepth: 3,
    withBigInt: false,
    withBoxedValues: true,
    withMap: true,
    withSet: true,
    withDate: true,
  })
  .map((value) => {
    try {
      return JSON.stringify(value) ?? 'null'
    } catch {
      return 'null'
    }
  })

/** Values of any type for one field, biased towards the edges of the right type. */
const anyValue = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 90, -90, 180, -180, 90.0000001, 1e308, -1e308, 5e-324),
  fc.string(),
  fc.constantFrom('', 'PSME', 'psme', 'manual', 'drone_seeded', 'MANUAL', '44.6', 'null'),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.integer({ min: -2, max: 7 }), fc.string(), fc.constant(null)), { maxLength: 12 }),
  anyJson,
)

const latitude = fc.oneof(fc.double({ min: 41.9, max: 49.1, noNaN: true }), anyValue)
const longitude = fc.oneof(fc.double({ min: -124.8, max: -116.4, noNaN: true }), anyValue)
const speciesCode = fc.oneof(fc.constantFrom(...SPECIES_CODES), fc.string({ maxLength: 8 }), anyValue)
const plantingMethod = fc.oneof(
  fc.constantFrom('manual', 'drone_seeded'),
  fc.string({ maxLength: 14 }),
  anyValue,
)
const horizons = fc.oneof(
  fc.subarray([1, 3, 5]),
  fc.array(fc.constantFrom(1, 3, 5), { maxLength: 12 }),
  fc.array(fc.integer({ min: -1, max: 6 }), { maxLength: 5 }),
  anyValue,
)
const extraKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'sites'),
)

/** Objects with the right keys (each maybe missing), random-typed values, sometimes an extra key. */
const predictLike = fc.record(
  {
    latitude,
    longitude,
    species_code: speciesCode,
    planting_method: plantingMethod,
    horizons,
    extra: fc.tuple(extraKey, anyValue),
  },
  { requiredKeys: [] },
)

function materialise(record: Record<string, unknown>, withMethod: boolean): Record<string, unknown> {
  const { extra, ...fields } = record
  if (!withMethod) delete fields.planting_method
  const body: Record<string, unknown> = { ...fields }
  if (Array.isArray(extra))
    Object.defineProperty(body, extra[0] as string, { value: extra[1], enumerable: true })
  return body
}

/** Mostly valid bodies with one or two fields changed, so that many runs reach the domain. */
const nearValidPredict = fc
  .tuple(
    fc.record({
      latitude: fc.double({ min: 42, max: 49, noNaN: true }),
      longitude: fc.double({ min: -124.5, max: -116.5, noNaN: true }),
      species_code: fc.constantFrom(...SPECIES_CODES),
      planting_method: fc.constantFrom('manual', 'drone_seeded'),
    }),
    fc.option(fc.subarray([5, 3, 1, 3], { minLength: 1 }), { nil: undefined }),
    fc.option(
      fc.tuple(
        fc.constantFrom('latitude', 'longitude', 'species_code', 'planting_method', 'horizons'),
        anyValue,
      ),
      {
        nil: undefined,
      },
    ),
  )
  .map(([base, hs, mutation]) => {
    const body: Record<string, unknown> = { ...base }
    if (hs) body.horizons = hs
    if (mutation) body[mutation[0]] = mutation[1]
    return body
  })

/** Bodies of the right types everywhere, so every one reaches the domain (and many a per-item error). */
const domainPredict = fc
  .record(
    {
      latitude: fc.double({ min: 41, max: 50, noNaN: true }),
      longitude: fc.double({ min: -126, max: -115, noNaN: true }),
      species_code: fc.constantFrom(...SPECIES_CODES, 'PSMA', 'XXXX', 'psme'),
      planting_method: fc.constantFrom('manual', 'drone_seeded', 'helicopter'),
      horizons: fc.subarray([5, 3, 1, 3], { minLength: 1 }),
    },
    { requiredKeys: ['latitude', 'longitude', 'species_code', 'planting_method'] },
  )
  .map((body) => body as Record<string, unknown>)

const bodyFor = (endpoint: Endpoint) =>
  endpoint === '/v1/predict'
    ? fc.oneof(
        predictLike.map((r) => materialise(r, true)),
        nearValidPredict,
      )
    : endpoint === '/v1/predict/compare'
      ? fc.oneof(
          predictLike.map((r) => materialise(r, false)),
          nearValidPredict.map(({ planting_method: _m, ...rest }) => rest),
          domainPredict.map(({ planting_method: _m, ...rest }) => rest),
        )
      : fc.oneof(
          fc.record({
            sites: fc.array(
              fc.oneof(
                nearValidPredict,
                predictLike.map((r) => materialise(r, true)),
              ),
              { maxLength: 12 },
            ),
          }),
          fc.record({ sites: fc.array(domainPredict, { minLength: 1, maxLength: 12 }) }),
          fc.record({ sites: anyValue }, { requiredKeys: [] }),
          fc.record({ sites: fc.array(nearValidPredict, { maxLength: 8 }), extra: anyValue }),
        )

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/problem+json',
    'application/vnd.api+json',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'application/octet-stream',
    'application/json; charset=latin1',
    ';',
    '',
  ),
  fc.string({ maxLength: 40 }).filter((s) => /^[\t\x20-\x7e]*$/.test(s)),
)

// ---- properties --------------------------------------------------------------------------------

describe.each(ENDPOINTS)('POST %s under random input: never a 5xx, always the envelope', (endpoint) => {
  it('any JSON value as the body', async () => {
    await fc.assert(
      fc.asyncProperty(anyJson, async (body) => check(endpoint, await sendJson(endpoint, body), body)),
      { numRuns: NUM_RUNS },
    )
  })

  it('fc.anything serialised to JSON', async () => {
    await fc.assert(
      fc.asyncProperty(anythingAsJson, async (raw) => {
        const result = await rest(server.url, 'POST', endpoint, { key, raw, contentType: 'application/json' })
        await check(endpoint, result, JSON.parse(raw))
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('objects with the right keys and random-typed values', async () => {
    const seen = new Set<number>()
    await fc.assert(
      fc.asyncProperty(bodyFor(endpoint), async (body) => {
        const result = await sendJson(endpoint, body)
        seen.add(result.status)
        await check(endpoint, result, body)
      }),
      { numRuns: NUM_RUNS },
    )
    // The runs reached both the validation and the successful path, so the shape checks ran.
    expect([...seen]).toEqual(expect.arrayContaining([200, 400]))
  })

  it('random strings as the raw body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.string({ unit: 'binary', maxLength: 200 }),
          anyJson.map((v) => JSON.stringify(v).slice(0, -1)),
          bodyFor(endpoint).map((v) => `${JSON.stringify(v)}}`),
        ),
        async (raw) => {
          const result = await rest(server.url, 'POST', endpoint, {
            key,
            raw,
            contentType: 'application/json',
          })
          let sent: unknown
          try {
            sent = JSON.parse(raw)
          } catch {
            expect(result.status, result.text).toBe(400)
            expect(result.body?.error?.code).toBe('invalid_json')
          }
          await check(endpoint, result, sent)
        },
      ),
      { numRuns: NUM_RUNS },
    )
  })

  it('random content types (or none) with a valid body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(contentType, { nil: null }), async (type) => {
        const body = endpoint === '/v1/predict/batch' ? { sites: [predictBody()] } : predictBody()
        if (endpoint === '/v1/predict/compare') delete (body as Record<string, unknown>).planting_method
        const result = await rest(server.url, 'POST', endpoint, {
          key,
          raw: JSON.stringify(body),
          contentType: type,
        })
        await check(endpoint, result, body)
        const media = type?.split(';')[0]?.trim().toLowerCase() ?? ''
        const isJson = media === 'application/json' || /^application\/[^/]+\+json$/.test(media)
        expect(result.status, `${JSON.stringify(type)} → ${result.text}`).toBe(isJson ? 200 : 415)
      }),
      { numRuns: NUM_RUNS },
    )
  })
})
