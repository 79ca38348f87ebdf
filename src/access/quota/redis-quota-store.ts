import { openRedis, type RedisConnection, type RedisTarget } from '../../redis/connection.ts'
import { secondsUntilReset, utcDay } from './day-window.ts'
import type { SharedQuotaStore } from './failover-quota-store.ts'
import { consumedInTurn, type QuotaConsumption } from './quota-store.ts'

/**
 * Check-and-increment in one Lua script, so it is atomic across every server process sharing Redis:
 * one INCRBY in the common case, taken back at once when it went past the limit.
 * The counter expires on its own shortly after its UTC day ends; the expiry is relative (EXPIRE), so a
 * clock difference between this host and Redis cannot make counters vanish early.
 * KEYS[1] counter; ARGV[1] limit ('' = unlimited); ARGV[2] seconds to live; ARGV[3] requests to count.
 */
const CONSUME_SCRIPT = `
local count = tonumber(ARGV[3])
local used = redis.call('INCRBY', KEYS[1], count)
if used == count then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
if ARGV[1] ~= '' and used > tonumber(ARGV[1]) then
  redis.call('DECRBY', KEYS[1], count)
  return {0, used - count}
end
return {1, used}
`
/**
 * `ARGV[3]` single requests at once, as if one after another: all counted, then those past the limit taken
 * back; returns the count before them. KEYS and the other ARGV as in CONSUME_SCRIPT.
 */
const CONSUME_EACH_SCRIPT = `
local requests = tonumber(ARGV[3])
local used = redis.call('INCRBY', KEYS[1], requests)
if used == requests then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
if ARGV[1] ~= '' and used > tonumber(ARGV[1]) then
  redis.call('DECRBY', KEYS[1], math.min(requests, used - tonumber(ARGV[1])))
end
return used - requests
`
/** Keep a day's counter an hour past midnight so a request straddling the boundary still reads it. */
const EXPIRY_GRACE_SECONDS = 3600

/**
 * The Redis key of one account's counter for one UTC day. On a cluster the account is a hash tag
 * (`prefix{account}:day`), so all of an account's counters share one slot and each script, which touches
 * one counter, runs on one master; accounts spread over the masters. On a single Redis the key is
 * today's `prefix` `account:day`, unchanged, so counters survive an upgrade. (A prefix that itself holds a
 * `{…}` tag would put every account in that one slot: still correct, just not spread.)
 */
export function counterKey(prefix: string, accountId: string, day: string, hashTagged: boolean): string {
  return hashTagged ? `${prefix}{${accountId}}:${day}` : `${prefix}${accountId}:${day}`
}

/**
 * The connection request counters use: the quota's, and the self-service issuance counters beside them
 * (src/access/issuance/). It fails fast while disconnected (the failover stores answer from memory)
 * and keeps reconnecting.
 */
export function openCounterConnection(target: RedisTarget): RedisConnection {
  const redis = openRedis(target, {
    // Concurrent requests' scripts share one write to the socket (fewer syscalls on both sides).
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  })
  redis.on('error', () => {})
  if (redis.isCluster) redis.on('node error', () => {})
  return redis
}

export class RedisQuotaStore implements SharedQuotaStore {
  private readonly redis: RedisConnection & {
    consumeQuota(
      counterKey: string,
      limit: string,
      secondsToLive: number,
      count: number,
    ): Promise<[number, number]>
    consumeQuotaEach(
      counterKey: string,
      limit: string,
      secondsToLive: number,
      requests: number,
    ): Promise<number>
  }

  private readonly hashTagged: boolean

  /** Over a `Redis` or a `Cluster`; on a cluster the counters are hash-tagged by account (counterKey). */
  constructor(
    redis: RedisConnection,
    private readonly keyPrefix = 'survival:quota:',
  ) {
    redis.defineCommand('consumeQuota', { numberOfKeys: 1, lua: CONSUME_SCRIPT })
    redis.defineCommand('consumeQuotaEach', { numberOfKeys: 1, lua: CONSUME_EACH_SCRIPT })
    this.redis = redis as RedisQuotaStore['redis']
    this.hashTagged = redis.isCluster
  }

  static connect(target: RedisTarget, keyPrefix?: string): RedisQuotaStore {
    return new RedisQuotaStore(openCounterConnection(target), keyPrefix)
  }

  private key(accountId: string, now: Date): string {
    return counterKey(this.keyPrefix, accountId, utcDay(now), this.hashTagged)
  }

  async consume(keyId: string, limit: number | null, now: Date, count = 1): Promise<QuotaConsumption> {
    const secondsToLive = secondsUntilReset(now) + EXPIRY_GRACE_SECONDS
    const [allowed, used] = await this.redis.consumeQuota(
      this.key(keyId, now),
      limit === null ? '' : String(limit),
      secondsToLive,
      count,
    )
    return { allowed: allowed === 1, used }
  }

  async consumeEach(
    keyId: string,
    limit: number | null,
    now: Date,
    requests: number,
  ): Promise<QuotaConsumption[]> {
    // One account's requests, one counter, one script: on a cluster one slot and one master, so the
    // turn's requests are counted atomically there (the coalescing store calls this once per account).
    const before = await this.redis.consumeQuotaEach(
      this.key(keyId, now),
      limit === null ? '' : String(limit),
      secondsUntilReset(now) + EXPIRY_GRACE_SECONDS,
      requests,
    )
    return consumedInTurn(before, limit, requests)
  }

  /** Connected and able to count: a `Redis` or a `Cluster` (whose topology is known) in status `ready`. */
  isReady(): boolean {
    return this.redis.status === 'ready'
  }

  async close(): Promise<void> {
    this.redis.disconnect()
  }
}
