import { Agent } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase } from '../support/fixtures.ts'
import {
  keyIn,
  keyWritten,
  type MailCatcher,
  mailEnv,
  rollLinkIn,
  startMailCatcher,
} from '../support/mail-catcher.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { predictBody } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { expectError, expectInvalidRequest, type RestResult, rawRequest, rest } from './client.ts'

/**
 * Free spore keys by email against real PostgreSQL, Redis and a real SMTP server: the answer is the
 * same for every address, the key arrives by mail only, an address that holds a key is sent a notice
 * with a single-use link to roll it, and the hourly limits count every request.
 */
let db: TestDatabase
let server: TestServer
let mail: MailCatcher

beforeAll(async () => {
  mail = await startMailCatcher()
  db = await createSeededDatabase()
  server = await startTestServer({
    database: db,
    keyCacheMs: 0,
    sporeKeysPerAddressPerHour: 3,
    sporeKeysPerHour: 6,
    mail: mailEnv(mail),
  })
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
  await mail?.close()
})

let emailCounter = 0
const freshEmail = () => `holder-${Date.now()}-${++emailCounter}@example.org`
let addressCounter = 0
/** A loopback address of its own for each test, so the hourly allowance of one never spends another's. */
const freshAddress = () => `127.0.1.${++addressCounter}`

/** POST /keys from a given loopback address (the limits go by client address). */
function requestKey(body: unknown, fromAddress: string): Promise<RestResult> {
  const agent = new Agent({ localAddress: fromAddress, keepAlive: false })
  return rawRequest(
    server.url,
    'POST',
    '/keys',
    { 'content-type': 'application/json' },
    [JSON.stringify(body)],
    agent,
  )
}

async function forgetRequests(): Promise<void> {
  await db.sql`DELETE FROM key_requests`
  await deleteKeysWithPrefix(`${server.quotaPrefix}{issuance}:`)
}

function page(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, { redirect: 'manual', ...init })
}

function confirm(token: string): Promise<Response> {
  return page('/keys/roll', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  })
}

const tokenOf = (link: string) => new URL(link, 'http://x').searchParams.get('token') as string

describe('POST /keys: the key comes by mail', () => {
  beforeEach(forgetRequests)

  it('answers 202 check_your_email, and mails a working spore key to the address', async () => {
    const email = freshEmail()
    const answer = await requestKey({ email, name: 'nursery' }, freshAddress())
    expect(answer.status, answer.text).toBe(202)
    expect(answer.text).toBe('{"status":"check_your_email"}')
    expect(answer.headers.get('cache-control')).toBe('no-store')
    const message = await mail.next(email)
    expect(message.from).toContain('keys@example.org')
    expect(message.subject).toMatch(/key/i)
    const key = await keyWritten(db.sql, keyIn(message))
    const predicted = await rest(server.url, 'POST', '/v1/predict', { key, json: predictBody() })
    expect(predicted.status, predicted.text).toBe(200)
    expect(predicted.headers.get('x-ratelimit-limit')).toBe('100')
    const [row] = await db.sql`SELECT * FROM api_keys WHERE email = ${email}`
    expect(row).toMatchObject({ tier: 'spore', status: 'active', name: 'nursery' })
    expect(JSON.stringify(row)).not.toContain(key)
    // The key.issued event is written when the address has the key, by that key.
    const [event] = await db.sql`SELECT kind, key_id FROM audit_events WHERE account_id = ${row?.id}`
    expect(event).toMatchObject({ kind: 'key.issued', keyId: row?.id })
  })

  it('never shows the key on the answer, and writes no key until the mail server has accepted it', async () => {
    const email = freshEmail()
    const answer = await requestKey({ email }, freshAddress())
    expect(answer.text).not.toMatch(/tsp_live_/)
    await mail.next(email)
    // The request is marked sent once the mail server's acceptance is back: just after the mail arrives.
    const state = async () =>
      (await db.sql`SELECT state, outcome FROM key_requests WHERE email = ${email}`)[0]
    expect(await eventually(async () => (await state())?.state === 'sent')).toBe(true)
    expect(await state()).toMatchObject({ state: 'sent', outcome: 'key' })
  })

  it('treats an address in any case as one address, and keeps +tags as addresses of their own', async () => {
    const tagged = `Forester+Spring-${Date.now()}@Example.ORG`
    expect((await requestKey({ email: tagged }, freshAddress())).status).toBe(202)
    const first = await mail.next(tagged.toLowerCase())
    expect(first.recipients).toEqual([tagged.toLowerCase()])
    keyIn(first)
    // The same address in other letters: a notice, not a second key.
    expect((await requestKey({ email: tagged.toUpperCase() }, freshAddress())).status).toBe(202)
    const notice = await mail.next(tagged.toLowerCase())
    expect(notice.text).not.toMatch(/tsp_live_/)
    rollLinkIn(notice)
    // Without the tag it is another address, with its own key.
    const untagged = tagged.replace(/\+[^@]*/, '').toLowerCase()
    expect((await requestKey({ email: untagged }, freshAddress())).status).toBe(202)
    keyIn(await mail.next(untagged))
  })

  it.each([
    ['a missing email', {}, 'email'],
    ['an address without @', { email: 'not-an-address' }, 'email'],
    ['a number', { email: 42 }, 'email'],
    ['an empty name', { email: 'ok@example.org', name: '  ' }, 'name'],
    ['an unknown field', { email: 'ok@example.org', tier: 'hypha' }, 'tier'],
  ])('refuses %s with 400 invalid_request naming the field', async (_label, body, field) => {
    expectInvalidRequest(await requestKey(body, freshAddress()), field)
  })

  it('needs no key and is not counted against one', async () => {
    const result = await requestKey({ email: freshEmail() }, freshAddress())
    expect(result.status).toBe(202)
    expect(result.headers.get('x-ratelimit-limit')).toBeNull()
  })
})

