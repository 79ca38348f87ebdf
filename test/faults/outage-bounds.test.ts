import { randomBytes } from 'node:crypto'
import { Agent } from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { utcDay } from '../../src/access/quota/day-window.ts'
import { createKey } from '../../src/db/keys.ts'
import { post, type RestResult, rawRequest } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase } from '../support/fixtures.ts'
import { type MailCatcher, mailEnv, startMailCatcher } from '../support/mail-catcher.ts'
import { deleteKeysWithPrefix, withRedis } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { TEST_REDIS_URL } from '../support/services.ts'
import { predictBody } from '../support/sites.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { eventually } from '../support/waiting.ts'

/**
 * The measured bound of an accepted risk. While Redis is away each server process counts in its own
 * memory (FailoverQuotaStore → MemoryQuotaStore, FailoverIssuanceLimiter → MemoryIssuanceLimiter), so
 * a key gets its daily limit once more per process, and an address its hourly allowance once per
 * process — which the database's exact check under the issuance lock still caps. Two app instances in
 * this process share one database and one Redis behind one cuttable proxy.
 *
 * The quota's exact bound, as the code does it: during the outage each process serves at most LIMIT,
 * its memory counting from 0 whatever Redis held, so by the outage's end a key has had at most
 * used-before + LIMIT × processes. Memory's counts are not written back, so after recovery Redis still
 * allows LIMIT − used-before: over the whole day at most LIMIT × (processes + 1). Both are reached.
 */
const LIMIT = 100 // the spore tier's daily limit
const USED_BEFORE = 30
const MAX_TRIES = 150 // per instance and phase: a loop that never sees a 429 still ends
const PER_ADDRESS = 3

let db: TestDatabase
let proxy: TcpProxy
let catcher: MailCatcher
let servers: TestServer[] = []
const prefix = `test:quota:bounds:${randomBytes(6).toString('hex')}:`

beforeAll(async () => {
  db = await createSeededDatabase()
  catcher = await startMailCatcher()
  const target = new URL(TEST_REDIS_URL)
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) })
  const start = () =>
    startTestServer({
      database: db,
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      quotaPrefix: prefix,
      keyCacheMs: 0,
      sporeKeysPerAddressPerHour: PER_ADDRESS,
      mail: mailEnv(catcher),
    })
  servers = [await start(), await start()]
})

afterEach(() => proxy?.restore())

afterAll(async () => {
  for (const server of servers) await server.close()
  await proxy?.close()
  await catcher?.close()
  await db?.drop()
  await deleteKeysWithPrefix(prefix)
})

const redisState = async (url: string) => (await (await fetch(`${url}/v1/health`)).json()).redis
/** Until every instance reports `state` (health says 'connected' only while its Redis is ready). */
async function allRedis(state: 'connected' | 'disconnected'): Promise<void> {
  const reached = await eventually(
    async () => (await Promise.all(servers.map((s) => redisState(s.url)))).every((r) => r === state),
    15_000,
    50,
  )
  expect(reached, `every instance's Redis ${state}`).toBe(true)
}

const predict = (url: string, key: string) => post(url, '/v1/predict', predictBody(), key)
const remaining = (answer: { headers: Headers }) => Number(answer.headers.get('x-ratelimit-remaining'))
/** Where the key stands on an instance, counting nothing (a job read only peeks at the quota). */
async function peekRemaining(url: string, key: string): Promise<number> {
  const answer = await fetch(`${url}/v1/jobs/job_none`, { headers: { 'x-api-key': key } })
  await answer.text()
  return remaining(answer)
}

/** Predictions on one instance until it answers 429: the `remaining` of each 200, and the refusal. */
async function spendUntilRefused(url: string, key: string) {
  const served: number[] = []
  for (let i = 0; i < MAX_TRIES; i++) {
    const answer = await predict(url, key)
    if (answer.status === 200) {
      served.push(remaining(answer))
      continue
    }
    expect(answer.status, answer.text).toBe(429)
    expect(answer.body.error.code).toBe('rate_limit_exceeded')
    return { served, refusal: answer }
  }
  throw new Error(`${url} served ${MAX_TRIES} predictions without a 429`)
}

/** LIMIT - from - 1 down to 0: the `remaining` of every request a counter at `from` lets through. */
const countdown = (from: number) => Array.from({ length: LIMIT - from }, (_, i) => LIMIT - from - 1 - i)

