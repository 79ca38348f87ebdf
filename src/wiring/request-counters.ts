import { FailoverIssuanceLimiter } from '../access/issuance/failover-issuance-limiter.ts'
import { MemoryIssuanceLimiter } from '../access/issuance/memory-issuance-limiter.ts'
import { RedisIssuanceLimiter } from '../access/issuance/redis-issuance-limiter.ts'
import { CoalescingQuotaStore } from '../access/quota/coalescing-quota-store.ts'
import { FailoverQuotaStore } from '../access/quota/failover-quota-store.ts'
import { MemoryQuotaStore } from '../access/quota/memory-quota-store.ts'
import type { QuotaStore } from '../access/quota/quota-store.ts'
import { RedisQuotaStore } from '../access/quota/redis-quota-store.ts'
import type { Config } from '../config/config.ts'
import type { QuotaStoreState } from '../domain/health.ts'
import type { IssuanceLimiter } from '../domain/ports/issuance.ts'
import type { Logger } from '../logging/logger.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { RedisConnection } from '../redis/connection.ts'

interface CounterOptions {
  config: Pick<Config, 'QUOTA_KEY_PREFIX' | 'REDIS_TIMEOUT_MS'>
  logger: Logger
}

/** The daily quota store: a ready-made one, Redis with in-memory failover, or memory alone. */
export function createQuotaStore(
  options: CounterOptions & { quotaStore?: QuotaStore },
  metrics: Metrics,
  counters: RedisConnection | null,
): { store: QuotaStore; state: () => QuotaStoreState } {
  if (options.quotaStore) {
    const store = options.quotaStore
    return { store, state: () => ('degraded' in store && store.degraded ? 'disconnected' : 'connected') }
  }
  const { QUOTA_KEY_PREFIX, REDIS_TIMEOUT_MS } = options.config
  // A single Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES, which wins); the same failover
  // either way: a master failover that leaves a script unanswered for REDIS_TIMEOUT_MS counts in memory.
  if (!counters) return { store: new MemoryQuotaStore(), state: () => 'not_configured' }
  const store = new FailoverQuotaStore(
    new RedisQuotaStore(counters, QUOTA_KEY_PREFIX),
    new MemoryQuotaStore(),
    REDIS_TIMEOUT_MS,
    {
      onFallback: (error) => {
        metrics.fallbackEvents.inc({ kind: 'quota_memory' })
        options.logger.warn(
          { err: error },
          'Redis unreachable: enforcing quotas in this process until it returns',
        )
      },
      onRecover: () => options.logger.info('Redis reachable again: quotas shared through Redis'),
    },
  )
  return {
    store: new CoalescingQuotaStore(store),
    state: () => (store.degraded ? 'disconnected' : 'connected'),
  }
}

/**
 * The self-service issuance counters, under the quota's prefix on the quota's connection: Redis with the
 * same failover to this process's memory, or memory alone without Redis.
 */
export function createIssuanceLimiter(
  options: CounterOptions & { issuanceLimiter?: IssuanceLimiter },
  counters: RedisConnection | null,
): IssuanceLimiter {
  if (options.issuanceLimiter) return options.issuanceLimiter
  if (!counters) return new MemoryIssuanceLimiter()
  const { QUOTA_KEY_PREFIX, REDIS_TIMEOUT_MS } = options.config
  return new FailoverIssuanceLimiter(
    new RedisIssuanceLimiter(counters, QUOTA_KEY_PREFIX),
    new MemoryIssuanceLimiter(),
    REDIS_TIMEOUT_MS,
    {
      onFallback: (error) =>
        options.logger.warn(
          { err: error },
          'Redis unreachable: counting key issuance in this process until it returns',
        ),
      onRecover: () => options.logger.info('Redis reachable again: key issuance counted through Redis'),
    },
  )
}
