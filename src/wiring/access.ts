import { AccessControl } from '../access/auth/access-control.ts'
import { Authenticator } from '../access/auth/authenticator.ts'
import { UsageRecorder } from '../access/auth/usage-recorder.ts'
import { QuotaGuard } from '../access/quota/quota-guard.ts'
import type { QuotaStore } from '../access/quota/quota-store.ts'
import { openCounterConnection } from '../access/quota/redis-quota-store.ts'
import type { Config } from '../config/config.ts'
import type { Database } from '../db/connect.ts'
import { keyDirectory } from '../db/key-ports.ts'
import { usageLedger } from '../db/store-ports.ts'
import type { IssuanceLimiter } from '../domain/ports/issuance.ts'
import type { Logger } from '../logging/logger.ts'
import type { Metrics } from '../observability/metrics.ts'
import { redisTarget } from '../redis/connection.ts'
import { followKeyChanges } from './key-changes.ts'
import { createIssuanceLimiter, createQuotaStore } from './request-counters.ts'

type AccessConfig = Pick<
  Config,
  | 'REDIS_URL'
  | 'REDIS_CLUSTER_NODES'
  | 'QUOTA_KEY_PREFIX'
  | 'REDIS_TIMEOUT_MS'
  | 'DB_QUERY_TIMEOUT_MS'
  | 'USAGE_FLUSH_MS'
> &
  Partial<Pick<Config, 'KEY_CACHE_MS'>>

export interface AccessWiring {
  config: AccessConfig
  database: Database
  logger: Logger
  metrics: Metrics
  now: () => Date
  /** Ready-made counters (tests); otherwise Redis with in-memory failover, or memory alone. */
  quotaStore?: QuotaStore
  issuanceLimiter?: IssuanceLimiter
  keyCacheMs?: number
}

/**
 * Who may call and how much: the keys (cached, following changes made elsewhere), the daily quota and
 * the self-service issuance counters on one Redis connection, and the usage counts written behind.
 */
export function wireAccess(wiring: AccessWiring) {
  const { config, database, logger, metrics, now } = wiring
  // One connection for the request counters: the daily quota and the issuance counters beside it.
  const redis = redisTarget(config)
  const counters =
    redis && (!wiring.quotaStore || !wiring.issuanceLimiter) ? openCounterConnection(redis) : null
  const quota = createQuotaStore(wiring, metrics, counters)
  const issuanceLimiter = createIssuanceLimiter(wiring, counters)
  const usage = new UsageRecorder(usageLedger(database.sql, config, metrics), {
    flushMs: config.USAGE_FLUSH_MS,
    onFlushError: (error) =>
      logger.warn({ err: error }, 'usage counts not written yet: kept for the next flush'),
  })
  usage.start()
  const authenticator = new Authenticator(keyDirectory(database.sql, config, metrics), {
    keyCacheMs: wiring.keyCacheMs ?? config.KEY_CACHE_MS,
    now: () => now().getTime(),
  })
  const keyChanges = followKeyChanges(database, authenticator, logger, metrics)
  const access = new AccessControl(authenticator, new QuotaGuard(quota.store, now), metrics, usage)
  return {
    access,
    authenticator,
    usage,
    quotaState: quota.state,
    issuanceLimiter,
    /** Closes the counters and the key follower, and writes the last usage counts. */
    close: () =>
      Promise.all([quota.store.close(), issuanceLimiter.close(), usage.close(), keyChanges?.close()]),
  }
}
