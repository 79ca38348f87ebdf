import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import type { IssuanceLimiter } from '../../domain/ports/issuance.ts'
import { MemoryIssuanceLimiter } from './memory-issuance-limiter.ts'
import { RedisIssuanceLimiter } from './redis-issuance-limiter.ts'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
/** This test's own keys, deleted at its end. */
const prefix = `test:issuance:${randomBytes(4).toString('hex')}:`
const redis = new Redis(REDIS_URL)

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`)
  if (keys.length) await redis.del(...keys)
  redis.disconnect()
})

const LIMITS = { perAddressPerHour: 5, perHour: 20 }
/** An address's keyed hash no other test has used. */
const freshHash = () => randomBytes(32).toString('hex')

let limiters = 0
/** Each limiter its own namespace under the test's prefix (its own overall counter). */
const limiterKinds: [string, () => IssuanceLimiter][] = [
  ['memory', () => new MemoryIssuanceLimiter()],
  ['redis', () => new RedisIssuanceLimiter(new Redis(REDIS_URL), `${prefix}${++limiters}:`)],
]

describe.each(limiterKinds)('%s issuance limiter', (_name, makeLimiter) => {
  it('admits an address’s allowance within its hour, then refuses it for the rest of the hour; others go on', async () => {
    const limiter = makeLimiter()
    const address = freshHash()
    for (let i = 0; i < 5; i++) expect(await limiter.admit(address, LIMITS)).toEqual({ admitted: true })
    const refused = await limiter.admit(address, LIMITS)
    expect(refused).toMatchObject({ admitted: false, scope: 'address' })
    const { retryAfterSeconds } = refused as { retryAfterSeconds: number }
    expect(retryAfterSeconds).toBeGreaterThan(3590)
    expect(retryAfterSeconds).toBeLessThanOrEqual(3600)
    expect(await limiter.admit(freshHash(), LIMITS)).toEqual({ admitted: true })
    await limiter.close()
  })

  it('lets exactly the allowance through when 50 requests from one address arrive at once', async () => {
    const limiter = makeLimiter()
    const address = freshHash()
    const answers = await Promise.all(Array.from({ length: 50 }, () => limiter.admit(address, LIMITS)))
    expect(answers.filter((answer) => answer.admitted)).toHaveLength(5)
    // Refused requests counted nothing: a larger allowance admits exactly the difference.
    const wider = { ...LIMITS, perAddressPerHour: 7 }
    const more = await Promise.all(Array.from({ length: 5 }, () => limiter.admit(address, wider)))
    expect(more.filter((answer) => answer.admitted)).toHaveLength(2)
    await limiter.close()
  })

  it('refuses every address once the hour’s keys reach the ceiling, counting none of them', async () => {
    const limiter = makeLimiter()
    for (let i = 0; i < 19; i++) await limiter.issued()
    const first = freshHash()
    expect(await limiter.admit(first, LIMITS)).toEqual({ admitted: true })
    await limiter.issued()
    const refused = await limiter.admit(freshHash(), LIMITS)
    expect(refused).toMatchObject({ admitted: false, scope: 'global' })
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(3600)
    // The ceiling refused without spending the address's allowance.
    const roomier = { ...LIMITS, perHour: 1000 }
    for (let i = 0; i < 4; i++) expect(await limiter.admit(first, roomier)).toEqual({ admitted: true })
    expect(await limiter.admit(first, roomier)).toMatchObject({ admitted: false, scope: 'address' })
    await limiter.close()
  })
})

describe('memory issuance limiter', () => {
  it('starts an address afresh once its hour is over, and the ceiling too', async () => {
    let now = Date.parse('2026-11-22T12:00:00Z')
    const limiter = new MemoryIssuanceLimiter(() => now)
    const address = freshHash()
    for (let i = 0; i < 5; i++) await limiter.admit(address, LIMITS)
    now += 1_800_000
    expect(await limiter.admit(address, LIMITS)).toEqual({
      admitted: false,
      scope: 'address',
      retryAfterSeconds: 1800,
    })
    for (let i = 0; i < 20; i++) await limiter.issued()
    expect(await limiter.admit(freshHash(), LIMITS)).toMatchObject({
      scope: 'global',
      retryAfterSeconds: 3600,
    })
    now += 1_800_000
    expect(await limiter.admit(address, LIMITS)).toMatchObject({ scope: 'global', retryAfterSeconds: 1800 })
    now += 1_800_000
    expect(await limiter.admit(address, LIMITS)).toEqual({ admitted: true })
  })

  it('remembers a bounded number of addresses, forgetting the oldest first', async () => {
    let now = 0
    const limiter = new MemoryIssuanceLimiter(() => now, 3)
    const addresses = Array.from({ length: 4 }, freshHash)
    for (const address of addresses) {
      for (let i = 0; i < 5; i++) await limiter.admit(address, LIMITS)
      now += 1000
    }
    expect(limiter.size).toBe(3)
    // The oldest was forgotten; the newest three are still at their allowance.
    expect(await limiter.admit(addresses[0] as string, LIMITS)).toEqual({ admitted: true })
    expect(await limiter.admit(addresses[3] as string, LIMITS)).toMatchObject({ admitted: false })
  })
})

describe('redis issuance limiter', () => {
  it('keeps an address only as the hash it was given, under the prefix and a hash tag, for an hour', async () => {
    const keyPrefix = `${prefix}layout:`
    const limiter = new RedisIssuanceLimiter(new Redis(REDIS_URL), keyPrefix)
    const address = freshHash()
    await limiter.admit(address, LIMITS)
    await limiter.issued()
    const keys = (await redis.keys(`${keyPrefix}*`)).sort()
    expect(keys).toEqual([`${keyPrefix}{issuance}:address:${address}`, `${keyPrefix}{issuance}:overall`])
    for (const key of keys) {
      const ttl = await redis.pttl(key)
      expect(ttl).toBeGreaterThan(3_590_000)
      expect(ttl).toBeLessThanOrEqual(3_600_000)
    }
    // When its hour is over the address starts afresh.
    for (let i = 0; i < 4; i++) await limiter.admit(address, LIMITS)
    expect(await limiter.admit(address, LIMITS)).toMatchObject({ admitted: false })
    await redis.pexpire(`${keyPrefix}{issuance}:address:${address}`, 1)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await limiter.admit(address, LIMITS)).toEqual({ admitted: true })
    await limiter.close()
  })
})
