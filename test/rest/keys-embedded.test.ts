import { Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { addressTag } from '../../src/domain/audit-service.ts'
import { hashClientAddress } from '../../src/domain/key-service.ts'
import { TEST_ADDRESS_HASH_KEY } from '../support/address-hash-key.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { expectError, rawRequest, rest } from './client.ts'

/**
 * The key lifecycle on the embedded path (PGlite and the in-process quota store, as `npm start` runs
 * without configuration): the same SQL for issuance limits, rotation grace, expiry, the usage ledger and
 * the audit log.
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
    expect(requested.status, requested.text).toBe(201)
    const issued = requested.body as { id: string; key: string }
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
