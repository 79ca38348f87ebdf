import { createHmac } from 'node:crypto'
import { Agent } from 'node:http'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey, ISSUANCE_LOCK_ID } from '../../src/db/keys.ts'
import { TEST_ADDRESS_HASH_KEY } from '../support/address-hash-key.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase } from '../support/fixtures.ts'
import { type MailCatcher, mailEnv, startMailCatcher } from '../support/mail-catcher.ts'
import { scanKeys, withRedis } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { predictBody } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { type RestResult, rawRequest, rest } from './client.ts'

/**
 * OWASP API4 and API6: a flood of POST /keys (no key needed) against a real server on real PostgreSQL,
 * Redis and a real SMTP server. The issuance counters turn away what is past an address's allowance
 * before the database; the requests that do go on are recorded one at a time in the process, and their
 * mail is sent by the one mailer, which holds a connection only to take a request and to write its
 * outcome, never while it talks to the mail server. So the flood holds at most two database connections
 * (the recording and the mailing), and /v1/predict keeps its own. Connections are read from
 * PostgreSQL's side (pg_stat_activity) while the flood runs. The server's pool is the production size
 * (10), so the bound is not the pool's. The test plays the load balancer (TRUST_PROXY=127.0.0.1/8) and
 * names the 20 client addresses in X-Forwarded-For.
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
let mail: MailCatcher
/** The hourly check the server runs as it records a key request: one per request that reached the database. */
let recordings = 0

beforeAll(async () => {
  mail = await startMailCatcher()
  db = await createSeededDatabase()
  serverDb = await openDatabase(
    { DATABASE_URL: db.url, DB_POOL_MAX: 10 },
    {
      statementTimeoutMs: 3000,
      onQuery: (query) => {
        if (query.includes('FROM key_requests') && query.includes('AS from_address')) recordings += 1
      },
    },
  )
  server = await startTestServer({
    database: serverDb,
    trustProxy: ['127.0.0.1/8'],
    explorer: false,
    sporeKeysPerAddressPerHour: PER_ADDRESS,
    // No usage flush during the flood: what is measured is the key path and the predictions.
    usageFlushMs: 600_000,
    mail: mailEnv(mail),
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
  await mail?.close()
})

/** One of the server's connections doing something (a query, a lock wait, an open transaction). */
interface Busy {
  /**
   * On the key path: recording a request and every step of the mailer are transactions that take the
   * issuance lock first, so such a connection holds or awaits that lock, or is in a transaction about
   * to (predictions open none).
   */
  keyPath: boolean
  query: string
}

async function busyServerConnections(): Promise<Busy[]> {
  return sampler<Busy[]>`
    SELECT EXISTS (SELECT 1 FROM pg_locks l
                   WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.objid = ${ISSUANCE_LOCK_ID})
             OR a.state = 'idle in transaction'
             OR a.query ~* '^[[:space:]]*(begin|commit|savepoint|release)' AS "keyPath",
           left(regexp_replace(a.query, '[[:space:]]+', ' ', 'g'), 60) AS query
    FROM pg_stat_activity a
    WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
      AND a.application_name = 'survival-api' AND a.state IS DISTINCT FROM 'idle'`
}

describe('a flood of POST /keys', () => {
  it('2,000 POST /keys from 20 addresses in 10 s hold no more than 2 pool connections at any moment, and /v1/predict keeps answering', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    // Warm the server (site cache, key cache, the job runtime's first sweep) before measuring.
    expect((await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody() })).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 500))
    recordings = 0

    const agent = new Agent({ keepAlive: true, maxSockets: 64 })
    let flooding = true
    const started = performance.now()

    const samples: Busy[][] = []
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
    expect(Object.fromEntries(statuses)).toEqual({ 202: ADDRESSES.length * PER_ADDRESS, 429: 1900 })
    for (const taken of results.filter((result) => result.status === 202))
      expect(taken.text).toBe('{"status":"check_your_email"}')
    for (const refused of results.filter((result) => result.status === 429)) {
      expect(refused.body.error.code).toBe('rate_limit_exceeded')
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500)
    }

    // PostgreSQL's side, sampled throughout: never more than 2 of the server's connections busy with
    // the flood (the recording and the mailing: one holds the issuance lock, the other may await it),
    // and never more than 3 in all (those two and a prediction's).
    expect(samples.length).toBeGreaterThan(50)
    const described = () => JSON.stringify(samples.filter((sample) => sample.length > 1))
    const flood = samples.map((sample) => sample.filter((busy) => busy.keyPath).length)
    expect(Math.max(...flood), `busy connections sampled: ${described()}`).toBeLessThanOrEqual(2)
    expect(Math.max(...flood), 'the flood was never seen at work').toBeGreaterThan(0)
    expect(
      Math.max(...samples.map((sample) => sample.length)),
      `busy connections sampled: ${described()}`,
    ).toBeLessThanOrEqual(3)
    // Only the admitted requests reached the database: 5 per address, each recorded once.
    expect(recordings).toBe(ADDRESSES.length * PER_ADDRESS)
    const [recorded] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM key_requests WHERE email LIKE 'flood-%'`
    expect(recorded?.n).toBe(ADDRESSES.length * PER_ADDRESS)
    // Each one is mailed its key (in the end: the mailer goes on after the answers), and only then written.
    const floodMail = () => mail.mail.filter((message) => message.recipients[0]?.startsWith('flood-'))
    expect(
      await eventually(() => floodMail().length >= ADDRESSES.length * PER_ADDRESS, 60_000, 200),
      `${floodMail().length} messages`,
    ).toBe(true)
    expect(floodMail()).toHaveLength(ADDRESSES.length * PER_ADDRESS)
    expect(floodMail().every((message) => /tsp_live_[0-9a-f]{32}/.test(message.text))).toBe(true)
    const issued = async () =>
      (await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM api_keys WHERE email LIKE 'flood-%'`)[0]
        ?.n
    expect(await eventually(async () => (await issued()) === ADDRESSES.length * PER_ADDRESS, 10_000)).toBe(
      true,
    )

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
  }, 120_000)
})
