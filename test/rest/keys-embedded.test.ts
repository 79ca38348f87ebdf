import { Agent } from 'node:http'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { hashApiKey } from '../../src/access/api-key.ts'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { addressTag } from '../../src/domain/audit-service.ts'
import { hashClientAddress } from '../../src/domain/key-service.ts'
import { TEST_ADDRESS_HASH_KEY } from '../support/address-hash-key.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { eventually } from '../support/waiting.ts'
import { expectError, rawRequest, rest } from './client.ts'

/**
 * The key lifecycle on the embedded path (PGlite and the in-process quota store, as `npm start` runs
 * without configuration): the same SQL for key requests and their hourly limits, rolling by link and
 * by rotation with grace, expiry, the usage ledger and the audit log. Without SMTP_URL the embedded
 * store writes each key mail to the log instead of sending it, so the key is read from there; with
 * DATABASE_URL and no SMTP_URL the door is off, and mail settings that cannot work stop the server.
 * Catalogue endpoints need no site data, so the store is migrated but not seeded.
 */
let db: Database
let server: TestServer
/** The in-process server's log lines, parsed. */
const lines: Record<string, unknown>[] = []

beforeAll(async () => {
  db = await openDatabase({ DATABASE_URL: undefined, DB_POOL_MAX: 1 })
  expect(db.mode).toBe('embedded')
  await migrate(db.sql)
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  server = await startTestServer({
    database: db,
    quota: 'memory',
    keyCacheMs: 0,
    sporeKeysPerAddressPerHour: 3,
    logger: pino({ level: 'info' }, sink),
  })
}, 120_000)

afterAll(async () => {
  await server?.close()
  await db?.close()
})

const KEY = /tsp_live_[0-9a-f]{32}/
const ROLL_TOKEN = /\/keys\/roll\?token=([A-Za-z0-9_-]{43})/

/** A key mail the log sender wrote, as the log line holds it. */
interface LoggedMail {
  to: string
  subject: string
  text: string
}

/** The key mails in log lines (pino's JSON, each line one object). */
function loggedMail(logLines: readonly Record<string, unknown>[]): LoggedMail[] {
  return logLines.flatMap((line) => {
    const mail = line.mail as { to?: string; subject?: string } | undefined
    if (!mail?.to || typeof line.msg !== 'string' || !line.msg.startsWith('mail not sent')) return []
    return [{ to: mail.to, subject: mail.subject ?? '', text: line.msg }]
  })
}

const taken = new Set<string>()

/** The next message to `address` in the in-process server's log not yet taken by another call. */
async function nextLogged(address: string): Promise<LoggedMail> {
  const untaken = () => loggedMail(lines).find((m) => m.to === address && !taken.has(m.text))
  expect(await eventually(() => untaken() !== undefined, 10_000), `no mail to ${address} in the log`).toBe(
    true,
  )
  const found = untaken() as LoggedMail
  taken.add(found.text)
  return found
}

function keyOf(mail: LoggedMail): string {
  const key = KEY.exec(mail.text)?.[0]
  if (!key) throw new Error(`no key in the mail "${mail.subject}":\n${mail.text}`)
  return key
}

/**
 * The id of a key once it is written: the mail goes out first, and the key counts (and works) only
 * once the message was accepted, a moment after it was written to the log.
 */
async function writtenKeyId(sql: Database['sql'], key: string): Promise<string> {
  let id: string | undefined
  const written = await eventually(async () => {
    const [row] = await sql<{ id: string }[]>`SELECT id FROM api_keys WHERE key_hash = ${hashApiKey(key)}`
    id = row?.id
    return id !== undefined
  }, 10_000)
  expect(written, 'the mailed key was never written').toBe(true)
  return id as string
}

/** POST /keys from a given loopback address (the hourly limits go by client address). */
function requestKey(email: string, address = '127.0.0.1') {
  return rawRequest(
    server.url,
    'POST',
    '/keys',
    { 'content-type': 'application/json' },
    [JSON.stringify({ email })],
    new Agent({ localAddress: address, keepAlive: false }),
  )
}

