import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, rotateKey, setKeyStatus } from '../../src/db/keys.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { compareBody, predictBodies, predictBody } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { expectError, type RestResult, rawRequest, rest } from './client.ts'

const KEY_CACHE_MS = 100

let db: TestDatabase
let server: TestServer

beforeAll(async () => {
  ;({ db, server } = await startSeededServer({ keyCacheMs: KEY_CACHE_MS }))
})

afterAll(() => stopSeededServer({ db, server }))

/** Every keyed endpoint with a valid request for it. */
const KEYED: [string, string, unknown][] = [
  ['POST', '/v1/predict', predictBody()],
  ['POST', '/v1/predict/compare', compareBody()],
  ['POST', '/v1/predict/batch', { sites: predictBodies(2) }],
  ['GET', '/v1/species', undefined],
  ['GET', '/v1/methods', undefined],
  ['GET', '/v1/coverage', undefined],
]

function call(
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<RestResult> {
  return rest(server.url, method, path, { json: body, headers })
}

function expectRefused(result: RestResult, status: number, code: string) {
  const error = expectError(result, status, code)
  expect(error.details, result.text).toBeUndefined()
  expect(result.headers.get('request-id')).toBeTruthy()
  return error
}

const MALFORMED_KEYS: [string, string][] = [
  ['empty', ''],
  ['wrong prefix', `tsp_test_${'a'.repeat(32)}`],
  ['no prefix', 'a'.repeat(32)],
  ['31 hex characters', `tsp_live_${'a'.repeat(31)}`],
  ['33 hex characters', `tsp_live_${'a'.repeat(33)}`],
  ['uppercase hex', `tsp_live_${'A'.repeat(32)}`],
  ['non-hex', `tsp_live_${'g'.repeat(32)}`],
  ['garbage', 'not a key at all'],
  ['very long', `tsp_live_${'a'.repeat(4000)}`],
  ['Bearer-prefixed valid shape', `Bearer tsp_live_${'a'.repeat(32)}`],
]

describe('invalid_api_key (401, spec §5.3)', () => {
  it.each(KEYED)('%s %s without X-API-Key', async (method, path, body) => {
    const error = expectRefused(await call(method, path, body, {}), 401, 'invalid_api_key')
    expect(error.message).toMatch(/X-API-Key/i)
  })

  it.each(KEYED)('%s %s with an unknown well-formed key', async (method, path, body) => {
    const unknown = `tsp_live_${'0123456789abcdef'.repeat(2)}`
    expectRefused(await call(method, path, body, { 'x-api-key': unknown }), 401, 'invalid_api_key')
  })

  it.each(MALFORMED_KEYS)('malformed key: %s', async (_label, key) => {
    for (const [method, path, body] of KEYED.slice(0, 4)) {
      const result = await call(method, path, body, { 'x-api-key': key })
      expectRefused(result, 401, 'invalid_api_key')
      if (key) expect(result.text).not.toContain(key)
    }
  })

  it('the key is not taken from other headers or the query string', async () => {
    const { key } = await issueKey(db, 'mycel')
    expectRefused(
      await call('GET', '/v1/species', undefined, { authorization: `Bearer ${key}` }),
      401,
      'invalid_api_key',
    )
    expectRefused(await rest(server.url, 'GET', `/v1/species?api_key=${key}`), 401, 'invalid_api_key')
  })

  it('a revoked key', async () => {
    const issued = await issueKey(db, 'mycel')
    const headers = { 'x-api-key': issued.key }
    expect((await call('GET', '/v1/methods', undefined, headers)).status).toBe(200)
    await setKeyStatus(db.sql, issued.id, 'revoke')
    expect(
      await eventually(async () => (await call('GET', '/v1/methods', undefined, headers)).status === 401),
    ).toBe(true)
    for (const [method, path, body] of KEYED) {
      expectRefused(await call(method, path, body, headers), 401, 'invalid_api_key')
    }
  })

  it('a rotated key; its replacement works with the same tier', async () => {
    const issued = await issueKey(db, 'spore')
    const old = { 'x-api-key': issued.key }
    expect((await call('GET', '/v1/methods', undefined, old)).status).toBe(200)
    const { issued: replacement } = await rotateKey(db.sql, issued.id)
    expect(
      await eventually(async () => (await call('GET', '/v1/methods', undefined, old)).status === 401),
    ).toBe(true)
    for (const [method, path, body] of KEYED) {
      expectRefused(await call(method, path, body, old), 401, 'invalid_api_key')
    }
    const fresh = await call('POST', '/v1/predict', predictBody(), { 'x-api-key': replacement.key })
    expect(fresh.status, fresh.text).toBe(200)
    expect(fresh.headers.get('x-ratelimit-limit')).toBe('100')
  })
})

describe('key_inactive (403, spec §5.4)', () => {
  it('a deactivated key is 403 on every keyed endpoint, and works again once reactivated', async () => {
    const issued = await issueKey(db, 'mycel')
    const headers = { 'x-api-key': issued.key }
    expect((await call('GET', '/v1/methods', undefined, headers)).status).toBe(200)
    await setKeyStatus(db.sql, issued.id, 'deactivate')
    expect(
      await eventually(async () => (await call('GET', '/v1/methods', undefined, headers)).status === 403),
    ).toBe(true)
    for (const [method, path, body] of KEYED) {
      const error = expectRefused(await call(method, path, body, headers), 403, 'key_inactive')
      expect(error.message.length).toBeGreaterThan(0)
    }
    await setKeyStatus(db.sql, issued.id, 'activate')
    expect(
      await eventually(async () => (await call('GET', '/v1/methods', undefined, headers)).status === 200),
    ).toBe(true)
    const again = await call('POST', '/v1/predict', predictBody(), headers)
    expect(again.status, again.text).toBe(200)
  })

  it('a key issued inactive is 403 from the start', async () => {
    const issued = await createKey(db.sql, { tier: 'hypha', name: 'inactive', status: 'inactive' })
    expectRefused(
      await call('POST', '/v1/predict', predictBody(), { 'x-api-key': issued.key }),
      403,
      'key_inactive',
    )
  })

  it('a deactivated key that is then revoked becomes 401', async () => {
    const issued = await issueKey(db, 'spore')
    await setKeyStatus(db.sql, issued.id, 'deactivate')
    await setKeyStatus(db.sql, issued.id, 'revoke')
    expectRefused(
      await call('GET', '/v1/species', undefined, { 'x-api-key': issued.key }),
      401,
      'invalid_api_key',
    )
  })
})

describe('health and the OpenAPI document need no key (spec §5.1)', () => {
  it.each(['/v1/health', '/v1/openapi.json'])('%s answers 200 without a key', async (path) => {
    expect((await rest(server.url, 'GET', path)).status).toBe(200)
  })
})

describe('authentication comes before the body is read', () => {
  const noKeyCases: [string, Record<string, string>, string | undefined][] = [
    ['malformed JSON', { 'content-type': 'application/json' }, '{"latitude": '],
    ['an empty body', { 'content-type': 'application/json' }, ''],
    ['a wrong Content-Type', { 'content-type': 'text/plain' }, 'hello'],
    ['no Content-Type', {}, '{}'],
    ['an invalid body', { 'content-type': 'application/json' }, '{"foo": 1}'],
  ]

  for (const path of ['/v1/predict', '/v1/predict/compare', '/v1/predict/batch']) {
    it.each(noKeyCases)(`${path} without a key and %s → 401`, async (_label, headers, raw) => {
      const result = await rest(server.url, 'POST', path, { raw: raw ?? '', headers })
      expectRefused(result, 401, 'invalid_api_key')
    })
  }

  it('a body over 1 MiB without a key → 401, not 413', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    const result = await rawRequest(
      server.url,
      'POST',
      '/v1/predict',
      { 'content-type': 'application/json', 'content-length': chunk.length * 20 },
      Array.from({ length: 20 }, () => chunk),
    )
    expectRefused(result, 401, 'invalid_api_key')
  })

  it('a deactivated key with malformed JSON → 403, not 400', async () => {
    const issued = await createKey(db.sql, { tier: 'spore', status: 'inactive' })
    const result = await rest(server.url, 'POST', '/v1/predict', {
      raw: '{not json',
      headers: { 'content-type': 'application/json', 'x-api-key': issued.key },
    })
    expectRefused(result, 403, 'key_inactive')
  })
})
