import { createHash } from 'node:crypto'
import { Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashApiKey } from '../../src/access/api-key.ts'
import { createKey, rotateKey, setKeyStatus } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { addressTag } from '../../src/domain/audit-service.ts'
import { hashClientAddress } from '../../src/domain/key-service.ts'
import { TEST_ADDRESS_HASH_KEY } from '../support/address-hash-key.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
import { keyIn, type MailCatcher, mailEnv, startMailCatcher } from '../support/mail-catcher.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { eventually } from '../support/waiting.ts'
import { expectInvalidRequest, type RestResult, rawRequest, rest } from './client.ts'

/**
 * GET /v1/audit against real PostgreSQL, Redis and SMTP: the account's key changes (a spore key mailed, the
 * holder rolling it, an operator's commands) with who, when and the client address as the server keeps
 * it (a keyed hash) and shows it (a tag of the account); paging by cursor; refusals; and what the log
 * must never hold. Another account's view is in test/security/object-level-authorization.test.ts.
 */
let db: TestDatabase
let server: TestServer
let mail: MailCatcher

beforeAll(async () => {
  mail = await startMailCatcher()
  db = await createTestDatabase()
  await migrate(db.sql)
  server = await startTestServer({ database: db, keyCacheMs: 0, mail: mailEnv(mail) })
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
  await mail?.close()
})

interface AuditAnswer {
  events: {
    id: string
    kind: string
    at: string
    actor: 'holder' | 'operator'
    key_id: string | null
    address_tag: string | null
    details: Record<string, unknown>
  }[]
  next_cursor: string | null
}

/** A request from a given loopback address: the audit log keeps who asked, by address. */
function from(address: string, method: string, path: string, key: string | null, body?: unknown) {
  const agent = new Agent({ localAddress: address, keepAlive: false })
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
  if (key) headers['x-api-key'] = key
  return rawRequest(
    server.url,
    method,
    path,
    headers,
    body === undefined ? [] : [JSON.stringify(body)],
    agent,
  )
}

async function audit(key: string, query = ''): Promise<Omit<RestResult, 'body'> & { body: AuditAnswer }> {
  return rest(server.url, 'GET', `/v1/audit${query}`, { key })
}

/** Every event of the account, a page of `limit` at a time, following the cursors. */
async function allPages(key: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = []
  let pages = 0
  let cursor: string | null = null
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const page = await audit(key, query)
    expect(page.status, page.text).toBe(200)
    expect(page.body.events.length).toBeLessThanOrEqual(limit)
    ids.push(...page.body.events.map((event) => event.id))
    cursor = page.body.next_cursor
    pages += 1
  } while (cursor !== null)
  return { ids, pages }
}

const kept = (address: string) => hashClientAddress(TEST_ADDRESS_HASH_KEY, address)

