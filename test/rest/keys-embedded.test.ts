import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { expectError, rest } from './client.ts'

/**
 * The key lifecycle on the embedded path (PGlite and the in-process quota store, as `npm start` runs
 * without configuration): the same SQL for issuance limits, rotation grace, expiry and the usage ledger.
 * Catalogue endpoints need no site data, so the store is migrated but not seeded.
 */
let db: Database
let server: TestServer

beforeAll(async () => {
  db = await openDatabase({ DATABASE_URL: undefined, DB_POOL_MAX: 1 })
  expect(db.mode).toBe('embedded')
  await migrate(db.sql)
  server = await startTestServer({
    database: db,
    quota: 'memory',
    keyCacheMs: 0,
    sporeKeysPerAddressPerHour: 3,
  })
}, 120_000)

afterAll(async () => {
  await server?.close()
  await db?.close()
})

describe('keys on the embedded store', () => {
  it('issues spore keys on request up to the per-address limit, one per email; a 409 spends the allowance too', async () => {
    const first = await rest(server.url, 'POST', '/keys', { json: { email: 'one@example.org' } })
    expect(first.status, first.text).toBe(201)
    expectError(
      await rest(server.url, 'POST', '/keys', { json: { email: 'ONE@example.org' } }),
      409,
      'key_exists',
    )
    expect((await rest(server.url, 'POST', '/keys', { json: { email: 'two@example.org' } })).status).toBe(201)
    // Three requests answered (201, 409, 201): the address's allowance of 3 is spent.
    expectError(
      await rest(server.url, 'POST', '/keys', { json: { email: 'three@example.org' } }),
      429,
      'rate_limit_exceeded',
    )
    const { key } = first.body as { key: string }
    expect((await rest(server.url, 'GET', '/v1/methods', { key })).status).toBe(200)
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
})
