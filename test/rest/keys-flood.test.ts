import { createHmac } from 'node:crypto'
import { Agent } from 'node:http'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { TEST_ADDRESS_HASH_KEY } from '../support/address-hash-key.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase } from '../support/fixtures.ts'
import { scanKeys, withRedis } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { predictBody } from '../support/sites.ts'
import { type RestResult, rawRequest, rest } from './client.ts'

/**
 * OWASP API4 and API6: a flood of POST /keys (no key needed) against a real server on real PostgreSQL
 * and Redis. The issuance counters turn away what is past an address's allowance before the database,
 * and the issuances that do go on run one at a time in the process, so the flood holds at most one
 * database connection and /v1/predict keeps its own. Connections are read from PostgreSQL's side
 * (pg_stat_activity) while the flood runs. The server's pool is the production size (10), so the bound
 * is not the pool's. The test plays the load balancer (TRUST_PROXY=127.0.0.1/8) and names the 20
 * client addresses in X-Forwarded-For.
 */
const ADDRESSES = Array.from({ length: 20 }, (_, i) => `203.0.113.${100 + i}`)
const TICKS = 100
const TICK_MS = 100
const PER_ADDRESS = 5
/** Longest the flood may take to be answered in full (its sending takes TICKS × TICK_MS = 10 s). */
const FLOOD_DEADLINE_MS = 40_000

let db: TestDatabase
let serverDb: Database
let server: TestServer
let sampler: postgres.Sql
/** Statements the server sent to PostgreSQL that take the issuance lock: one per issuance that reached it. */
let issuanceLocks = 0

beforeAll(async () => {
  db = await createSeededDatabase()
  serverDb = await openDatabase(
    { DATABASE_URL: db.url, DB_POOL_MAX: 10 },
    {
      statementTimeoutMs: 3000,
      onQuery: (query) => {
        if (query.includes('pg_advisory_xact_lock')) issuanceLocks += 1
      },
    },
  )
  server = await startTestServer({
    database: serverDb,
    trustProxy: ['127.0.0.1/8'],
    explorer: false,
    sporeKeysPerAddressPerHour: PER_ADDRESS,
    // No usage flush during the flood: what is measured is the issuance path and the predictions.
    usageFlushMs: 600_000,
  })
  sampler = postgres(db.url, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: 'flood-sampler' },
  })
}, 120_000)

afterAll(async () => {
  await sampler?.end()
  await server?.close()
  await serverDb?.close()
  await db?.drop()
})

/** The server's connections doing something now (a query, a lock wait, an open transaction). */
async function busyServerConnections(): Promise<number> {
  const [row] = await sampler<{ busy: number }[]>`
    SELECT count(*)::int AS busy FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid()
      AND application_name = 'survival-api' AND state IS DISTINCT FROM 'idle'`
  return row?.busy ?? 0
}

describe('a flood of POST /keys', () => {
  it('2,000 POST /keys from 20 addresses in 10 s hold no more than 2 pool connections at any moment, and /v1/predict keeps answering', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    // Warm the server (site cache, key cache, the job runtime's first sweep) before measuring.
    expect((await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody() })).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 500))
    issuanceLocks = 0

    const agent = new Agent({ keepAlive: true, maxSockets: 64 })
    let flooding = true
    const started = performance.now()

    const samples: number[] = []
    const sampling = (async () => {
      while (flooding && samples.length < 5000) {
        samples.push(await busyServerConnections())
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    })()

    const predictions: { status: number; ms: number }[] = []
    const predicting = (async () => {
      while (flooding && predictions.length < 5000) {
        const at = performance.now()
        const answer = await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody() })
        predictions.push({ status: answer.status, ms: performance.now() - at })
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
    })()

    // 100 ticks, 100 ms apart: each sends one request from every address at once, without waiting for
    // the earlier ticks' answers.
    const answers: Promise<RestResult>[] = []
    for (let tick = 0; tick < TICKS; tick++) {
      const due = started + tick * TICK_MS
      const wait = due - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      for (const address of ADDRESSES)
        answers.push(
          rawRequest(
            server.url,
            'POST',
            '/keys',
            { 'content-type': 'application/json', 'x-forwarded-for': address },
            [JSON.stringify({ email: `flood-${tick}-${address}@example.org` })],
            agent,
          ),
        )
    }
    const sentMs = performance.now() - started
    let deadline: NodeJS.Timeout | undefined
    const results = await Promise.race([
      Promise.all(answers),
      new Promise<never>((_, reject) => {
        deadline = setTimeout(
          () => reject(new Error('the flood was not answered in time')),
          FLOOD_DEADLINE_MS,
        )
      }),
    ]).finally(() => {
      clearTimeout(deadline)
      flooding = false
    })
    await Promise.all([sampling, predicting])
    agent.destroy()

    // The flood was what it says: 2,000 requests from 20 addresses sent within 10 s (and a little).
    expect(results).toHaveLength(2000)
    expect(sentMs).toBeLessThan(11_000)
    const statuses = new Map<number, number>()
    for (const result of results) statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1)
    expect(Object.fromEntries(statuses)).toEqual({ 201: ADDRESSES.length * PER_ADDRESS, 429: 1900 })
    for (const refused of results.filter((result) => result.status === 429)) {
      expect(refused.body.error.code).toBe('rate_limit_exceeded')
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500)
    }

    // PostgreSQL's side: never more than 2 of the server's connections busy (the issuance and a
    // prediction), sampled throughout.
    expect(samples.length).toBeGreaterThan(50)
    expect(Math.max(...samples), `busy connections sampled: ${JSON.stringify(samples)}`).toBeLessThanOrEqual(
      2,
    )
    // Only the admitted requests reached the database: 5 per address, each one issuance.
    expect(issuanceLocks).toBe(ADDRESSES.length * PER_ADDRESS)
    const [issued] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM api_keys WHERE email LIKE 'flood-%'`
    expect(issued?.n).toBe(ADDRESSES.length * PER_ADDRESS)

    // /v1/predict kept answering throughout.
    expect(predictions.length).toBeGreaterThanOrEqual(20)
    expect(predictions.every((prediction) => prediction.status === 200)).toBe(true)
    const slowest = Math.max(...predictions.map((prediction) => prediction.ms))
    expect(slowest, `slowest prediction ${Math.round(slowest)} ms`).toBeLessThan(3000)

    // Redis holds the addresses only as their keyed hashes.
    const keys = await withRedis((redis) => scanKeys(redis, server.quotaPrefix))
    const addressKeys = keys.filter((name) => name.includes('{issuance}:address:'))
    expect(addressKeys.sort()).toEqual(
      ADDRESSES.map(
        (address) =>
          `${server.quotaPrefix}{issuance}:address:${createHmac('sha256', TEST_ADDRESS_HASH_KEY).update(address).digest('hex')}`,
      ).sort(),
    )
    for (const address of ADDRESSES) expect(keys.some((name) => name.includes(address))).toBe(false)
  }, 90_000)
})
