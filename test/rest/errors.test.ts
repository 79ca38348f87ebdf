import { Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { compareBody, predictBodies, predictBody } from '../support/sites.ts'
import {
  envelopeProblems,
  expectError,
  predictionProblems,
  type RestResult,
  rawRequest,
  rest,
} from './client.ts'

const MIB = 1024 * 1024

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
})

afterAll(() => stopSeededServer({ db, server }))

const POSTS: [string, unknown][] = [
  ['/v1/predict', predictBody()],
  ['/v1/predict/compare', compareBody()],
  ['/v1/predict/batch', { sites: predictBodies(2) }],
]

function postRaw(path: string, raw: string | Uint8Array, contentType: string | null): Promise<RestResult> {
  return rest(server.url, 'POST', path, { key, raw, contentType })
}

describe('invalid_json (400): malformed or empty JSON', () => {
  const bodies: [string, string][] = [
    ['an empty body', ''],
    ['only whitespace', '  \n\t '],
    ['a truncated object', '{"latitude": 44.6,'],
    ['a bare word', 'nope'],
    ['single quotes', "{'latitude': 44.6}"],
    ['trailing garbage', '{"latitude": 44.6} x'],
    ['a trailing comma', '{"latitude": 44.6,}'],
    ['NaN', '{"latitude": NaN}'],
    ['a BOM-less binary blob', '\u0000\u0001\u0002'],
  ]
  for (const [path] of POSTS) {
    it.each(bodies)(`${path}: %s`, async (_label, raw) => {
      const error = expectError(await postRaw(path, raw, 'application/json'), 400, 'invalid_json')
      expect(error.message).toMatch(/JSON/)
    })
  }
})

describe('unsupported_media_type (415): POST needs Content-Type: application/json', () => {
  const types: [string, string | null][] = [
    ['no Content-Type', null],
    ['text/plain', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['multipart/form-data', 'multipart/form-data; boundary=x'],
    ['application/xml', 'application/xml'],
    ['text/json', 'text/json'],
    ['application/jsonx', 'application/jsonx'],
  ]
  for (const [path, body] of POSTS) {
    it.each(types)(`${path} with %s and a valid JSON body → 415`, async (_label, contentType) => {
      expectError(await postRaw(path, JSON.stringify(body), contentType), 415, 'unsupported_media_type')
    })
  }

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON',
  ])('%s is accepted', async (contentType) => {
    const result = await postRaw('/v1/predict', JSON.stringify(predictBody()), contentType)
    expect(result.status, result.text).toBe(200)
    expect(predictionProblems(result.body)).toEqual([])
  })

  it('GET endpoints need no Content-Type', async () => {
    for (const path of ['/v1/species', '/v1/methods', '/v1/coverage', '/v1/health']) {
      expect((await rest(server.url, 'GET', path, { key })).status).toBe(200)
    }
  })
})