describe('keys on the embedded store, mail written to the log', () => {
  it('mails (here: logs) a spore key per address up to the per-address limit; asking again for a held address sends a notice and spends the allowance too', async () => {
    const first = await requestKey('one@example.org')
    expect(first.status, first.text).toBe(202)
    expect(first.text).toBe('{"status":"check_your_email"}')
    expect(first.headers.get('cache-control')).toBe('no-store')
    const key = keyOf(await nextLogged('one@example.org'))
    await writtenKeyId(db.sql, key)

    // The same address in other letters: the same answer, and a notice with a roll link, no key.
    const again = await requestKey('ONE@example.org')
    expect(again.status, again.text).toBe(202)
    expect(again.text).toBe(first.text)
    const notice = await nextLogged('one@example.org')
    expect(notice.text).not.toMatch(KEY)
    expect(notice.text).toMatch(ROLL_TOKEN)

    expect((await requestKey('two@example.org')).status).toBe(202)
    keyOf(await nextLogged('two@example.org'))
    // Three requests taken (a key, a notice, a key): the address's allowance of 3 is spent.
    expectError(await requestKey('three@example.org'), 429, 'rate_limit_exceeded')
    expect((await rest(server.url, 'GET', '/v1/methods', { key })).status).toBe(200)
  })

  it('a roll link from the notice rolls the key on the embedded store too, and the replacement is logged', async () => {
    const email = 'roller@example.org'
    expect((await requestKey(email, '127.0.0.80')).status).toBe(202)
    const oldKey = keyOf(await nextLogged(email))
    await writtenKeyId(db.sql, oldKey)
    expect((await requestKey(email, '127.0.0.80')).status).toBe(202)
    const token = ROLL_TOKEN.exec((await nextLogged(email)).text)?.[1] as string
    expect(token).toBeTruthy()

    const confirmed = await fetch(`${server.url}/keys/roll`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    })
    expect(confirmed.status).toBe(200)
    const newKey = keyOf(await nextLogged(email))
    expect(newKey).not.toBe(oldKey)
    await writtenKeyId(db.sql, newKey)
    expect((await rest(server.url, 'GET', '/v1/methods', { key: newKey })).status).toBe(200)
    expectError(await rest(server.url, 'GET', '/v1/methods', { key: oldKey }), 401, 'invalid_api_key')
  })

  it('rolls a key with a grace period and reports usage across the rotation', async () => {
    const old = await createKey(db.sql, { tier: 'mycel' })
    await rest(server.url, 'GET', '/v1/methods', { key: old.key })
    const rolled = await rest(server.url, 'POST', '/v1/keys/rotate', {
      key: old.key,
      json: { grace_seconds: 60 },
    })
    expect(rolled.status, rolled.text).toBe(201)
    const { key } = rolled.body as { key: string }
    const during = await rest(server.url, 'GET', '/v1/methods', { key: old.key })
    expect(during.status).toBe(200)
    expect(during.headers.get('api-key-expires')).toBeTruthy()
    const usage = await rest(server.url, 'GET', '/v1/usage', { key })
    expect(usage.status, usage.text).toBe(200)
    expect((usage.body as { history: { requests: number }[] }).history.at(-1)?.requests).toBe(4)
  })

  it('refuses an expired key as expired', async () => {
    const expired = await createKey(db.sql, { tier: 'mycel', expiresAt: new Date(Date.now() - 1000) })
    const error = expectError(
      await rest(server.url, 'GET', '/v1/methods', { key: expired.key }),
      401,
      'invalid_api_key',
    )
    expect(error.message).toMatch(/expired/)
  })

  it('keeps the audit log: the key issued and rolled, with the address tag, a page at a time', async () => {
    const from = (address: string, path: string, key: string | null, body: unknown) =>
      rawRequest(
        server.url,
        'POST',
        path,
        { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
        [JSON.stringify(body)],
        new Agent({ localAddress: address, keepAlive: false }),
      )
    const requested = await from('127.0.0.70', '/keys', null, { email: 'audit@example.org' })
    expect(requested.status, requested.text).toBe(202)
    const issuedKey = keyOf(await nextLogged('audit@example.org'))
    const issued = { key: issuedKey, id: await writtenKeyId(db.sql, issuedKey) }
    const rolled = await from('127.0.0.71', '/v1/keys/rotate', issued.key, { grace_seconds: 0 })
    expect(rolled.status, rolled.text).toBe(201)
    const { key } = rolled.body as { key: string }
    const first = await rest(server.url, 'GET', '/v1/audit?limit=1', { key })
    expect(first.status, first.text).toBe(200)
    const second = await rest(server.url, 'GET', `/v1/audit?limit=1&cursor=${first.body.next_cursor}`, {
      key,
    })
    expect(second.body.next_cursor).toBeNull()
    const tag = (address: string) => addressTag(hashClientAddress(TEST_ADDRESS_HASH_KEY, address), issued.id)
    expect([...first.body.events, ...second.body.events]).toMatchObject([
      { kind: 'key.rotated', actor: 'holder', key_id: issued.id, address_tag: tag('127.0.0.71') },
      { kind: 'key.issued', actor: 'holder', key_id: issued.id, address_tag: tag('127.0.0.70') },
    ])
    expectError(await rest(server.url, 'GET', '/v1/audit?cursor=x', { key }), 400, 'invalid_request')
    for (const secret of [issued.key, key, 'audit@example.org', '127.0.0.70', '127.0.0.71'])
      expect(JSON.stringify(await db.sql`SELECT * FROM audit_events`)).not.toContain(secret)
  })
})

