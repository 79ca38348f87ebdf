import type { IssuanceAdmission, IssuanceLimiter, IssuanceLimits } from '../../domain/ports/issuance.ts'
import type { RedisConnection } from '../../redis/connection.ts'
import { ISSUANCE_WINDOW_SECONDS, secondsLeft } from './memory-issuance-limiter.ts'

/**
 * One request from an address, unless the ceiling over all addresses or the address's allowance is
 * reached; atomic across every server process sharing Redis. A window's counter expires an hour after
 * its first count (relative, so a clock difference between hosts cannot end it early).
 * KEYS[1] the address's counter, KEYS[2] the keys issued overall; ARGV[1] the per-address allowance,
 * ARGV[2] the ceiling, ARGV[3] the window in seconds. Returns {0} admitted, or {1 address | 2 ceiling,
 * milliseconds until that window ends}.
 */
const ADMIT_SCRIPT = `
local overall = tonumber(redis.call('GET', KEYS[2]) or '0')
if overall >= tonumber(ARGV[2]) then
  return {2, redis.call('PTTL', KEYS[2])}
end
local used = redis.call('INCR', KEYS[1])
if used == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
if used > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return {1, redis.call('PTTL', KEYS[1])}
end
return {0, 0}
`
/** A key issued: KEYS[1] the keys issued overall; ARGV[1] the window in seconds. */
const ISSUED_SCRIPT = `
local issued = redis.call('INCR', KEYS[1])
if issued == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return issued
`

/**
 * The issuance counters in Redis, beside the quota counters and on their connection. Every counter is
 * under `prefix{issuance}:` (a hash tag: on a Redis Cluster the script's two counters share a slot), and
 * an address appears only as its keyed hash.
 */
export class RedisIssuanceLimiter implements IssuanceLimiter {
  private readonly redis: RedisConnection & {
    admitIssuance(
      addressKey: string,
      overallKey: string,
      perAddress: number,
      perHour: number,
      windowSeconds: number,
    ): Promise<[number, number]>
    countIssuance(overallKey: string, windowSeconds: number): Promise<number>
  }

  constructor(
    redis: RedisConnection,
    private readonly keyPrefix = 'survival:quota:',
  ) {
    redis.defineCommand('admitIssuance', { numberOfKeys: 2, lua: ADMIT_SCRIPT })
    redis.defineCommand('countIssuance', { numberOfKeys: 1, lua: ISSUED_SCRIPT })
    this.redis = redis as RedisIssuanceLimiter['redis']
  }

  /** The Redis key of an address's counter: the prefix, the hash tag, and the address's keyed hash. */
  addressKey(addressHash: string): string {
    return `${this.keyPrefix}{issuance}:address:${addressHash}`
  }

  get overallKey(): string {
    return `${this.keyPrefix}{issuance}:overall`
  }

  async admit(addressHash: string, limits: IssuanceLimits): Promise<IssuanceAdmission> {
    const [verdict, msLeft] = await this.redis.admitIssuance(
      this.addressKey(addressHash),
      this.overallKey,
      limits.perAddressPerHour,
      limits.perHour,
      ISSUANCE_WINDOW_SECONDS,
    )
    if (verdict === 0) return { admitted: true }
    // PTTL is negative only for a counter without an expiry, which these scripts never leave.
    const retryAfterSeconds = msLeft > 0 ? secondsLeft(msLeft, 0) : ISSUANCE_WINDOW_SECONDS
    return { admitted: false, scope: verdict === 2 ? 'global' : 'address', retryAfterSeconds }
  }

  async issued(): Promise<void> {
    await this.redis.countIssuance(this.overallKey, ISSUANCE_WINDOW_SECONDS)
  }

  /** Reads the counters' slot without counting anything: whether Redis answers for them again. */
  async probe(): Promise<void> {
    await this.redis.pttl(this.overallKey)
  }

  /** Connected and able to count. */
  isReady(): boolean {
    return this.redis.status === 'ready'
  }

  async close(): Promise<void> {
    this.redis.disconnect()
  }
}
