import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { ApiKeyRecord, AuditActor, DailyUsage } from '../types.ts'
import { dailySeries, hashClientAddress, KeyService, type UsageSource } from './key-service.ts'
import type { KeyAccounts } from './ports/keys.ts'

// Self-service spore keys by email are ./key-mail (spore-key-requests.test.ts, key-mailer.test.ts).

const ADDRESS_HASH_KEY = 'unit-test-address-hash-key-0123456789abcdef'
const NOW = new Date('2026-11-22T12:00:00Z')
const issued = { id: 'key_2', key: 'tsp_live_x', tier: 'spore', status: 'active', expiresAt: null } as const
const record: ApiKeyRecord = {
  id: 'key_1',
  tier: 'spore',
  status: 'active',
  name: 'nursery',
  keyHint: 'abcd',
  rotatedTo: null,
  accountId: 'key_0',
  expiresAt: null,
  lastUsedAt: new Date('2026-11-20T08:00:00Z'),
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:00:00Z'),
}

/** KeyAccounts that rolls (or, once rolled, refuses) and records who asked. */
function accounts(options: { rolled?: boolean } = {}) {
  const rotations: { keyId: string; graceSeconds: number; actor: AuditActor }[] = []
  const fake: KeyAccounts = {
    rotate: async (keyId, graceSeconds, actor) => {
      rotations.push({ keyId, graceSeconds, actor })
      return options.rolled ? null : { issued, previousExpiresAt: NOW }
    },
    findById: async (id) => (id === record.id ? record : null),
  }
  return { fake, rotations }
}

function usageSource(recorded: DailyUsage[] = [], unflushed: Date | null = null) {
  const asked: { accountId: string; fromDay: string }[] = []
  const source: UsageSource = {
    history: async (accountId, fromDay) => {
      asked.push({ accountId, fromDay })
      return recorded
    },
    lastUseOf: () => unflushed,
  }
  return { source, asked }
}

describe('hashClientAddress', () => {
  it('is the HMAC-SHA-256 of the address under the server’s key, never a plain hash', () => {
    expect(hashClientAddress(ADDRESS_HASH_KEY, '203.0.113.9')).toBe(
      createHmac('sha256', ADDRESS_HASH_KEY).update('203.0.113.9').digest('hex'),
    )
    expect(hashClientAddress(ADDRESS_HASH_KEY, '203.0.113.9')).not.toBe(
      createHash('sha256').update('203.0.113.9').digest('hex'),
    )
  })

  it('hashes one address differently under different keys, and different addresses differently', () => {
    const key = 'a'.repeat(32)
    expect(hashClientAddress(key, '198.51.100.1')).toMatch(/^[0-9a-f]{64}$/)
    expect(hashClientAddress(key, '198.51.100.1')).toBe(hashClientAddress(key, '198.51.100.1'))
    expect(hashClientAddress(key, '198.51.100.1')).not.toBe(hashClientAddress('b'.repeat(32), '198.51.100.1'))
    expect(hashClientAddress(key, '198.51.100.1')).not.toBe(hashClientAddress(key, '198.51.100.2'))
  })
})

describe('KeyService.rotate', () => {
  it('rolls the caller’s key as its holder, from the keyed hash of the client address', async () => {
    const { fake, rotations } = accounts()
    const keys = new KeyService(fake, usageSource().source, ADDRESS_HASH_KEY, () => NOW)
    expect(await keys.rotate('key_1', 300, '203.0.113.9')).toEqual({ issued, previousExpiresAt: NOW })
    expect(rotations).toEqual([
      {
        keyId: 'key_1',
        graceSeconds: 300,
        actor: {
          kind: 'holder',
          keyId: 'key_1',
          addressHash: hashClientAddress(ADDRESS_HASH_KEY, '203.0.113.9'),
        },
      },
    ])
    expect(JSON.stringify(rotations)).not.toContain('203.0.113.9')
  })

  it('keeps no address when the connection was gone before it was read', async () => {
    const { fake, rotations } = accounts()
    await new KeyService(fake, usageSource().source, ADDRESS_HASH_KEY).rotate('key_1', 0, undefined)
    expect(rotations[0]?.actor).toEqual({ kind: 'holder', keyId: 'key_1', addressHash: null })
  })

  it('answers key_rotated (409) for a key already rolled or revoked', async () => {
    const keys = new KeyService(accounts({ rolled: true }).fake, usageSource().source, ADDRESS_HASH_KEY)
    await expect(keys.rotate('key_1', 0, '::1')).rejects.toMatchObject({ code: 'key_rotated', status: 409 })
  })
})

describe('KeyService.usage', () => {
  const subject = {
    keyId: 'key_1',
    accountId: 'key_0',
    tier: { name: 'spore', dailyRequestLimit: 100, batchSizeLimit: 10 } as const,
    used: 7,
    remaining: 93,
    resetsAt: new Date('2026-11-23T00:00:00Z'),
  }

  it('reads the account’s last 30 days, with a use not yet written as the last use', async () => {
    const unflushed = new Date('2026-11-22T11:59:00Z')
    const { source, asked } = usageSource([{ day: '2026-11-22', requests: 7 }], unflushed)
    const usage = await new KeyService(accounts().fake, source, ADDRESS_HASH_KEY, () => NOW).usage(subject)
    expect(asked).toEqual([{ accountId: 'key_0', fromDay: '2026-10-24' }])
    expect(usage.key).toMatchObject({ id: 'key_1', tier: 'spore', name: 'nursery', lastUsedAt: unflushed })
    expect(usage.limits).toEqual({ requestsPerDay: 100, batchSize: 10 })
    expect(usage.today).toEqual({ used: 7, remaining: 93, resetsAt: subject.resetsAt })
    expect(usage.history).toHaveLength(30)
    expect(usage.history.at(-1)).toEqual({ day: '2026-11-22', requests: 7 })
  })

  it('answers invalid_api_key for a key that is gone', async () => {
    const keys = new KeyService(accounts().fake, usageSource().source, ADDRESS_HASH_KEY, () => NOW)
    await expect(keys.usage({ ...subject, keyId: 'key_9' })).rejects.toMatchObject({
      code: 'invalid_api_key',
    })
  })
})

describe('dailySeries', () => {
  it('gives 30 UTC days ending today, oldest first, zero where nothing was recorded', () => {
    const series = dailySeries(
      [
        { day: '2026-11-22', requests: 7 },
        { day: '2026-10-24', requests: 2 },
        { day: '2026-10-23', requests: 99 },
      ],
      new Date('2026-11-22T23:59:59Z'),
    )
    expect(series).toHaveLength(30)
    expect(series[0]).toEqual({ day: '2026-10-24', requests: 2 })
    expect(series.at(-1)).toEqual({ day: '2026-11-22', requests: 7 })
    expect(series.reduce((total, d) => total + d.requests, 0)).toBe(9)
  })
})
