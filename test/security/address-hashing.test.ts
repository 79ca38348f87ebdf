import { createHash, createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createMigratedDatabase, type RunningApp, raw, startApp } from './support.ts'

/**
 * OWASP API3: the client address a self-service key was issued from is kept only as an HMAC-SHA-256
 * under the server's ADDRESS_HASH_KEY (sql/010_keyed_address_hashes.sql, src/domain/key-service.ts),
 * so a copy of the database cannot be turned back into addresses by hashing the IPv4 space. Two servers
 * configured as `npm start` configures them (loadConfig → serverConfig), each with its own key.
 */
const FIRST_KEY = 'first-address-hash-key-0123456789abcdef-0123456789'
const SECOND_KEY = 'second-address-hash-key-0123456789abcdef-012345678'
const CALLER = '127.0.0.1'

let db: TestDatabase
let first: RunningApp
let second: RunningApp

beforeAll(async () => {
  db = await createMigratedDatabase()
  first = await startApp({ database: db, env: { ADDRESS_HASH_KEY: FIRST_KEY } })
  second = await startApp({ database: db, env: { ADDRESS_HASH_KEY: SECOND_KEY } })
})

afterAll(async () => {
  await first?.close()
  await second?.close()
  await db?.drop()
})

/** Issues a key from 127.0.0.1 and returns what the store kept of the address. */
async function storedAddress(app: RunningApp, email: string): Promise<string | null> {
  const issued = await raw(app.url, 'POST', '/keys', { 'content-type': 'application/json' }, [
    JSON.stringify({ email }),
  ])
  expect(issued.status, issued.text).toBe(201)
  const { id } = JSON.parse(issued.text) as { id: string }
  const [row] = await db.sql<
    { issuedFrom: string | null }[]
  >`SELECT issued_from FROM api_keys WHERE id = ${id}`
  return row?.issuedFrom ?? null
}

describe('API3: client addresses are not reversible', () => {
  it('a key issued with ADDRESS_HASH_KEY stores HMAC-SHA-256(key, address), not SHA-256(address)', async () => {
    const stored = await storedAddress(first, 'hmac-first@example.org')
    expect(stored).toBe(createHmac('sha256', FIRST_KEY).update(CALLER).digest('hex'))
    expect(stored).not.toBe(createHash('sha256').update(CALLER).digest('hex'))
    expect(stored).not.toContain(CALLER)
  })

  it('two different ADDRESS_HASH_KEYs store different values for the same address', async () => {
    const one = await storedAddress(first, 'hmac-one@example.org')
    const other = await storedAddress(second, 'hmac-other@example.org')
    expect(other).toBe(createHmac('sha256', SECOND_KEY).update(CALLER).digest('hex'))
    expect(other).not.toBe(one)
  })
})