describe('payload_too_large (413): bodies over 1 MiB', () => {
  const chunk = Buffer.alloc(64 * 1024, 0x20)

  it.each(POSTS.map(([path]) => path))('%s with a declared Content-Length over 1 MiB', async (path) => {
    const chunks = Array.from({ length: 17 }, () => chunk)
    const result = await rawRequest(
      server.url,
      'POST',
      path,
      { 'content-type': 'application/json', 'content-length': chunk.length * 17, 'x-api-key': key },
      chunks,
    )
    expectError(result, 413, 'payload_too_large')
    expect(result.headers.get('request-id')).toBeTruthy()
  })

  it('a chunked body (no Content-Length) that grows over 1 MiB', async () => {
    const chunks = [Buffer.from('{"sites": ['), ...Array.from({ length: 20 }, () => chunk)]
    const result = await rawRequest(
      server.url,
      'POST',
      '/v1/predict/batch',
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-api-key': key },
      chunks,
    )
    expectError(result, 413, 'payload_too_large')
  })

  it('a body of exactly 1 MiB is read (whitespace-padded valid JSON → 200)', async () => {
    const json = JSON.stringify(predictBody())
    const padded = json + ' '.repeat(MIB - Buffer.byteLength(json))
    expect(Buffer.byteLength(padded)).toBe(MIB)
    const result = await postRaw('/v1/predict', padded, 'application/json')
    expect(result.status, result.text).toBe(200)
  })

  it('one byte over 1 MiB → 413', async () => {
    const json = JSON.stringify(predictBody())
    const padded = json + ' '.repeat(MIB + 1 - Buffer.byteLength(json))
    const result = await rawRequest(
      server.url,
      'POST',
      '/v1/predict',
      { 'content-type': 'application/json', 'content-length': Buffer.byteLength(padded), 'x-api-key': key },
      [padded],
    )
    expectError(result, 413, 'payload_too_large')
  })

  const big = Buffer.alloc(64 * 1024, 0x20)
  const refusedUploads: [string, Record<string, string | number>, (string | Buffer)[], number, string][] = [
    [
      '413, Content-Length',
      { 'content-type': 'application/json', 'content-length': MIB + 1, 'x-api-key': 'KEY' },
      [' '.repeat(MIB + 1)],
      413,
      'payload_too_large',
    ],
    [
      '413, chunked',
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-api-key': 'KEY' },
      Array.from({ length: 20 }, () => big),
      413,
      'payload_too_large',
    ],
    [
      '401 before reading a chunked body',
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      Array.from({ length: 20 }, () => big),
      401,
      'invalid_api_key',
    ],
  ]

  it.each(refusedUploads)(
    'after a refused upload (%s) a keep-alive client is told to close, or can reuse the connection',
    async (_label, headers, chunks, status, code) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      try {
        const withKey = Object.fromEntries(
          Object.entries(headers).map(([n, v]) => [n, v === 'KEY' ? key : v]),
        )
        const refused = await rawRequest(server.url, 'POST', '/v1/predict', withKey, chunks, agent)
        expectError(refused, status, code)
        if (refused.headers.get('connection') !== 'close') {
          // The server kept the connection: it must then be usable for the next request.
          const next = await rawRequest(server.url, 'GET', '/v1/methods', { 'x-api-key': key }, [], agent)
          expect(next.status).toBe(200)
        }
      } finally {
        agent.destroy()
      }
    },
  )

  it('a hypha batch of 500 sites is well under the limit', async () => {
    const body = JSON.stringify({ sites: predictBodies(500) })
    expect(Buffer.byteLength(body)).toBeLessThan(MIB)
  })
})

describe('not_found (404)', () => {
  it.each([
    '/v1/nope',
    '/v1/predict/nope',
    '/v1/predictions',
    '/v1/species/PSME',
    '/v1',
    '/v2/predict',
    '/nope',
    '/index.html', // "/" is the explorer page (test/explorer)
    '/predict',
  ])('GET %s → 404 not_found', async (path) => {
    for (const headers of [{}, { 'x-api-key': key }] as Record<string, string>[]) {
      const result = await rest(server.url, 'GET', path, { headers })
      expectError(result, 404, 'not_found')
      expect(result.headers.get('request-id')).toBeTruthy()
    }
  })

  it('POST to an unknown path → 404 not_found', async () => {
    expectError(await rest(server.url, 'POST', '/v1/predict/bulk', { key, json: {} }), 404, 'not_found')
    expectError(await rest(server.url, 'POST', '/unknown', { key, json: {} }), 404, 'not_found')
  })
})

describe('method_not_allowed (405) with Allow', () => {
  it.each([
    ['GET', '/v1/predict', 'POST'],
    ['PUT', '/v1/predict', 'POST'],
    ['DELETE', '/v1/predict', 'POST'],
    ['GET', '/v1/predict/compare', 'POST'],
    ['GET', '/v1/predict/batch', 'POST'],
    ['PATCH', '/v1/predict/batch', 'POST'],
    ['POST', '/v1/species', 'GET, HEAD'],
    ['DELETE', '/v1/species', 'GET, HEAD'],
    ['POST', '/v1/methods', 'GET, HEAD'],
    ['PUT', '/v1/coverage', 'GET, HEAD'],
    ['POST', '/v1/health', 'GET, HEAD'],
  ])('%s %s → 405, Allow: %s', async (method, path, allow) => {
    const json = method === 'GET' || method === 'DELETE' ? undefined : {}
    const result = await rest(server.url, method, path, { key, json })
    const error = expectError(result, 405, 'method_not_allowed')
    expect(result.headers.get('allow')).toBe(allow)
    expect(error.message).toContain(method)
  })
})

