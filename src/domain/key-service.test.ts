import { describe, expect, it } from 'vitest'
import type { SporeKeyOutcome, SporeKeyRequest } from '../types.ts'
import { ApiError } from './errors.ts'
import { dailySeries, KeyService } from './key-service.ts'
import type { KeyAccounts } from './ports.ts'

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

const noUsage = { history: async () => [], lastUseOf: () => null }
const LIMITS = { perAddressPerHour: 5, perHour: 100 }

describe('KeyService.issueSporeKey', () => {
  it('stores the email lower-cased and only a hash of the client address', async () => {
    const seen: SporeKeyRequest[] = []
    const issued = {
      id: 'key_1',
      key: 'tsp_live_x',
      tier: 'spore',
      status: 'active',
      expiresAt: null,
    } as const
    const service = new KeyService(accountsAnswering({ kind: 'issued', key: issued }, seen), noUsage, LIMITS)
    expect(await service.issueSporeKey({ email: 'Ana@Example.ORG' }, '203.0.113.9')).toBe(issued)
    expect(seen[0]).toMatchObject({
      email: 'ana@example.org',
      name: null,
      perAddressPerHour: 5,
      perHour: 100,
    })
    expect(seen[0]?.issuedFrom).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(seen)).not.toContain('203.0.113.9')
  })

  it('turns the store’s refusals into key_exists (409) and rate_limit_exceeded (429, Retry-After)', async () => {
    const exists = new KeyService(accountsAnswering({ kind: 'key_exists' }), noUsage, LIMITS)
    await expect(exists.issueSporeKey({ email: 'a@b.org' }, '::1')).rejects.toMatchObject({
      code: 'key_exists',
      status: 409,
    })
    const limited = new KeyService(
      accountsAnswering({ kind: 'limited', scope: 'address', retryAfterSeconds: 1200 }),
      noUsage,
      LIMITS,
    )
    const error = await limited.issueSporeKey({ email: 'a@b.org' }, '::1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      code: 'rate_limit_exceeded',
      status: 429,
      headers: { 'retry-after': '1200' },
    })
    expect((error as ApiError).message).toMatch(/5 keys an hour/)
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
