import { createHash, createHmac } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_ADDRESS_HASH_KEY } from '../support/address-hash-key.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase } from '../support/fixtures.ts'
import { keyIn, type MailCatcher, mailEnv, startMailCatcher } from '../support/mail-catcher.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { eventually } from '../support/waiting.ts'
import { expectError, type RestResult, rest } from './client.ts'

/**
 * The client address behind a load balancer, over HTTP against real PostgreSQL: the test client on
 * 127.0.0.1 plays the proxy, writing X-Forwarded-For (or Forwarded) for the callers it stands for.
 * Self-service keys (5 requests an hour per client address, each mailed; a real SMTP server catches
 * the mail) and the request log go by that address.
 */
let db: TestDatabase
/** TRUST_PROXY=127.0.0.1/8: the loopback peer is our proxy. */
let proxied: TestServer
/** TRUST_PROXY unset: the loopback peer is the client, whatever it writes. */
let direct: TestServer
/** TRUST_PROXY=1, TRUST_PROXY_HEADER=forwarded. */
let forwarded: TestServer
const lines: Record<string, unknown>[] = []
let mail: MailCatcher

beforeAll(async () => {
  mail = await startMailCatcher()
  db = await createSeededDatabase()
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  const logger = pino({ level: 'info' }, sink)
  const common = { database: db, quota: 'memory', explorer: false, logger, mail: mailEnv(mail) } as const
  proxied = await startTestServer({ ...common, trustProxy: ['127.0.0.1/8'] })
  direct = await startTestServer(common)
  forwarded = await startTestServer({ ...common, trustProxy: 1, trustProxyHeader: 'forwarded' })
})

afterAll(async () => {
  await proxied?.close()
  await direct?.close()
  await forwarded?.close()
  await db?.drop()
  await mail?.close()
})

let emailCounter = 0
const freshEmail = () => `proxied-${Date.now()}-${++emailCounter}@example.org`

/** POST /keys through the "proxy" (this test, on 127.0.0.1), with the headers it adds, for a fresh address. */
async function requestKey(
  server: TestServer,
  headers: Record<string, string> = {},
): Promise<RestResult & { email: string }> {
  const email = freshEmail()
  return { ...(await rest(server.url, 'POST', '/keys', { json: { email }, headers })), email }
}

/** The client address a key request for `email` came from, as the store keeps it (a keyed hash). */
async function requestedFrom(email: string): Promise<string | undefined> {
  const [row] = await db.sql<{ hash: string }[]>`
    SELECT issued_from AS hash FROM key_requests WHERE email = ${email}`
  return row?.hash
}

/** The client address the key mailed to `email` was issued to, once the mail is accepted and the key written. */
async function keyIssuedFrom(email: string): Promise<string | undefined> {
  keyIn(await mail.next(email))
  let hash: string | undefined
  await eventually(async () => {
    const [row] = await db.sql<{ hash: string }[]>`
      SELECT issued_from AS hash FROM api_keys WHERE email = ${email}`
    hash = row?.hash
    return hash !== undefined
  })
  return hash
}

/** HMAC-SHA-256 under the servers' ADDRESS_HASH_KEY: what the store keeps of an address. */
const hashOf = (address: string) => createHmac('sha256', TEST_ADDRESS_HASH_KEY).update(address).digest('hex')
const plainHashOf = (address: string) => createHash('sha256').update(address).digest('hex')

async function logLine(requestId: string): Promise<Record<string, unknown>> {
  expect(await eventually(() => lines.some((line) => line.requestId === requestId), 2000, 20)).toBe(true)
  return lines.find((line) => line.requestId === requestId) as Record<string, unknown>
}