describe('Request-Id on every response', () => {
  const WELL_FORMED = 'client-req.42:abc_DEF'

  type Call = (headers: Record<string, string>) => Promise<RestResult>
  const calls: [string, Call][] = [
    [
      '200 predict',
      (headers) => rest(server.url, 'POST', '/v1/predict', { key, json: predictBody(), headers }),
    ],
    ['200 species', (headers) => rest(server.url, 'GET', '/v1/species', { key, headers })],
    ['200 health', (headers) => rest(server.url, 'GET', '/v1/health', { headers })],
    ['400', (headers) => rest(server.url, 'POST', '/v1/predict', { key, json: { foo: 1 }, headers })],
    ['401', (headers) => rest(server.url, 'GET', '/v1/methods', { headers })],
    ['404 /v1', (headers) => rest(server.url, 'GET', '/v1/unknown', { headers })],
    ['404 top level', (headers) => rest(server.url, 'GET', '/unknown', { headers })],
    ['405', (headers) => rest(server.url, 'GET', '/v1/predict', { key, headers })],
    [
      '415',
      (headers) =>
        rest(server.url, 'POST', '/v1/predict', { key, raw: '{}', contentType: 'text/plain', headers }),
    ],
    [
      '422',
      (headers) =>
        rest(server.url, 'POST', '/v1/predict', { key, json: predictBody({ species_code: 'X' }), headers }),
    ],
  ]

  it.each(calls)('%s carries a generated Request-Id when none is sent', async (_label, call) => {
    const first = await call({})
    const second = await call({})
    const id = first.headers.get('request-id')
    expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/)
    expect(second.headers.get('request-id')).not.toBe(id)
  })

  it.each(calls)('%s echoes a well-formed incoming Request-Id', async (_label, call) => {
    const id = `${WELL_FORMED}-${Math.random().toString(36).slice(2)}`
    expect((await call({ 'request-id': id })).headers.get('request-id')).toBe(id)
  })

  it.each([
    ['300 characters', 'a'.repeat(300)],
    ['spaces', 'my request id'],
    ['a quote', 'abc"def'],
    ['a slash', 'a/b'],
  ])('a malformed incoming Request-Id (%s) is replaced by a generated one', async (_label, incoming) => {
    const result = await rest(server.url, 'GET', '/v1/species', { key, headers: { 'request-id': incoming } })
    expect(result.status).toBe(200)
    const id = result.headers.get('request-id')
    expect(id).toBeTruthy()
    expect(id).not.toBe(incoming)
    expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/)
  })

  it('a 413 carries the echoed Request-Id', async () => {
    const result = await rawRequest(
      server.url,
      'POST',
      '/v1/predict',
      {
        'content-type': 'application/json',
        'content-length': MIB * 2,
        'x-api-key': key,
        'request-id': 'big-1',
      },
      [Buffer.alloc(64 * 1024, 0x20)],
    )
    expect(result.status).toBe(413)
    expect(result.headers.get('request-id')).toBe('big-1')
  })
})

describe('the error envelope is exactly {"error": {code, message, details?}}', () => {
  it('for every kind of error the adapter produces', async () => {
    const results = [
      await rest(server.url, 'GET', '/v1/species'),
      await rest(server.url, 'GET', '/nowhere'),
      await rest(server.url, 'GET', '/v1/predict', { key }),
      await rest(server.url, 'POST', '/v1/predict', { key, raw: '{', contentType: 'application/json' }),
      await rest(server.url, 'POST', '/v1/predict', { key, raw: '{}', contentType: 'text/plain' }),
      await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody({ latitude: 200 }) }),
      await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody({ species_code: 'PSMA' }) }),
      await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody({ planting_method: 'x' }) }),
      await rest(server.url, 'POST', '/v1/predict/batch', { key, json: { sites: predictBodies(501) } }),
    ]
    for (const result of results) {
      expect(result.status).toBeGreaterThanOrEqual(400)
      expect(result.status).toBeLessThan(500)
      expect(envelopeProblems(result.body), result.text).toEqual([])
    }
  })
})

describe('internal_error (500)', () => {
  it('an unexpected failure is a bare internal_error envelope that leaks nothing', async () => {
    const probe = await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody() })
    expect(probe.status).toBe(200)
    await db.sql`ALTER TABLE sites RENAME TO sites_hidden_for_test`
    try {
      const result = await rest(server.url, 'POST', '/v1/predict', {
        key,
        json: predictBody({ latitude: 44.61, longitude: -123.61 }),
      })
      const error = expectError(result, 500, 'internal_error')
      expect(error.details).toBeUndefined()
      expect(result.text).not.toMatch(/sites|relation|postgres|sql|stack/i)
      expect(result.headers.get('request-id')).toBeTruthy()
    } finally {
      await db.sql`ALTER TABLE sites_hidden_for_test RENAME TO sites`
    }
    const after = await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody() })
    expect(after.status).toBe(200)
  })
})
