import { describe, expect, it } from 'vitest'
import { TIERS } from '../../../test/support/fakes.ts'
import type { KeyDirectory } from '../../domain/ports/keys.ts'
import type { ApiKeyRecord, KeyStatus } from '../../types.ts'
import { generateApiKey, generateKeyId, hashApiKey } from '../api-key.ts'
import { Authenticator } from './authenticator.ts'

const AN_HOUR = 3_600_000

/** One key whose record a test changes, and whose lookups it can hold back. */
function oneKeyDirectory() {
  const key = generateApiKey()
  const at = new Date('2026-01-01T00:00:00Z')
  const record: ApiKeyRecord = {
    id: generateKeyId(),
    tier: 'mycel',
    status: 'active',
    name: null,
    keyHint: key.slice(-4),
    rotatedTo: null,
    accountId: 'acct',
    expiresAt: null,
    lastUsedAt: null,
    createdAt: at,
    updatedAt: at,
  }
  let held: Promise<void> | null = null
  const directory = {
    lookups: 0,
    async findByHash(hash: string) {
      directory.lookups += 1
      // The row as it stands when the query starts; the answer may arrive later.
      const snapshot = hash === hashApiKey(key) ? { ...record } : null
      if (held) await held
      return snapshot
    },
    async findById(id: string) {
      return id === record.id ? { ...record } : null
    },
    async tiers() {
      return Object.values(TIERS)
    },
  } satisfies KeyDirectory & { lookups: number }
  return {
    key,
    record,
    directory,
    set(status: KeyStatus, expiresAt: Date | null = record.expiresAt) {
      record.status = status
      record.expiresAt = expiresAt
    },
    hold() {
      let release = () => {}
      held = new Promise((resolve) => {
        release = () => {
          held = null
          resolve()
        }
      })
      return release
    },
  }
}

describe('Authenticator', () => {
  it('serves a key from its cache until the key is forgotten, then reads it afresh', async () => {
    const keys = oneKeyDirectory()
    const auth = new Authenticator(keys.directory, { keyCacheMs: 60_000 })
    await auth.authenticate(keys.key)
    keys.set('revoked')
    await expect(auth.authenticate(keys.key)).resolves.toMatchObject({ keyId: keys.record.id })
    expect(keys.directory.lookups).toBe(1)

    auth.forget(keys.record.id)
    await expect(auth.authenticate(keys.key)).rejects.toMatchObject({ code: 'invalid_api_key' })
    expect(keys.directory.lookups).toBe(2)
  })

  it('forgetting another key leaves this one cached', async () => {
    const keys = oneKeyDirectory()
    const auth = new Authenticator(keys.directory, { keyCacheMs: 60_000 })
    await auth.authenticate(keys.key)
    auth.forget('key_someone_else')
    await auth.authenticate(keys.key)
    expect(keys.directory.lookups).toBe(1)
  })

  it('forgetAll drops every cached key (changes may have been missed)', async () => {
    const keys = oneKeyDirectory()
    const auth = new Authenticator(keys.directory, { keyCacheMs: 60_000 })
    await auth.authenticate(keys.key)
    keys.set('inactive')
    auth.forgetAll()
    await expect(auth.authenticate(keys.key)).rejects.toMatchObject({ code: 'key_inactive' })
  })

  it('a lookup that began before a change neither fills the cache nor answers requests made after it', async () => {
    const keys = oneKeyDirectory()
    const auth = new Authenticator(keys.directory, { keyCacheMs: 60_000 })
    const release = keys.hold()
    const before = auth.authenticate(keys.key)
    keys.set('revoked')
    auth.forget(keys.record.id)
    const after = auth.authenticate(keys.key)
    release()
    // The request that arrived first was answered as the key stood when it arrived.
    await expect(before).resolves.toMatchObject({ keyId: keys.record.id })
    await expect(after).rejects.toMatchObject({ code: 'invalid_api_key' })
    await expect(auth.authenticate(keys.key)).rejects.toMatchObject({ code: 'invalid_api_key' })
    expect(keys.directory.lookups).toBe(2)
  })

  it('concurrent requests with the same key share one lookup', async () => {
    const keys = oneKeyDirectory()
    const auth = new Authenticator(keys.directory, { keyCacheMs: 60_000 })
    const release = keys.hold()
    const calls = [auth.authenticate(keys.key), auth.authenticate(keys.key), auth.authenticate(keys.key)]
    release()
    await Promise.all(calls)
    expect(keys.directory.lookups).toBe(1)
  })

  it('the first answer after a rotation with grace carries the new end of the key', async () => {
    const now = Date.parse('2026-11-24T12:00:00Z')
    const keys = oneKeyDirectory()
    const auth = new Authenticator(keys.directory, { keyCacheMs: 60_000, now: () => now })
    await expect(auth.authenticate(keys.key)).resolves.toMatchObject({ expiresAt: null })
    const graceEnd = new Date(now + AN_HOUR)
    keys.set('rotated', graceEnd)
    auth.forget(keys.record.id)
    await expect(auth.authenticate(keys.key)).resolves.toMatchObject({ expiresAt: graceEnd })
  })

  it('without any notice, the cache lifetime is the backstop', async () => {
    let now = Date.parse('2026-11-24T12:00:00Z')
    const keys = oneKeyDirectory()
    const auth = new Authenticator(keys.directory, { keyCacheMs: 2000, now: () => now })
    await auth.authenticate(keys.key)
    keys.set('inactive')
    now += 1999
    await expect(auth.authenticate(keys.key)).resolves.toBeDefined()
    now += 1
    await expect(auth.authenticate(keys.key)).rejects.toMatchObject({ code: 'key_inactive' })
  })
})