describe('an address that already holds a key', () => {
  beforeEach(forgetRequests)

  it('is sent a notice with a link; the link asks first, then rolls the key and mails the new one', async () => {
    const email = freshEmail()
    await requestKey({ email }, freshAddress())
    const oldKey = await keyWritten(db.sql, keyIn(await mail.next(email)))
    const again = await requestKey({ email }, freshAddress())
    expect(again.text).toBe('{"status":"check_your_email"}')
    const link = rollLinkIn(await mail.next(email))

    // Opening the link (as a mail scanner would) changes nothing.
    const opened = await page(link)
    expect(opened.status).toBe(200)
    expect(opened.headers.get('content-type')).toMatch(/^text\/html/)
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer')
    expect(opened.headers.get('cache-control')).toBe('no-store')
    const html = await opened.text()
    expect(html).toContain('<form method="post" action="/keys/roll">')
    expect((await rest(server.url, 'GET', '/v1/usage', { key: oldKey })).status).toBe(200)

    const confirmed = await confirm(tokenOf(link))
    expect(confirmed.status).toBe(200)
    expect(await confirmed.text()).not.toMatch(/tsp_live_/)
    const rolled = await mail.next(email)
    const newKey = await keyWritten(db.sql, keyIn(rolled))
    expect(newKey).not.toBe(oldKey)
    expectError(await rest(server.url, 'GET', '/v1/usage', { key: oldKey }), 401, 'invalid_api_key')
    expect((await rest(server.url, 'GET', '/v1/usage', { key: newKey })).status).toBe(200)
    const kinds = await db.sql`
      SELECT e.kind FROM audit_events e JOIN api_keys k ON k.account_id = e.account_id
      WHERE k.email = ${email} AND k.status = 'active' ORDER BY e.created_at`
    expect(kinds.map((row) => row.kind)).toEqual(['key.issued', 'key.rotated'])
  })

  it('a link works once: used again it answers 410 and rolls nothing', async () => {
    const email = freshEmail()
    await requestKey({ email }, freshAddress())
    await mail.next(email)
    await requestKey({ email }, freshAddress())
    const token = tokenOf(rollLinkIn(await mail.next(email)))
    expect((await confirm(token)).status).toBe(200)
    const newKey = await keyWritten(db.sql, keyIn(await mail.next(email)))
    const twice = await confirm(token)
    expect(twice.status).toBe(410)
    expect(await twice.text()).toContain('already used')
    expect((await page(`/keys/roll?token=${token}`)).status).toBe(410)
    expect((await rest(server.url, 'GET', '/v1/usage', { key: newKey })).status).toBe(200)
  })

  it('an expired link answers 410, and a link never sent 404', async () => {
    const email = freshEmail()
    await requestKey({ email }, freshAddress())
    await mail.next(email)
    await requestKey({ email }, freshAddress())
    const token = tokenOf(rollLinkIn(await mail.next(email)))
    await db.sql`UPDATE key_roll_links SET expires_at = now() - interval '1 second' WHERE email = ${email}`
    const expired = await confirm(token)
    expect(expired.status).toBe(410)
    expect(await expired.text()).toContain('expired')
    expect((await page(`/keys/roll?token=${'A'.repeat(43)}`)).status).toBe(404)
    expect((await page('/keys/roll?token=%3Cscript%3E')).status).toBe(404)
    expect((await page('/keys/roll', { method: 'DELETE' })).status).toBe(405)
  })
})

