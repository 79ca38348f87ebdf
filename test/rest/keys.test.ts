import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from '../../src/db/keys.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { predictBody } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { expectError, expectInvalidRequest, rest } from './client.ts'

const HOUR_MS = 3_600_000

/**
 * The key lifecycle over HTTP against real PostgreSQL and Redis: self-service spore keys and their
 * issuance limits, rolling a key with a grace period, expiry, and usage. The server's clock can be
 * moved forward (`clock.offsetMs`) to let grace periods and expiries run out.
 */
let db: TestDatabase
let server: TestServer
const clock = { offsetMs: 0 }

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({
    database: db,
    keyCacheMs: 0,
    now: () => new Date(Date.now() + clock.offsetMs),
    sporeKeysPerAddressPerHour: 3,
    sporeKeysPerHour: 6,
  })
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

describe('POST /v1/keys/rotate: rolling a key with a grace period', () => {
  it('issues the replacement at once; the old key works until the grace ends, then answers rotated', async () => {
    const old = await createKey(db.sql, { tier: 'mycel' })
    const rolled = await rest(server.url, 'POST', '/v1/keys/rotate', {
      key: old.key,
      json: { grace_seconds: 3600 },
    })
    expect(rolled.status, rolled.text).toBe(201)
    expect(rolled.headers.get('cache-control')).toBe('no-store')
    const body = rolled.body as {
      id: string
      key: string
      tier: string
      previous_key: { id: string; works_until: string }
    }
    expect(body).toMatchObject({ tier: 'mycel', status: 'active', previous_key: { id: old.id } })
    const worksUntil = new Date(body.previous_key.works_until).getTime()
    expect(Math.abs(worksUntil - (Date.now() + HOUR_MS))).toBeLessThan(60_000)

    const fresh = await rest(server.url, 'POST', '/v1/predict', { key: body.key, json: predictBody() })
    expect(fresh.status).toBe(200)
    expect(fresh.headers.get('api-key-expires')).toBeNull()
    const during = await rest(server.url, 'POST', '/v1/predict', { key: old.key, json: predictBody() })
    expect(during.status).toBe(200)
    expect(new Date(during.headers.get('api-key-expires') ?? '').getTime()).toBe(
      Math.floor(worksUntil / 1000) * 1000,
    )

    // Only the replacement can be rolled again.
    expectError(await rest(server.url, 'POST', '/v1/keys/rotate', { key: old.key }), 409, 'key_rotated')

    clock.offsetMs = HOUR_MS + 60_000
    try {
      const after = await rest(server.url, 'POST', '/v1/predict', { key: old.key, json: predictBody() })
      const error = expectError(after, 401, 'invalid_api_key')
      expect(error.message).toMatch(/rotated/)
      expect(
        (await rest(server.url, 'POST', '/v1/predict', { key: body.key, json: predictBody() })).status,
      ).toBe(200)
    } finally {
      clock.offsetMs = 0
    }
  })

  it('without a body the old key stops at once, and it cannot be rolled twice', async () => {
    const old = await createKey(db.sql, { tier: 'hypha' })
    const rolled = await rest(server.url, 'POST', '/v1/keys/rotate', { key: old.key })
    expect(rolled.status, rolled.text).toBe(201)
    expectError(await rest(server.url, 'GET', '/v1/methods', { key: old.key }), 401, 'invalid_api_key')
    expectError(await rest(server.url, 'POST', '/v1/keys/rotate', { key: old.key }), 401, 'invalid_api_key')
  })

  it('keeps one daily counter for the old and the new key', async () => {
    const old = await createKey(db.sql, { tier: 'spore' })
    await rest(server.url, 'GET', '/v1/methods', { key: old.key })
    const rolled = await rest(server.url, 'POST', '/v1/keys/rotate', {
      key: old.key,
      json: { grace_seconds: 600 },
    })
    const { key: fresh } = rolled.body as { key: string }
    const viaNew = await rest(server.url, 'GET', '/v1/methods', { key: fresh })
    expect(viaNew.headers.get('x-ratelimit-remaining')).toBe('97')
    const viaOld = await rest(server.url, 'GET', '/v1/methods', { key: old.key })
    expect(viaOld.headers.get('x-ratelimit-remaining')).toBe('96')
  })

  it.each([
    [{ grace_seconds: 86_401 }, 'grace_seconds'],
    [{ grace_seconds: -1 }, 'grace_seconds'],
    [{ grace_seconds: 1.5 }, 'grace_seconds'],
    [{ grace_seconds: '60' }, 'grace_seconds'],
    [{ grace: 60 }, 'grace'],
  ])('refuses %j with 400 invalid_request and leaves the key alone', async (json, field) => {
    const old = await createKey(db.sql, { tier: 'mycel' })
    expectInvalidRequest(await rest(server.url, 'POST', '/v1/keys/rotate', { key: old.key, json }), field)
    expect((await rest(server.url, 'GET', '/v1/methods', { key: old.key })).status).toBe(200)
  })
})

