import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { secondsUntilReset } from '../../src/access/quota/day-window.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import {
  batchInputTypeName,
  batchQuery,
  firstError,
  graphql,
  outcomeCounts,
  predictField,
} from '../support/graphql-helpers.ts'
import { scanKeys, withRedis } from '../support/redis.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, predictionInputs } from '../support/sites.ts'
import { simultaneously } from '../support/waiting.ts'

const SPECIES_QUERY = '{ species { code } }'
const PREDICT_QUERY = `{ ${predictField(FOREST_POINTS.coastRange)} }`

let db: TestDatabase
let server: TestServer
let batchType: string

beforeAll(async () => {
  ;({ db, server } = await startSeededServer())
  batchType = await batchInputTypeName(server.url)
})

afterAll(() => stopSeededServer({ db, server }))

describe.each(['redis', 'memory'] as const)('daily quota with the %s store', (quota) => {
  let quotaServer: TestServer

  beforeAll(async () => {
    quotaServer = quota === 'redis' ? server : await startTestServer({ database: db, quota: 'memory' })
  })

  afterAll(async () => {
    if (quota === 'memory') await quotaServer?.close()
  })

  it('150 simultaneous requests on a fresh spore key: exactly 100 answered, 50 refused with 429', async () => {
    const { key } = await issueKey(db, 'spore')
    const results = await simultaneously(150, (i) =>
      graphql(quotaServer.url, i % 2 ? SPECIES_QUERY : PREDICT_QUERY, { key }),
    )
    expect(outcomeCounts(results)).toEqual({ '200:data': 100, '429:rate_limit_exceeded': 50 })
    const refused = results.filter((r) => r.status === 429)
    for (const result of refused) {
      const error = firstError(result)
      expect(error.extensions?.status).toBe(429)
      expect(error.message).toContain('spore')
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(result.body.data ?? null).toBeNull()
    }
    const remaining = results
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')))
      .sort((a, b) => a - b)
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i))
    // still refused afterwards
    expect((await graphql(quotaServer.url, SPECIES_QUERY, { key })).status).toBe(429)
  })
})

describe('rate-limit headers', () => {
  it('a successful spore request carries RateLimit-Policy, RateLimit and X-RateLimit-*', async () => {
    const { key } = await issueKey(db, 'spore')
    const first = await graphql(server.url, SPECIES_QUERY, { key })
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-policy')).toBe('"daily";q=100;w=86400')
    const ratelimit = first.headers.get('ratelimit') ?? ''
    const match = /^"daily";r=(\d+);t=(\d+)$/.exec(ratelimit)
    expect(match, ratelimit).not.toBeNull()
    expect(Number(match?.[1])).toBe(99)
    const seconds = Number(match?.[2])
    expect(seconds).toBeGreaterThan(0)
    expect(seconds).toBeLessThanOrEqual(86_400)
    expect(first.headers.get('x-ratelimit-limit')).toBe('100')
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99')
    const reset = Number(first.headers.get('x-ratelimit-reset'))
    expect(reset % 86_400).toBe(0)
    expect(reset * 1000).toBeGreaterThan(Date.now())

    const second = await graphql(server.url, PREDICT_QUERY, { key })
    expect(second.headers.get('x-ratelimit-remaining')).toBe('98')
    expect(second.headers.get('ratelimit')).toMatch(/^"daily";r=98;t=\d+$/)
  })

  it('requests answering a domain error are counted and carry the headers too', async () => {
    const { key } = await issueKey(db, 'spore')
    const result = await graphql(server.url, `{ ${predictField({ latitude: 43.6, longitude: -116.2 })} }`, {
      key,
    })
    expect(result.status).toBe(422)
    expect(result.headers.get('x-ratelimit-remaining')).toBe('99')
  })

  it('mycel shows its own limit', async () => {
    const { key } = await issueKey(db, 'mycel')
    const result = await graphql(server.url, SPECIES_QUERY, { key })
    expect(result.headers.get('ratelimit-policy')).toBe('"daily";q=10000;w=86400')
    expect(result.headers.get('x-ratelimit-limit')).toBe('10000')
    expect(result.headers.get('x-ratelimit-remaining')).toBe('9999')
  })

  it('hypha is unlimited but still counted', async () => {
    const { id, key } = await issueKey(db, 'hypha')
    const results = await simultaneously(120, () => graphql(server.url, SPECIES_QUERY, { key }))
    expect(outcomeCounts(results)).toEqual({ '200:data': 120 })
    for (const result of results) {
      expect(result.headers.get('x-ratelimit-limit')).toBe('unlimited')
      expect(result.headers.get('ratelimit-policy')).toBeNull()
      expect(result.headers.get('x-ratelimit-remaining')).toBeNull()
    }
    const used = results.map((r) => Number(r.headers.get('x-ratelimit-used'))).sort((a, b) => a - b)
    expect(used).toEqual(Array.from({ length: 120 }, (_, i) => i + 1))
    await withRedis(async (redis) => {
      const counters = await scanKeys(redis, `${server.quotaPrefix}${id}:`)
      expect(counters).toHaveLength(1)
      expect(await redis.get(counters[0] as string)).toBe('120')
      expect(await redis.ttl(counters[0] as string)).toBeGreaterThan(0)
    })
  })

  it('a batch counts as one request, whatever its size', async () => {
    const { key } = await issueKey(db, 'spore')
    const batch = await graphql(server.url, batchQuery(batchType), {
      key,
      variables: { sites: predictionInputs(10) },
    })
    expect(batch.status).toBe(200)
    expect(batch.body.data.predictBatch).toHaveLength(10)
    expect(batch.headers.get('x-ratelimit-remaining')).toBe('99')
    const again = await graphql(server.url, batchQuery(batchType), {
      key,
      variables: { sites: predictionInputs(3) },
    })
    expect(again.headers.get('x-ratelimit-remaining')).toBe('98')
  })

  it('one operation with several root fields counts as one request', async () => {
    const { key } = await issueKey(db, 'spore')
    const result = await graphql(
      server.url,
      `{ species { code } plantingMethods { id } coverage { region } a: ${predictField(FOREST_POINTS.coastRange)} }`,
      { key },
    )
    expect(result.status).toBe(200)
    expect(result.headers.get('x-ratelimit-remaining')).toBe('99')
  })
})