describe('the same answer, whatever the address', () => {
  let roomy: TestServer
  beforeAll(async () => {
    // Limits that 100 requests from one address do not reach: only the answers are compared here.
    roomy = await startTestServer({
      database: db,
      sporeKeysPerAddressPerHour: 1000,
      sporeKeysPerHour: 100_000,
      mail: mailEnv(mail),
    })
  })
  afterAll(() => roomy?.close())

  it('answers new and known addresses with the same bytes, in the same time (medians of 50 within 20 %)', async () => {
    const ask = (email: string) =>
      rawRequest(roomy.url, 'POST', '/keys', { 'content-type': 'application/json' }, [
        JSON.stringify({ email }),
      ])
    const known = freshEmail()
    await ask(known)
    await mail.next(known)
    // A few of each first, so neither kind meets a cold path.
    for (let i = 0; i < 5; i++) await Promise.all([ask(known), ask(freshEmail())])
    const bodies = new Set<string>()
    const headerNames = new Set<string>()
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
    // Alternating, so drift in the machine's speed falls on both alike; each from its own address.
    const measure = async () => {
      const timings = { known: [] as number[], fresh: [] as number[] }
      for (let i = 0; i < 50; i++) {
        for (const kind of ['known', 'fresh'] as const) {
          const email = kind === 'known' ? known : freshEmail()
          const started = performance.now()
          const answer = await ask(email)
          timings[kind].push(performance.now() - started)
          expect(answer.status).toBe(202)
          bodies.add(answer.text)
          headerNames.add(
            [...answer.headers.keys()].filter((name) => !['date', 'request-id'].includes(name)).join(','),
          )
        }
      }
      return { known: median(timings.known), fresh: median(timings.fresh) }
    }
    // A busy machine can stretch one run's medians apart; a path that differs does so in every run.
    let medians = await measure()
    for (let run = 1; run < 3 && Math.abs(medians.known / medians.fresh - 1) >= 0.2; run++)
      medians = await measure()
    expect([...bodies]).toEqual(['{"status":"check_your_email"}'])
    expect(headerNames.size).toBe(1)
    const ratio = medians.known / medians.fresh
    expect(ratio, JSON.stringify(medians)).toBeGreaterThan(0.8)
    expect(ratio, JSON.stringify(medians)).toBeLessThan(1.2)
  }, 120_000)
})

describe('hourly limits: every request counts', () => {
  beforeEach(forgetRequests)

  it('takes 3 requests an hour from one client address, then 429 with Retry-After', async () => {
    const address = freshAddress()
    for (let i = 0; i < 3; i++) expect((await requestKey({ email: freshEmail() }, address)).status).toBe(202)
    const refused = await requestKey({ email: freshEmail() }, address)
    expectError(refused, 429, 'rate_limit_exceeded')
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(3500)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    expect((await requestKey({ email: freshEmail() }, freshAddress())).status).toBe(202)
  })

  it('asking again for a known address spends the allowance too, so asking is bounded', async () => {
    const email = freshEmail()
    const address = freshAddress()
    for (let i = 0; i < 3; i++) expect((await requestKey({ email }, address)).status).toBe(202)
    expectError(await requestKey({ email }, address), 429, 'rate_limit_exceeded')
  })

  it('stops every address at the hourly ceiling of 6', async () => {
    for (let i = 0; i < 6; i++)
      expect((await requestKey({ email: freshEmail() }, freshAddress())).status).toBe(202)
    const refused = await requestKey({ email: freshEmail() }, freshAddress())
    expectError(refused, 429, 'rate_limit_exceeded')
    expect((refused.body as { error: { message: string } }).error.message).toMatch(/hourly ceiling of 6/)
  })

  it('a flood of 1,000 requests from one address, with any bodies, records at most the allowed and never a 5xx', async () => {
    const bodies = fc.sample(
      fc.oneof(
        fc.record({ email: fc.emailAddress(), name: fc.option(fc.string(), { nil: undefined }) }),
        fc.anything(),
        fc.record({ email: fc.string() }),
      ),
      { numRuns: 1000, seed: 11 },
    )
    const statuses = new Map<number, number>()
    const agent = new Agent({ localAddress: freshAddress(), keepAlive: true, maxSockets: 16 })
    for (let start = 0; start < bodies.length; start += 50) {
      const results = await Promise.all(
        bodies
          .slice(start, start + 50)
          .map((body) =>
            rawRequest(
              server.url,
              'POST',
              '/keys',
              { 'content-type': 'application/json' },
              [JSON.stringify(body) ?? 'null'],
              agent,
            ),
          ),
      )
      for (const result of results) statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1)
    }
    agent.destroy()
    expect(
      [...statuses.keys()].every((status) => status < 500),
      JSON.stringify([...statuses]),
    ).toBe(true)
    expect(statuses.get(202) ?? 0).toBeLessThanOrEqual(3)
    const [recorded] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM key_requests`
    expect(recorded?.n).toBe(statuses.get(202) ?? 0)
  }, 60_000)
})