describe('the daily quota while Redis is away', () => {
  it(
    `serves a key exactly LIMIT (${LIMIT}) more per instance, each counted in memory from 0: ` +
      `${USED_BEFORE} + ${LIMIT} × 2 by the end of the outage, then Redis resumes at ${USED_BEFORE}, ` +
      `so the day's total is exactly LIMIT × (instances + 1) = ${LIMIT * 3}, never more`,
    async () => {
      const issued = await createKey(db.sql, { tier: 'spore', name: 'outage bounds' })
      const counter = `${prefix}${issued.id}:${utcDay(new Date())}`
      const redisCount = () => withRedis(async (redis) => Number(await redis.get(counter)))
      await allRedis('connected')

      // Before: one shared count in Redis, whichever instance answers.
      for (let i = 0; i < USED_BEFORE; i++) {
        const answer = await predict((servers[i % 2] as TestServer).url, issued.key)
        expect(answer.status, answer.text).toBe(200)
        expect(answer.headers.get('x-ratelimit-limit')).toBe(String(LIMIT))
        expect(remaining(answer)).toBe(LIMIT - 1 - i)
      }
      expect(await redisCount()).toBe(USED_BEFORE)

      proxy.cut()
      await allRedis('disconnected')
      // During: each instance counts from 0 in its own memory (FailoverQuotaStore → MemoryQuotaStore,
      // which knows nothing of Redis's 30), so each serves exactly LIMIT, never one more.
      const during = []
      for (const server of servers) during.push(await spendUntilRefused(server.url, issued.key))
      for (const { served, refusal } of during) {
        expect(served.length).toBeLessThanOrEqual(LIMIT) // no instance past the limit on its own
        expect(served).toEqual(countdown(0))
        expect(remaining(refusal)).toBe(0)
      }
      const servedDuring = during.map(({ served }) => served.length)
      expect(servedDuring).toEqual([LIMIT, LIMIT])
      const totalByOutageEnd = servedDuring.reduce((sum, n) => sum + n, USED_BEFORE)
      expect(totalByOutageEnd).toBeLessThanOrEqual(USED_BEFORE + LIMIT * servers.length)
      expect(totalByOutageEnd).toBe(USED_BEFORE + LIMIT * servers.length)
      // Refused again on each: a refusal counts nothing, and memory stays at the limit.
      for (const server of servers) expect((await predict(server.url, issued.key)).status).toBe(429)
      expect(await redisCount()).toBe(USED_BEFORE) // Redis saw nothing of the outage
      for (const server of servers) expect(await peekRemaining(server.url, issued.key)).toBe(0)

      proxy.restore()
      // After: once its connection is ready again, each instance reads the shared counter, which still
      // holds the 30 from before (what memory counted is not carried over to Redis).
      for (const server of servers) {
        const back = await eventually(
          async () => (await peekRemaining(server.url, issued.key)) === LIMIT - USED_BEFORE,
          15_000,
          100,
        )
        expect(back, `${server.url} reads the Redis count again`).toBe(true)
      }
      await allRedis('connected')

      // So the rest of Redis's allowance is served once more, across both instances.
      const after: number[] = []
      for (let i = 0; i < MAX_TRIES; i++) {
        const answer = await predict((servers[i % 2] as TestServer).url, issued.key)
        if (answer.status !== 200) {
          expect(answer.status, answer.text).toBe(429)
          expect(answer.body.error.code).toBe('rate_limit_exceeded')
          break
        }
        after.push(remaining(answer))
      }
      expect(after).toEqual(countdown(USED_BEFORE))
      for (const server of servers) expect((await predict(server.url, issued.key)).status).toBe(429)
      expect(await redisCount()).toBe(LIMIT)
      const dayTotal = totalByOutageEnd + after.length
      expect(dayTotal).toBe(LIMIT * (servers.length + 1))
    },
  )
})

describe('self-service issuance while Redis is away', () => {
  it(`lets one address have exactly ${PER_ADDRESS} keys over both instances: each process's memory admits ${PER_ADDRESS}, the database's exact hourly check refuses the rest`, async () => {
    proxy.cut()
    await allRedis('disconnected')

    const from = '127.0.0.7'
    const request = (url: string, email: string): Promise<RestResult> =>
      rawRequest(
        url,
        'POST',
        '/keys',
        { 'content-type': 'application/json' },
        [JSON.stringify({ email })],
        new Agent({ localAddress: from, keepAlive: false }),
      )
    const answers: { instance: number; email: string; answer: RestResult }[] = []
    // Alternating, PER_ADDRESS + 2 to each: more than either process's memory would admit.
    for (let i = 0; i < (PER_ADDRESS + 2) * 2; i++) {
      const instance = i % 2
      const email = `bounds-${Date.now()}-${i}@example.org`
      answers.push({ instance, email, answer: await request((servers[instance] as TestServer).url, email) })
    }
    for (const { answer } of answers) {
      if (answer.status === 202) continue
      expect(answer.status, answer.text).toBe(429)
      expect(answer.body.error.code).toBe('rate_limit_exceeded')
    }
    const accepted = answers.filter(({ answer }) => answer.status === 202)
    expect(accepted).toHaveLength(PER_ADDRESS)
    // The first three, whichever instance took them: the fourth (on instance 1, whose memory has
    // admitted only one) is refused by the database's count of key_requests under the issuance lock.
    expect(answers.map(({ answer }) => answer.status)).toEqual([
      202, 202, 202, 429, 429, 429, 429, 429, 429, 429,
    ])
    const [rows] = await db.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM key_requests`
    expect(rows?.count).toBe(PER_ADDRESS)
    // And only those three are mailed.
    expect(await eventually(() => catcher.mail.length >= PER_ADDRESS, 15_000)).toBe(true)
    expect(catcher.mail.flatMap((m) => m.recipients).sort()).toEqual(accepted.map((a) => a.email).sort())
  })
})