describe('GET /v1/audit: what changed in the account, who did it, when and from where', () => {
  it('records the spore key issued, the holder rolling it and an operator’s commands, newest first', async () => {
    const email = 'Audit.Holder@example.org'
    const requested = await from('127.0.0.61', 'POST', '/keys', null, { email, name: 'nursery' })
    expect(requested.status, requested.text).toBe(202)
    const key = keyIn(await mail.next(email.toLowerCase()))
    // The key is written (and key.issued with it) once the mail server has accepted its message.
    const written = async () =>
      (await db.sql<{ id: string }[]>`SELECT id FROM api_keys WHERE key_hash = ${hashApiKey(key)}`)[0]?.id
    expect(await eventually(async () => (await written()) !== undefined)).toBe(true)
    const issued = { id: (await written()) as string, key }
    const rolled = await from('127.0.0.62', 'POST', '/v1/keys/rotate', issued.key, { grace_seconds: 60 })
    expect(rolled.status, rolled.text).toBe(201)
    const replacement = rolled.body as { id: string; key: string }
    // The operator's key CLI runs these very functions.
    await setKeyStatus(db.sql, replacement.id, 'deactivate')
    await setKeyStatus(db.sql, replacement.id, 'activate')
    const { issued: third } = await rotateKey(db.sql, replacement.id, 0)

    const answer = await audit(third.key)
    expect(answer.status, answer.text).toBe(200)
    const { events, next_cursor } = answer.body
    expect(next_cursor).toBeNull()
    expect(events.map((event) => [event.kind, event.actor])).toEqual([
      ['key.rotated', 'operator'],
      ['key.activated', 'operator'],
      ['key.deactivated', 'operator'],
      ['key.rotated', 'holder'],
      ['key.issued', 'holder'],
    ])
    const [byOperator, activated, deactivated, byHolder, issuance] = events
    expect(issuance).toMatchObject({
      key_id: issued.id,
      address_tag: addressTag(kept('127.0.0.61'), issued.id),
      details: { key_id: issued.id, tier: 'spore' },
    })
    expect(byHolder).toMatchObject({
      key_id: issued.id,
      address_tag: addressTag(kept('127.0.0.62'), issued.id),
      details: { key_id: issued.id, new_key_id: replacement.id, grace_seconds: 60 },
    })
    expect(byHolder?.address_tag).not.toBe(issuance?.address_tag)
    expect(deactivated).toMatchObject({ details: { key_id: replacement.id, previous_status: 'active' } })
    expect(activated).toMatchObject({ details: { key_id: replacement.id, previous_status: 'inactive' } })
    expect(byOperator).toMatchObject({
      key_id: null,
      address_tag: null,
      details: { key_id: replacement.id, new_key_id: third.id, grace_seconds: 0 },
    })
    const times = events.map((event) => Date.parse(event.at))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    expect(Date.now() - (times.at(-1) ?? 0)).toBeLessThan(60_000)

    // What is kept: the HMAC of the address under ADDRESS_HASH_KEY, the very value issuance keeps.
    const rows = await db.sql<{ kind: string; addressHash: string | null }[]>`
      SELECT kind, address_hash FROM audit_events WHERE account_id = ${issued.id} AND actor = 'holder'
      ORDER BY created_at`
    const [issuedFrom] = await db.sql<{ issuedFrom: string }[]>`
      SELECT issued_from FROM api_keys WHERE id = ${issued.id}`
    expect(rows).toEqual([
      { kind: 'key.issued', addressHash: kept('127.0.0.61') },
      { kind: 'key.rotated', addressHash: kept('127.0.0.62') },
    ])
    expect(issuedFrom?.issuedFrom).toBe(kept('127.0.0.61'))

    // No key, key hash, email address or client address, in the table or in the answer.
    const secrets = [
      issued.key,
      replacement.key,
      third.key,
      hashApiKey(issued.key),
      hashApiKey(replacement.key),
      hashApiKey(third.key),
      email,
      email.toLowerCase(),
      '127.0.0.61',
      '127.0.0.62',
      createHash('sha256').update('127.0.0.61').digest('hex'),
      createHash('sha256').update('127.0.0.62').digest('hex'),
    ]
    const table = JSON.stringify(await db.sql`SELECT * FROM audit_events`)
    for (const secret of secrets) {
      expect(table, secret).not.toContain(secret)
      expect(answer.text, secret).not.toContain(secret)
    }
    // The answer shows a tag of the account, never the hash the server keeps.
    for (const hash of [kept('127.0.0.61'), kept('127.0.0.62')]) expect(answer.text).not.toContain(hash)
  })

  it('counts one request against the daily quota, like any /v1 call', async () => {
    const issued = await createKey(db.sql, { tier: 'spore' })
    const first = await audit(issued.key)
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99')
    const second = await audit(issued.key, '?limit=1')
    expect(second.headers.get('x-ratelimit-remaining')).toBe('98')
    expect(second.headers.get('cache-control')).toBe('no-store')
  })

  it('pages every event once, newest first, also while new events arrive', async () => {
    const issued = await createKey(db.sql, { tier: 'mycel' })
    for (let i = 0; i < 6; i++) {
      await setKeyStatus(db.sql, issued.id, 'deactivate')
      await setKeyStatus(db.sql, issued.id, 'activate')
    }
    const stored = await db.sql<{ id: string }[]>`
      SELECT id FROM audit_events WHERE account_id = ${issued.id} ORDER BY created_at DESC, id DESC`
    expect(stored).toHaveLength(13)
    const expected = stored.map((row) => row.id)

    const whole = await audit(issued.key, '?limit=100')
    expect(whole.body.events.map((event) => event.id)).toEqual(expected)
    expect(whole.body.next_cursor).toBeNull()
    expect((await audit(issued.key)).body.events).toHaveLength(13)
    for (const limit of [1, 4, 5, 13]) {
      const { ids, pages } = await allPages(issued.key, limit)
      expect(ids, `limit ${limit}`).toEqual(expected)
      expect(pages, `limit ${limit}`).toBe(Math.ceil(13 / limit))
    }

    // An event added between two pages does not move the pages after the first.
    const first = await audit(issued.key, '?limit=5')
    await setKeyStatus(db.sql, issued.id, 'deactivate')
    await setKeyStatus(db.sql, issued.id, 'activate')
    const ids = first.body.events.map((event) => event.id)
    let cursor = first.body.next_cursor
    while (cursor !== null) {
      const page = await audit(issued.key, `?limit=5&cursor=${encodeURIComponent(cursor)}`)
      ids.push(...page.body.events.map((event) => event.id))
      cursor = page.body.next_cursor
    }
    expect(ids).toEqual(expected)
    const fresh = await audit(issued.key, '?limit=2')
    expect(fresh.body.events.map((event) => event.kind)).toEqual(['key.activated', 'key.deactivated'])
  })

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=', 'limit'],
    ['limit=%205', 'limit'],
    ['limit=1e1', 'limit'],
    ['cursor=', 'cursor'],
    ['cursor=not-a-cursor', 'cursor'],
    ['cursor=%F0%9F%8C%B2', 'cursor'],
    [`cursor=${'A'.repeat(201)}`, 'cursor'],
    [`cursor=${Buffer.from('evt_000000000000000000000000').toString('base64url')}`, 'cursor'],
    ['account_id=key_0000000000000000', 'account_id'],
    ['key_id=key_0000000000000000', 'key_id'],
  ])('refuses ?%s with 400 invalid_request naming %s, and counts it', async (query, field) => {
    const issued = await createKey(db.sql, { tier: 'spore' })
    const refused = await audit(issued.key, `?${query}`)
    expectInvalidRequest(refused, field)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('99')
  })
})