describe('expiry', () => {
  it('an expired key answers 401 invalid_api_key saying it expired', async () => {
    const issued = await createKey(db.sql, { tier: 'mycel', expiresAt: new Date(Date.now() - 1000) })
    const error = expectError(
      await rest(server.url, 'GET', '/v1/methods', { key: issued.key }),
      401,
      'invalid_api_key',
    )
    expect(error.message).toMatch(/expired/)
  })

  it('a key that expires within 14 days says when, on every answer; one that expires later does not', async () => {
    const soon = new Date(Date.now() + 3 * 86_400_000)
    const expiring = await createKey(db.sql, { tier: 'mycel', expiresAt: soon })
    const result = await rest(server.url, 'GET', '/v1/species', { key: expiring.key })
    expect(result.status).toBe(200)
    expect(result.headers.get('api-key-expires')).toBe(
      new Date(Math.floor(soon.getTime() / 1000) * 1000).toUTCString(),
    )
    const later = await createKey(db.sql, {
      tier: 'mycel',
      expiresAt: new Date(Date.now() + 30 * 86_400_000),
    })
    expect(
      (await rest(server.url, 'GET', '/v1/species', { key: later.key })).headers.get('api-key-expires'),
    ).toBeNull()
  })

  it('says so on the 429 as well, when the day’s quota runs out', async () => {
    const expiring = await createKey(db.sql, { tier: 'spore', expiresAt: new Date(Date.now() + 86_400_000) })
    for (let i = 0; i < 100; i++) await rest(server.url, 'GET', '/v1/methods', { key: expiring.key })
    const refused = await rest(server.url, 'GET', '/v1/methods', { key: expiring.key })
    expectError(refused, 429, 'rate_limit_exceeded')
    expect(refused.headers.get('api-key-expires')).toBeTruthy()
  })

  it('stops working when its time comes', async () => {
    const issued = await createKey(db.sql, { tier: 'mycel', expiresAt: new Date(Date.now() + HOUR_MS) })
    expect((await rest(server.url, 'GET', '/v1/methods', { key: issued.key })).status).toBe(200)
    clock.offsetMs = HOUR_MS + 1000
    try {
      expectError(await rest(server.url, 'GET', '/v1/methods', { key: issued.key }), 401, 'invalid_api_key')
    } finally {
      clock.offsetMs = 0
    }
  })
})

describe('GET /v1/usage', () => {
  it('shows the key, its limits, today and 30 days of history; it counts as a request', async () => {
    const issued = await createKey(db.sql, { tier: 'spore', name: 'usage test' })
    for (let i = 0; i < 3; i++) await rest(server.url, 'GET', '/v1/methods', { key: issued.key })
    const result = await rest(server.url, 'GET', '/v1/usage', { key: issued.key })
    expect(result.status, result.text).toBe(200)
    const usage = result.body as {
      key: Record<string, unknown>
      limits: Record<string, unknown>
      today: { used: number; remaining: number; resets_at: string }
      history: { date: string; requests: number }[]
    }
    expect(usage.key).toMatchObject({
      id: issued.id,
      tier: 'spore',
      status: 'active',
      name: 'usage test',
      expires_at: null,
    })
    expect(usage.key.last_used_at).not.toBeNull()
    expect(usage.limits).toEqual({ requests_per_day: 100, batch_size: 10 })
    expect(usage.today).toMatchObject({ used: 4, remaining: 96 })
    expect(result.headers.get('x-ratelimit-remaining')).toBe('96')
    expect(usage.history).toHaveLength(30)
    const today = new Date().toISOString().slice(0, 10)
    expect(usage.history.at(-1)).toEqual({ date: today, requests: 4 })
    expect(usage.history.slice(0, -1).every((day) => day.requests === 0)).toBe(true)
  })

  it('writes the counts and the key’s last use to PostgreSQL within the flush interval', async () => {
    const issued = await createKey(db.sql, { tier: 'mycel' })
    await rest(server.url, 'GET', '/v1/methods', { key: issued.key })
    await rest(server.url, 'GET', '/v1/methods', { key: issued.key })
    const written = await eventually(async () => {
      const [row] = await db.sql<{ requests: number }[]>`
        SELECT requests::int FROM key_usage_daily WHERE account_id = ${issued.id}`
      return row?.requests === 2
    }, 5000)
    expect(written).toBe(true)
    const [key] = await db.sql<
      { lastUsedAt: Date | null }[]
    >`SELECT last_used_at FROM api_keys WHERE id = ${issued.id}`
    expect(key?.lastUsedAt).toBeInstanceOf(Date)
  })

  it('needs a key', async () => {
    expectError(await rest(server.url, 'GET', '/v1/usage'), 401, 'invalid_api_key')
  })
})
