import { createHash, createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { keyIn, type MailCatcher, mailEnv, startMailCatcher } from '../support/mail-catcher.ts'
import { eventually } from '../support/waiting.ts'
import { createMigratedDatabase, type RunningApp, raw, startApp } from './support.ts'

/**
 * OWASP API3: the client address a self-service key was asked from is kept only as an HMAC-SHA-256
 * under the server's ADDRESS_HASH_KEY (sql/010_keyed_address_hashes.sql, src/domain/key-service.ts), on
 * the key request and on the key it is mailed, so a copy of the database cannot be turned back into
 * addresses by hashing the IPv4 space. Two servers configured as `npm start` configures them
 * (loadConfig → serverConfig), each with its own key, sending key mail to a real SMTP server.
 */
const FIRST_KEY = 'first-address-hash-key-0123456789abcdef-0123456789'
const SECOND_KEY = 'second-address-hash-key-0123456789abcdef-012345678'
const CALLER = '127.0.0.1'

let db: TestDatabase
let first: RunningApp
let second: RunningApp
let mail: MailCatcher

beforeAll(async () => {
  mail = await startMailCatcher()
  db = await createMigratedDatabase()
  first = await startApp({ database: db, env: { ADDRESS_HASH_KEY: FIRST_KEY, ...mailEnv(mail) } })
  second = await startApp({ database: db, env: { ADDRESS_HASH_KEY: SECOND_KEY, ...mailEnv(mail) } })
})

afterAll(async () => {
  await first?.close()
  await second?.close()
  await db?.drop()
  await mail?.close()
})

/**
 * Asks for a key from 127.0.0.1 and returns what the store kept of the address: on the request, and on
 * the key once its mail is accepted (the two must agree).
 */
async function storedAddress(app: RunningApp, email: string): Promise<string | null> {
  const asked = await raw(app.url, 'POST', '/keys', { 'content-type': 'application/json' }, [
    JSON.stringify({ email }),
  ])
  expect(asked.status, asked.text).toBe(202)
  const [request] = await db.sql<
    { issuedFrom: string }[]
  >`SELECT issued_from FROM key_requests WHERE email = ${email}`
  keyIn(await mail.next(email))
  const key = async () =>
    (
      await db.sql<{ issuedFrom: string | null }[]>`SELECT issued_from FROM api_keys WHERE email = ${email}`
    )[0]
  expect(await eventually(async () => (await key()) !== undefined)).toBe(true)
  const issuedFrom = (await key())?.issuedFrom ?? null
  expect(issuedFrom).toBe(request?.issuedFrom)
  return issuedFrom
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
