import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { CoalescingQuotaStore } from './coalescing-quota-store.ts'
import { nextUtcMidnight, secondsUntilReset, utcDay } from './day-window.ts'
import { MemoryQuotaStore } from './memory-quota-store.ts'
import type { QuotaStore } from './quota-store.ts'
import { counterKey, RedisQuotaStore } from './redis-quota-store.ts'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const prefix = `test:quota:${randomBytes(4).toString('hex')}:`
const redis = new Redis(REDIS_URL)

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`)
  if (keys.length) await redis.del(...keys)
  redis.disconnect()
})

const stores: [string, () => QuotaStore][] = [
  ['memory', () => new MemoryQuotaStore()],
  ['redis', () => new RedisQuotaStore(new Redis(REDIS_URL), prefix)],
  [
    'coalescing redis',
    () => new CoalescingQuotaStore(new RedisQuotaStore(new Redis(REDIS_URL), `${prefix}c:`)),
  ],
]

/** A counter no other test has touched. */
const freshKey = () => `key_${randomBytes(8).toString('hex')}`

describe.each(stores)('%s quota store', (_name, makeStore) => {
  const noon = new Date('2026-11-22T12:00:00Z')

  it('lets exactly the limit through when 150 requests arrive at once', async () => {
    const store = makeStore()
    const results = await Promise.all(Array.from({ length: 150 }, () => store.consume('key_a', 100, noon)))
    expect(results.filter((r) => r.allowed)).toHaveLength(100)
    expect(Math.max(...results.map((r) => r.used))).toBe(100)
    await store.close()
  })

  it('counts unlimited keys without ever refusing them', async () => {
    const store = makeStore()
    const results = await Promise.all(Array.from({ length: 50 }, () => store.consume('key_u', null, noon)))
    expect(results.every((r) => r.allowed)).toBe(true)
    expect(Math.max(...results.map((r) => r.used))).toBe(50)
    await store.close()
  })

  it('resets at midnight UTC', async () => {
    const store = makeStore()
    const lastSecond = new Date('2026-11-22T23:59:59.900Z')
    const midnight = new Date('2026-11-23T00:00:00.000Z')
    expect((await store.consume('key_r', 1, lastSecond)).allowed).toBe(true)
    expect((await store.consume('key_r', 1, lastSecond)).allowed).toBe(false)
    expect(await store.consume('key_r', 1, midnight)).toEqual({ allowed: true, used: 1 })
    await store.close()
  })

  it('consumeEach answers as if the requests had come one after another', async () => {
    const store = makeStore()
    const key = freshKey()
    await store.consume(key, 5, noon, 3)
    expect(await store.consumeEach(key, 5, noon, 4)).toEqual([
      { allowed: true, used: 4 },
      { allowed: true, used: 5 },
      { allowed: false, used: 5 },
      { allowed: false, used: 5 },
    ])
    expect(await store.consume(key, 5, noon, 0)).toEqual({ allowed: true, used: 5 })
    expect(await store.consumeEach(key, null, noon, 2)).toEqual([
      { allowed: true, used: 6 },
      { allowed: true, used: 7 },
    ])
    expect(await store.consumeEach(key, 5, noon, 2)).toEqual([
      { allowed: false, used: 7 },
      { allowed: false, used: 7 },
    ])
    await store.close()
  })

  it('concurrent single requests get the answers of the same requests one after another', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 30 }),
        async (waves, limit) => {
          const store = makeStore()
          const key = freshKey()
          let expectedUsed = 0
          for (const size of waves) {
            const answers = await Promise.all(
              Array.from({ length: size }, () => store.consume(key, limit, noon)),
            )
            const expected = Array.from({ length: size }, () => {
              if (expectedUsed + 1 > limit) return { allowed: false, used: expectedUsed }
              expectedUsed += 1
              return { allowed: true, used: expectedUsed }
            })
            expect(answers).toEqual(expected)
          }
          await store.close()
        },
      ),
      { numRuns: 25 },
    )
  })

  it('keeps keys apart', async () => {
    const store = makeStore()
    await store.consume('key_x', 1, noon)
    expect((await store.consume('key_y', 1, noon)).allowed).toBe(true)
    await store.close()
  })
})

describe('redis counters', () => {
  it('expire on their own after their day', async () => {
    const store = new RedisQuotaStore(new Redis(REDIS_URL), prefix)
    const now = new Date()
    await store.consume('key_ttl', 5, now)
    const ttl = await redis.ttl(`${prefix}key_ttl:${utcDay(now)}`)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(secondsUntilReset(now) + 3600)
    await store.close()
  })
})

describe('counter keys', () => {
  it('keep their form on a single Redis: prefix, account, day', () => {
    expect(counterKey('survival:quota:', 'acct_1', '2026-11-22', false)).toBe(
      'survival:quota:acct_1:2026-11-22',
    )
  })

  it('tag the account on a cluster, so all of its counters share one slot', () => {
    expect(counterKey('survival:quota:', 'acct_1', '2026-11-22', true)).toBe(
      'survival:quota:{acct_1}:2026-11-22',
    )
  })
})

describe('day window', () => {
  it('computes the next midnight UTC and a positive Retry-After', () => {
    expect(nextUtcMidnight(new Date('2026-11-22T12:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z')
    expect(secondsUntilReset(new Date('2026-11-22T12:00:00Z'))).toBe(43_200)
    expect(secondsUntilReset(new Date('2026-11-22T23:59:59.999Z'))).toBe(1)
    expect(secondsUntilReset(new Date('2026-11-23T00:00:00.000Z'))).toBe(86_400)
  })
})