describe('npm start without SMTP_URL, and mail settings that cannot work', () => {
  let running: ServerProcess | undefined
  afterEach(async () => {
    await running?.stop()
    running = undefined
  })

  /** The spawned server's log lines that parse as JSON (pino's). */
  const jsonLines = (output: string) =>
    output.split('\n').flatMap((line) => {
      try {
        const parsed: unknown = JSON.parse(line)
        return parsed && typeof parsed === 'object' ? [parsed as Record<string, unknown>] : []
      } catch {
        return []
      }
    })

  it('embedded store: POST /keys answers 202 and writes the key mail to the log, links pointing at the server itself', async () => {
    running = await startServerProcess({ LOG_LEVEL: 'info' })
    const { url, output } = running
    const ask = (email: string) =>
      fetch(`${url}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      })
    const asked = await ask('Dev@Example.org')
    expect(asked.status).toBe(202)
    expect(await asked.text()).toBe('{"status":"check_your_email"}')
    const mailTo = (n: number) => loggedMail(jsonLines(output())).filter((m) => m.to === 'dev@example.org')[n]
    expect(await eventually(() => mailTo(0) !== undefined, 15_000), output()).toBe(true)
    const key = keyOf(mailTo(0) as LoggedMail)
    // The key works once it is written, a moment after its mail.
    expect(
      await eventually(
        async () => (await fetch(`${url}/v1/methods`, { headers: { 'x-api-key': key } })).status === 200,
        10_000,
        200,
      ),
    ).toBe(true)

    // Asked again: a notice, whose link (no PUBLIC_URL on the embedded store) is this server's own.
    expect((await ask('dev@example.org')).status).toBe(202)
    expect(await eventually(() => mailTo(1) !== undefined, 15_000), output()).toBe(true)
    const notice = mailTo(1) as LoggedMail
    expect(notice.text).not.toMatch(KEY)
    const port = new URL(url).port
    const link = new RegExp(`http://localhost:${port}(/keys/roll\\?token=[A-Za-z0-9_-]{43})`).exec(
      notice.text,
    )?.[1]
    expect(link, notice.text).toBeTruthy()
    expect((await fetch(`${url}${link}`)).status).toBe(200)
  }, 120_000)

  describe('with DATABASE_URL', () => {
    let pg: TestDatabase
    beforeAll(async () => {
      pg = await createTestDatabase()
      await migrate(pg.sql)
    })
    afterAll(() => pg?.drop())

    it('and no SMTP_URL, self-service keys are off: POST /keys and the roll page answer 404', async () => {
      running = await startServerProcess({ DATABASE_URL: pg.url, LOG_LEVEL: 'info' })
      const asked = await rest(running.url, 'POST', '/keys', { json: { email: 'nobody@example.org' } })
      expectError(asked, 404, 'not_found')
      expect((await fetch(`${running.url}/keys/roll?token=${'A'.repeat(43)}`)).status).toBe(404)
      const [requests] = await pg.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM key_requests`
      expect(requests?.n).toBe(0)
      expect(running.output()).not.toMatch(/mail not sent/)
      expect(running.output()).not.toContain('nobody@example.org')
    })

    it('SMTP_URL without PUBLIC_URL: refuses to start, naming PUBLIC_URL', async () => {
      await expect(
        startServerProcess(
          { DATABASE_URL: pg.url, SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'keys@example.org' },
          20_000,
        ),
      ).rejects.toThrow(/PUBLIC_URL: required with SMTP_URL and DATABASE_URL/)
    })
  })

  it('SMTP_URL without MAIL_FROM: refuses to start, naming MAIL_FROM', async () => {
    await expect(startServerProcess({ SMTP_URL: 'smtp://127.0.0.1:2525' }, 20_000)).rejects.toThrow(
      /MAIL_FROM: required with SMTP_URL/,
    )
  })
})
