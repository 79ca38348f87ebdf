import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import { hashApiKey, isWellFormedApiKey } from '../access/api-key.ts'
import { createKey, findKeyByHash, KeyStoreError, listKeys, rotateKey, setKeyStatus } from './keys.ts'
import { migrate } from './migrate.ts'

/** The record for a presented key, as the authenticator finds it: malformed input never reaches the database. */
function findKeyByPlaintext(sql: TestDatabase['sql'], presented: string) {
  return isWellFormedApiKey(presented) ? findKeyByHash(sql, hashApiKey(presented)) : Promise.resolve(null)
}

describe('key store (PostgreSQL)', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql)
  })
  afterAll(() => db.drop())

  it('issues tsp_live_ keys and stores only their hash', async () => {
    const issued = await createKey(db.sql, { tier: 'spore', name: 'field team' })
    expect(issued).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      expiresAt: null,
      key: expect.any(String),
      tier: 'spore',
      status: 'active',
    })
    expect(issued.key).toMatch(/^tsp_live_[0-9a-f]{32}$/)
    const [row] = await db.sql`SELECT * FROM api_keys WHERE id = ${issued.id}`
    expect(row?.keyHash).toBe(hashApiKey(issued.key))
    expect(JSON.stringify(row)).not.toContain(issued.key.slice(9))
  })

  it('finds a key by its plaintext and rejects unknown or malformed ones', async () => {
    const issued = await createKey(db.sql, { tier: 'mycel' })
    expect(await findKeyByPlaintext(db.sql, issued.key)).toMatchObject({
      id: issued.id,
      tier: 'mycel',
      status: 'active',
    })
    expect(await findKeyByPlaintext(db.sql, `tsp_live_${'0'.repeat(32)}`)).toBeNull()
    expect(await findKeyByPlaintext(db.sql, issued.key.toUpperCase())).toBeNull()
    expect(await findKeyByPlaintext(db.sql, `${issued.key} `)).toBeNull()
  })

  it('moves keys through their states and refuses to revive rotated or revoked keys', async () => {
    const issued = await createKey(db.sql, { tier: 'hypha' })
    expect((await setKeyStatus(db.sql, issued.id, 'deactivate')).status).toBe('inactive')
    expect((await setKeyStatus(db.sql, issued.id, 'activate')).status).toBe('active')
    const { issued: replacement } = await rotateKey(db.sql, issued.id)
    expect(replacement).toMatchObject({ tier: 'hypha', status: 'active' })
    expect(replacement.key).not.toBe(issued.key)
    expect(await findKeyByPlaintext(db.sql, issued.key)).toMatchObject({
      status: 'rotated',
      rotatedTo: replacement.id,
    })
    await expect(setKeyStatus(db.sql, issued.id, 'activate')).rejects.toThrow(KeyStoreError)
    await expect(rotateKey(db.sql, issued.id)).rejects.toThrow(/rotated/)
    expect((await setKeyStatus(db.sql, replacement.id, 'revoke')).status).toBe('revoked')
    await expect(setKeyStatus(db.sql, replacement.id, 'activate')).rejects.toThrow(/revoked/)
  })

  it('reports an unknown id', async () => {
    await expect(setKeyStatus(db.sql, 'key_0000000000000000', 'revoke')).rejects.toThrow(/no API key with id/)
  })

  it('lists records without any key material', async () => {
    const records = await listKeys(db.sql)
    expect(records.length).toBeGreaterThan(0)
    for (const record of records) expect(Object.keys(record)).not.toContain('keyHash')
  })
})

describe('key format', () => {
  it('accepts exactly tsp_live_ + 32 lowercase hex', () => {
    fc.assert(
      fc.property(fc.string(), (candidate) => {
        expect(isWellFormedApiKey(candidate)).toBe(/^tsp_live_[0-9a-f]{32}$/.test(candidate))
      }),
    )
    expect(isWellFormedApiKey(`tsp_live_${'a'.repeat(32)}`)).toBe(true)
    expect(isWellFormedApiKey(`tsp_test_${'a'.repeat(32)}`)).toBe(false)
  })
})