describe('the daily window with an injectable clock', () => {
  let clock: Date
  let clocked: TestServer

  beforeAll(async () => {
    clock = new Date('2026-11-22T23:59:58Z')
    clocked = await startTestServer({ database: db, now: () => clock })
  })

  afterAll(async () => {
    await clocked?.close()
  })

  it('Retry-After and RateLimit t= count the seconds to the next midnight UTC', async () => {
    const { key } = await issueKey(db, 'spore')
    clock = new Date('2026-11-22T12:00:00Z')
    const ok = await graphql(clocked.url, SPECIES_QUERY, { key })
    expect(ok.headers.get('ratelimit')).toBe('"daily";r=99;t=43200')
    expect(ok.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-23T00:00:00Z') / 1000))
    const p = await graphql(clocked.url, `{ ${predictField(FOREST_POINTS.coastRange, 'generatedAt')} }`, {
      key,
    })
    expect(p.body.data.predict.generatedAt).toBe('2026-11-22T12:00:00.000Z')
  })

  it('exhausted at 23:59:59Z: refused with Retry-After 1; at 00:00:00Z the next day allowed again', async () => {
    const { key } = await issueKey(db, 'spore')
    clock = new Date('2026-11-22T23:59:59Z')
    const used = await simultaneously(100, () => graphql(clocked.url, SPECIES_QUERY, { key }))
    expect(outcomeCounts(used)).toEqual({ '200:data': 100 })

    const refused = await graphql(clocked.url, SPECIES_QUERY, { key })
    expect(refused.status).toBe(429)
    const error = firstError(refused)
    expect(error.extensions?.code).toBe('rate_limit_exceeded')
    expect(error.extensions?.status).toBe(429)
    expect(error.message).toContain('spore')
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.headers.get('retry-after')).toBe(String(secondsUntilReset(clock)))
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')

    clock = new Date('2026-11-22T23:59:59.999Z')
    expect((await graphql(clocked.url, SPECIES_QUERY, { key })).status).toBe(429)

    clock = new Date('2026-11-23T00:00:00Z')
    const next = await graphql(clocked.url, SPECIES_QUERY, { key })
    expect(next.status).toBe(200)
    expect(next.headers.get('x-ratelimit-remaining')).toBe('99')
    expect(next.headers.get('ratelimit')).toBe('"daily";r=99;t=86400')
  })

  it('Retry-After at noon is 43200 seconds', async () => {
    const { key } = await issueKey(db, 'spore')
    clock = new Date('2026-11-24T12:00:00Z')
    await simultaneously(100, () => graphql(clocked.url, SPECIES_QUERY, { key }))
    const refused = await graphql(clocked.url, SPECIES_QUERY, { key })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('43200')
  })
})
