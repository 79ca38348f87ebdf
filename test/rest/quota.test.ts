import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { compareBody, OUTSIDE_POINTS, predictBodies, predictBody } from '../support/sites.ts'
import { simultaneously } from '../support/waiting.ts'
import { expectError, type RestResult, rest } from './client.ts'

/**
 * The server's clock: fixed, moved by the tests. Days are DAY1/DAY2, a few days ahead of the real
 * date: Redis expires each day's counter shortly after that day's midnight by its own clock, so a
 * fixed day in the past would have its counters expire at once.
 */
const DAY_MS = 86_400_000
const isoDay = (offset: number) =>
  new Date((Math.floor(Date.now() / DAY_MS) + offset) * DAY_MS).toISOString().slice(0, 10)
const DAY1 = isoDay(3)
const DAY2 = isoDay(4)
let clock = new Date(`${DAY1}T18:30:00.000Z`)
const setClock = (iso: string) => {
  clock = new Date(iso.replace('DAY1', DAY1).replace('DAY2', DAY2))
}

let db: TestDatabase
let server: TestServer

beforeAll(async () => {
  ;({ db, server } = await startSeededServer({ now: () => clock }))
})

afterAll(() => stopSeededServer({ db, server }))

const epoch = (iso: string) => String(Date.parse(iso) / 1000)

const methods = (key: string) => rest(server.url, 'GET', '/v1/methods', { key })

/** Uses up `count` requests of a key, in parallel groups. */
async function spend(key: string, count: number): Promise<RestResult[]> {
  const results: RestResult[] = []
  for (let done = 0; done < count; done += 25) {
    results.push(...(await simultaneously(Math.min(25, count - done), () => methods(key))))
  }
  return results
}

/** One valid call of every keyed endpoint, and some that fail after admission. */
const KEYED_CALLS: [string, string, string, unknown][] = [
  ['predict', 'POST', '/v1/predict', predictBody()],
  ['compare', 'POST', '/v1/predict/compare', compareBody()],
  ['batch of 3', 'POST', '/v1/predict/batch', { sites: predictBodies(3) }],
  ['species', 'GET', '/v1/species', undefined],
  ['methods', 'GET', '/v1/methods', undefined],
  ['coverage', 'GET', '/v1/coverage', undefined],
  ['a 422 domain error', 'POST', '/v1/predict', predictBody(OUTSIDE_POINTS.boise)],
  ['a 400 invalid body', 'POST', '/v1/predict', { latitude: 'x' }],
]

describe('rate-limit fields on keyed responses', () => {
  it('spore: RateLimit-Policy, RateLimit and X-RateLimit-* with the exact reset', async () => {
    setClock('DAY1T18:30:00.000Z')
    const { key } = await issueKey(db, 'spore')
    const result = await methods(key)
    expect(result.status).toBe(200)
    expect(result.headers.get('ratelimit-policy')).toBe('"daily";q=100;w=86400')
    expect(result.headers.get('ratelimit')).toBe('"daily";r=99;t=19800')
    expect(result.headers.get('x-ratelimit-limit')).toBe('100')
    expect(result.headers.get('x-ratelimit-remaining')).toBe('99')
    expect(result.headers.get('x-ratelimit-reset')).toBe(epoch(`${DAY2}T00:00:00Z`))
  })

  it('mycel: a daily quota of 10,000', async () => {
    setClock('DAY1T06:00:00.000Z')
    const { key } = await issueKey(db, 'mycel')
    const result = await methods(key)
    expect(result.headers.get('ratelimit-policy')).toBe('"daily";q=10000;w=86400')
    expect(result.headers.get('ratelimit')).toBe('"daily";r=9999;t=64800')
    expect(result.headers.get('x-ratelimit-limit')).toBe('10000')
    expect(result.headers.get('x-ratelimit-remaining')).toBe('9999')
  })

  it('hypha: X-RateLimit-Limit: unlimited, and never a 429', async () => {
    setClock('DAY1T12:00:00.000Z')
    const { key } = await issueKey(db, 'hypha')
    const results = await spend(key, 130)
    expect(results.map((r) => r.status)).toEqual(Array(130).fill(200))
    for (const result of results) {
      expect(result.headers.get('x-ratelimit-limit')).toBe('unlimited')
      expect(result.headers.get('ratelimit-policy')).toBeNull()
      expect(result.headers.get('x-ratelimit-reset')).toBe(epoch(`${DAY2}T00:00:00Z`))
    }
  })

  it('error responses after admission carry the fields too', async () => {
    const { key } = await issueKey(db, 'spore')
    const result = await rest(server.url, 'POST', '/v1/predict', {
      key,
      json: predictBody({ species_code: 'PSMA' }),
    })
    expect(result.status).toBe(422)
    expect(result.headers.get('x-ratelimit-remaining')).toBe('99')
    expect(result.headers.get('ratelimit')).toMatch(/^"daily";r=99;t=\d+$/)
  })
})