describe('behind a trusted proxy (TRUST_PROXY=127.0.0.1/8)', () => {
  it('gives each caller its own 5 key requests an hour, by the address the proxy forwards', async () => {
    for (const caller of ['203.0.113.1', '203.0.113.2']) {
      for (let i = 0; i < 5; i++) {
        const taken = await requestKey(proxied, { 'x-forwarded-for': caller })
        expect(taken.status, taken.text).toBe(202)
        expect(await requestedFrom(taken.email)).toBe(hashOf(caller))
        expect(await requestedFrom(taken.email)).not.toBe(plainHashOf(caller))
      }
      // The sixth is refused; the next caller (the loop goes on) is not.
      expectError(await requestKey(proxied, { 'x-forwarded-for': caller }), 429, 'rate_limit_exceeded')
    }
  })

  it('counts a caller who prepends spoofed addresses as itself', async () => {
    const spoofs = [
      '198.51.100.1',
      '127.0.0.1',
      '10.0.0.1, 127.0.0.5',
      'unknown',
      '203.0.113.11',
      '198.51.100.2',
    ]
    const results: number[] = []
    for (const spoof of spoofs) {
      const result = await requestKey(proxied, { 'x-forwarded-for': `${spoof}, 203.0.113.10` })
      results.push(result.status)
    }
    expect(results).toEqual([202, 202, 202, 202, 202, 429])
    expect((await requestKey(proxied, { 'x-forwarded-for': '203.0.113.10' })).status).toBe(429)
    // The addresses it named were not charged.
    expect((await requestKey(proxied, { 'x-forwarded-for': '203.0.113.11' })).status).toBe(202)
  })

  it('writes the client address into the request log line', async () => {
    const requestId = 'trust-proxy-log-1'
    const response = await rest(proxied.url, 'GET', '/v1/health', {
      headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.30', 'request-id': requestId },
    })
    expect(response.status).toBe(200)
    expect(await logLine(requestId)).toMatchObject({
      msg: 'request',
      route: '/v1/health',
      clientAddress: '203.0.113.30',
    })
  })
})

describe('with TRUST_PROXY unset', () => {
  it('ignores X-Forwarded-For: every request from the loopback peer shares its 5 key requests an hour', async () => {
    const results: number[] = []
    for (let i = 1; i <= 6; i++) {
      const result = await requestKey(direct, { 'x-forwarded-for': `203.0.113.${100 + i}` })
      if (result.status === 202) expect(await requestedFrom(result.email)).toBe(hashOf('127.0.0.1'))
      results.push(result.status)
    }
    expect(results).toEqual([202, 202, 202, 202, 202, 429])
  })

  it('logs the TCP peer as the client', async () => {
    const requestId = 'trust-proxy-log-2'
    await rest(direct.url, 'GET', '/v1/health', {
      headers: { 'x-forwarded-for': '203.0.113.31', forwarded: 'for=203.0.113.32', 'request-id': requestId },
    })
    expect(await logLine(requestId)).toMatchObject({ clientAddress: '127.0.0.1' })
  })
})

describe('Forwarded (TRUST_PROXY=1, TRUST_PROXY_HEADER=forwarded)', () => {
  it('takes the for= the proxy appended on its own header line, and ignores X-Forwarded-For', async () => {
    const requestId = 'trust-proxy-log-3'
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${forwarded.url}/v1/health`, {
        headers: { 'x-forwarded-for': '203.0.113.40', 'request-id': requestId },
      })
      // Two header lines: the caller's own, then the proxy's.
      req.setHeader('forwarded', ['for=198.51.100.9;proto=https', 'for="[2001:db8:cafe::17]:4711"'])
      req.on('response', (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject)
      req.end()
    })
    expect(status).toBe(200)
    expect(await logLine(requestId)).toMatchObject({ clientAddress: '2001:db8:cafe::17' })
  })

  it('ignores X-Forwarded-For when the proxies write Forwarded', async () => {
    const requestId = 'trust-proxy-log-4'
    await rest(forwarded.url, 'GET', '/v1/health', {
      headers: { 'x-forwarded-for': '203.0.113.41', 'request-id': requestId },
    })
    expect(await logLine(requestId)).toMatchObject({ clientAddress: '127.0.0.1' })
  })

  it('charges the key request, and the key it is mailed, to that address', async () => {
    const taken = await requestKey(forwarded, {
      forwarded: 'for="203.0.113.50:1234"',
      'x-forwarded-for': '203.0.113.51',
    })
    expect(taken.status, taken.text).toBe(202)
    expect(await requestedFrom(taken.email)).toBe(hashOf('203.0.113.50'))
    expect(await keyIssuedFrom(taken.email)).toBe(hashOf('203.0.113.50'))
  })
})
