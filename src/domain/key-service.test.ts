import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { SporeKeyOutcome, SporeKeyRequest } from '../types.ts'
import { ApiError } from './errors.ts'
import { dailySeries, hashClientAddress, KeyService } from './key-service.ts'
import type { IssuanceAdmission, IssuanceLimiter, KeyAccounts } from './ports.ts'

function accountsAnswering(outcome: SporeKeyOutcome, seen: SporeKeyRequest[] = []): KeyAccounts {
  return {
    issueSporeKey: async (request) => {
      seen.push(request)
      return outcome
    },
    rotate: () => Promise.reject(new Error('unused')),
    findById: async () => null,
  }
}

/** A limiter that admits (or refuses) as told, and records what it was asked. */
function limiterAnswering(admission: IssuanceAdmission = { admitted: true }) {
  const calls: string[] = []
  const limiter: IssuanceLimiter = {
    admit: async (addressHash, limits) => {
      calls.push(`admit ${addressHash} ${limits.perAddressPerHour}/${limits.perHour}`)
      return admission
    },
    issued: async () => {
      calls.push('issued')
    },
    close: async () => {},
  }
  return { limiter, calls }
}

const noUsage = { history: async () => [], lastUseOf: () => null }
const LIMITS = { perAddressPerHour: 5, perHour: 100 }
const ADDRESS_HASH_KEY = 'unit-test-address-hash-key-0123456789abcdef'
const issued = { id: 'key_1', key: 'tsp_live_x', tier: 'spore', status: 'active', expiresAt: null } as const

function service(accounts: KeyAccounts, limiter: IssuanceLimiter = limiterAnswering().limiter) {
  return new KeyService(accounts, noUsage, { limits: LIMITS, limiter, addressHashKey: ADDRESS_HASH_KEY })
}

describe('KeyService.issueSporeKey', () => {
  it('stores the email lower-cased and only an HMAC of the client address under the server’s key', async () => {
    const seen: SporeKeyRequest[] = []
    expect(
      await service(accountsAnswering({ kind: 'issued', key: issued }, seen)).issueSporeKey(
        { email: 'Ana@Example.ORG' },
        '203.0.113.9',
      ),
    ).toBe(issued)
    expect(seen[0]).toMatchObject({
      email: 'ana@example.org',
      name: null,
      perAddressPerHour: 5,
      perHour: 100,
    })
    expect(seen[0]?.issuedFrom).toBe(
      createHmac('sha256', ADDRESS_HASH_KEY).update('203.0.113.9').digest('hex'),
    )
    expect(seen[0]?.issuedFrom).not.toBe(createHash('sha256').update('203.0.113.9').digest('hex'))
    expect(JSON.stringify(seen)).not.toContain('203.0.113.9')
  })

  it('hashes one address differently under different keys, and different addresses differently', () => {
    const key = 'a'.repeat(32)
    expect(hashClientAddress(key, '198.51.100.1')).toMatch(/^[0-9a-f]{64}$/)
    expect(hashClientAddress(key, '198.51.100.1')).toBe(hashClientAddress(key, '198.51.100.1'))
    expect(hashClientAddress(key, '198.51.100.1')).not.toBe(hashClientAddress('b'.repeat(32), '198.51.100.1'))
    expect(hashClientAddress(key, '198.51.100.1')).not.toBe(hashClientAddress(key, '198.51.100.2'))
  })

  it('turns the store’s refusals into key_exists (409) and rate_limit_exceeded (429, Retry-After)', async () => {
    await expect(
      service(accountsAnswering({ kind: 'key_exists' })).issueSporeKey({ email: 'a@b.org' }, '::1'),
    ).rejects.toMatchObject({ code: 'key_exists', status: 409 })
    const limited = service(accountsAnswering({ kind: 'limited', scope: 'address', retryAfterSeconds: 1200 }))
    const error = await limited.issueSporeKey({ email: 'a@b.org' }, '::1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      code: 'rate_limit_exceeded',
      status: 429,
      headers: { 'retry-after': '1200' },
    })
    expect((error as ApiError).message).toMatch(/5 keys an hour/)
  })

  it('asks the limiter first, with the keyed hash: a refusal is the same 429 and never reaches the store', async () => {
    const seen: SporeKeyRequest[] = []
    for (const [scope, message] of [
      ['address', /5 keys an hour/],
      ['global', /hourly ceiling of 100/],
    ] as const) {
      const { limiter, calls } = limiterAnswering({ admitted: false, scope, retryAfterSeconds: 1800 })
      const refused = service(accountsAnswering({ kind: 'issued', key: issued }, seen), limiter)
      const error = await refused.issueSporeKey({ email: 'a@b.org' }, '::1').catch((e: unknown) => e)
      expect(error).toMatchObject({
        code: 'rate_limit_exceeded',
        status: 429,
        headers: { 'retry-after': '1800' },
      })
      expect((error as ApiError).message).toMatch(message)
      expect(calls).toEqual([`admit ${hashClientAddress(ADDRESS_HASH_KEY, '::1')} 5/100`])
    }
    expect(seen).toEqual([])
  })

  it('every admitted request spends the address’s allowance, whatever it ends in; only issued keys count overall', async () => {
    const { limiter, calls } = limiterAnswering()
    const outcomes: SporeKeyOutcome[] = [
      { kind: 'issued', key: issued },
      { kind: 'key_exists' },
      { kind: 'limited', scope: 'global', retryAfterSeconds: 60 },
    ]
    for (const outcome of outcomes)
      await service(accountsAnswering(outcome), limiter)
        .issueSporeKey({ email: 'a@b.org' }, '203.0.113.9')
        .catch(() => {})
    const admit = `admit ${hashClientAddress(ADDRESS_HASH_KEY, '203.0.113.9')} 5/100`
    expect(calls).toEqual([admit, 'issued', admit, admit])
  })

  it('hands the key over even when counting it fails', async () => {
    const { limiter } = limiterAnswering()
    limiter.issued = () => Promise.reject(new Error('counter away'))
    const keys = service(accountsAnswering({ kind: 'issued', key: issued }), limiter)
    expect(await keys.issueSporeKey({ email: 'a@b.org' }, '::1')).toBe(issued)
  })

  it('asks the store one issuance at a time in a process, so a burst holds one database connection', async () => {
    let inFlight = 0
    let most = 0
    const accounts: KeyAccounts = {
      issueSporeKey: async (request) => {
        inFlight += 1
        most = Math.max(most, inFlight)
        await new Promise((resolve) => setTimeout(resolve, 2))
        inFlight -= 1
        if (request.email.startsWith('taken')) throw new Error('store failed')
        return { kind: 'issued', key: issued }
      },
      rotate: () => Promise.reject(new Error('unused')),
      findById: async () => null,
    }
    const keys = service(accounts)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        keys.issueSporeKey({ email: `${i % 5 === 0 ? 'taken' : 'free'}-${i}@example.org` }, `203.0.113.${i}`),
      ),
    )
    expect(most).toBe(1)
    // A failed issuance does not hold up the ones after it.
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(16)
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(4)
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