describe('every keyed request counts as one (spec §8.1)', () => {
  it('each endpoint, and requests failing after admission, count exactly one', async () => {
    const { key } = await issueKey(db, 'spore')
    let expected = 100
    for (const [label, method, path, json] of KEYED_CALLS) {
      const result = await rest(server.url, method, path, { key, json })
      expected -= 1
      expect(result.headers.get('x-ratelimit-remaining'), label).toBe(String(expected))
    }
  })

  it('health and /v1/openapi.json never count, even with a key', async () => {
    const { key } = await issueKey(db, 'spore')
    for (const path of ['/v1/health', '/v1/openapi.json', '/v1/health', '/v1/openapi.json']) {
      const result = await rest(server.url, 'GET', path, { key })
      expect(result.status).toBe(200)
    }
    expect((await methods(key)).headers.get('x-ratelimit-remaining')).toBe('99')
  })

  it('counters are per key', async () => {
    const first = await issueKey(db, 'spore')
    const second = await issueKey(db, 'spore')
    await spend(first.key, 5)
    expect((await methods(second.key)).headers.get('x-ratelimit-remaining')).toBe('99')
    expect((await methods(first.key)).headers.get('x-ratelimit-remaining')).toBe('94')
  })
})

describe('rate_limit_exceeded (429, spec §7, §8.2)', () => {
  it('the 101st spore request of the day → 429 naming the tier, Retry-After = seconds to midnight UTC', async () => {
    setClock('DAY1T18:30:00.000Z')
    const { key } = await issueKey(db, 'spore')
    const allowed = await spend(key, 100)
    expect(allowed.every((r) => r.status === 200)).toBe(true)
    const remaining = allowed.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i))

    const refused = await methods(key)
    const error = expectError(refused, 429, 'rate_limit_exceeded')
    expect(error.message).toContain('spore')
    expect(error.details).toBeUndefined()
    expect(refused.headers.get('retry-after')).toBe('19800')
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(refused.headers.get('ratelimit')).toBe('"daily";r=0;t=19800')
    expect(refused.headers.get('request-id')).toBeTruthy()
  })

  it('applies to every keyed endpoint, but not to health or the OpenAPI document', async () => {
    setClock('DAY1T21:15:30.000Z')
    const { key } = await issueKey(db, 'spore')
    await spend(key, 100)
    for (const [label, method, path, json] of KEYED_CALLS) {
      const result = await rest(server.url, method, path, { key, json })
      expectError(result, 429, 'rate_limit_exceeded')
      expect(result.headers.get('retry-after'), label).toBe('9870')
    }
    expect((await rest(server.url, 'GET', '/v1/health', { key })).status).toBe(200)
    expect((await rest(server.url, 'GET', '/v1/openapi.json', { key })).status).toBe(200)
  })

  it('the quota is checked before the body is read (an exhausted key with a malformed body → 429)', async () => {
    setClock('DAY1T18:30:00.000Z')
    const { key } = await issueKey(db, 'spore')
    await spend(key, 100)
    const result = await rest(server.url, 'POST', '/v1/predict', {
      key,
      raw: '{oops',
      headers: { 'content-type': 'application/json' },
    })
    expectError(result, 429, 'rate_limit_exceeded')
  })

  it('one second before midnight, Retry-After is 1', async () => {
    setClock('DAY1T23:59:59.000Z')
    const { key } = await issueKey(db, 'spore')
    await spend(key, 100)
    const refused = await methods(key)
    expectError(refused, 429, 'rate_limit_exceeded')
    expect(refused.headers.get('retry-after')).toBe('1')
  })

  it('the counter resets at midnight UTC', async () => {
    setClock('DAY1T23:00:00.000Z')
    const { key } = await issueKey(db, 'spore')
    await spend(key, 100)
    expect((await methods(key)).status).toBe(429)
    setClock('DAY2T00:00:01.000Z')
    const next = await methods(key)
    expect(next.status, next.text).toBe(200)
    expect(next.headers.get('x-ratelimit-remaining')).toBe('99')
    expect(next.headers.get('ratelimit')).toBe('"daily";r=99;t=86399')
  })

  it('150 simultaneous requests on a fresh spore key: exactly 100 answered, 50 refused', async () => {
    setClock('DAY1T18:30:00.000Z')
    const { key } = await issueKey(db, 'spore')
    const results = await simultaneously(150, (i) =>
      i % 3 === 0
        ? rest(server.url, 'POST', '/v1/predict', { key, json: predictBody() })
        : i % 3 === 1
          ? rest(server.url, 'POST', '/v1/predict/batch', { key, json: { sites: predictBodies(2) } })
          : methods(key),
    )
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(100)
    expect(statuses.filter((s) => s === 429)).toHaveLength(50)
  })

  it('a mycel key is not refused at 101 requests', async () => {
    const { key } = await issueKey(db, 'mycel')
    const results = await spend(key, 101)
    expect(results.every((r) => r.status === 200)).toBe(true)
  })
})
