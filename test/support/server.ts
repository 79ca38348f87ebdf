import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { Redis } from 'ioredis'
import { MemoryIssuanceLimiter } from '../../src/access/issuance/memory-issuance-limiter.ts'
import { RedisIssuanceLimiter } from '../../src/access/issuance/redis-issuance-limiter.ts'
import { CoalescingQuotaStore } from '../../src/access/quota/coalescing-quota-store.ts'
import { MemoryQuotaStore } from '../../src/access/quota/memory-quota-store.ts'
import type { QuotaStore } from '../../src/access/quota/quota-store.ts'
import { RedisQuotaStore } from '../../src/access/quota/redis-quota-store.ts'
import type { TrustProxy, TrustProxyHeader } from '../../src/config/config.ts'
import type { Database } from '../../src/db/connect.ts'
import type { KeyMailerSettings } from '../../src/domain/key-mail/key-mailer.ts'
import { createLogger, type Logger } from '../../src/logging/logger.ts'
import { type App, createApp } from '../../src/wiring/app.ts'
import { TEST_ADDRESS_HASH_KEY } from './address-hash-key.ts'
import { deleteKeysWithPrefix } from './redis.ts'
import { TEST_REDIS_URL } from './services.ts'

export interface TestServer {
  app: App
  url: string
  /** The Redis key prefix this server's quota counters use (unique per server). */
  quotaPrefix: string
  close(): Promise<void>
}

export interface TestServerOptions {
  database: Database
  /** 'redis' (default): real Redis with a private key prefix; 'memory': the in-process store. */
  quota?: 'redis' | 'memory'
  quotaPrefix?: string
  now?: () => Date
  keyCacheMs?: number
  graphiql?: boolean
  /** The explorer page at / (default on, as in production). */
  explorer?: boolean
  demoKey?: string
  /** Let the app wire Redis itself (failover store included), e.g. through a cuttable proxy. */
  redisUrl?: string
  queryDeadlineMs?: number
  /** ADDRESS_HASH_KEY, the secret client addresses are hashed under (default: TEST_ADDRESS_HASH_KEY). */
  addressHashKey?: string
  /** Self-service issuance limits and the usage flush interval (defaults: the production ones, flush 100 ms). */
  sporeKeysPerAddressPerHour?: number
  sporeKeysPerHour?: number
  usageFlushMs?: number
  /** Rows per job chunk (default: the production 500). */
  jobChunkRows?: number
  /** Job chunks queued in this process (default) or in BullMQ on the test Redis, under `jobQueuePrefix`. */
  jobQueue?: 'memory' | 'redis'
  jobQueuePrefix?: string
  /** Whether this server scores job chunks itself (default true). */
  jobWorkers?: boolean
  /** BullMQ lock: how soon a dead worker's chunk goes to another (default: the production 30 s). */
  jobLockMs?: number
  /** survivalMap calls a minute per key (default: the production 10). */
  survivalMapPerMinute?: number
  /** TRUST_PROXY and TRUST_PROXY_HEADER (default: none, the TCP peer is the client). */
  trustProxy?: TrustProxy
  trustProxyHeader?: TrustProxyHeader
  /** Where the request log goes (default: nowhere). */
  logger?: Logger
  /** SITE_CACHE_SITES (default: the production one; 0 turns the site cache off). */
  siteCacheSites?: number
  /** SITE_INDEX (default: memory, as in production). */
  siteIndex?: 'memory' | 'off'
  /** SMTP_URL, MAIL_FROM and PUBLIC_URL (mailEnv of ./mail-catcher.ts): self-service keys on. */
  mail?: Record<string, string>
  /** The key mailer's timings (default: the production ones). */
  keyMailer?: Partial<KeyMailerSettings>
  /** How long a calibration is waited for before 202 (default: the production 2 s). */
  calibrationWaitMs?: number
}

/** Starts the whole app on a random loopback port, as `npm start` would wire it. */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const quotaPrefix = options.quotaPrefix ?? `test:quota:${randomBytes(6).toString('hex')}:`
  const redis = options.quota === 'memory' || options.redisUrl ? null : new Redis(TEST_REDIS_URL)
  const quotaStore: QuotaStore | undefined = options.redisUrl
    ? undefined
    : redis
      ? new CoalescingQuotaStore(new RedisQuotaStore(redis, quotaPrefix))
      : new MemoryQuotaStore()
  // The issuance counters beside the quota's: in Redis under the same prefix, or in memory.
  const issuanceLimiter = options.redisUrl
    ? undefined
    : redis
      ? new RedisIssuanceLimiter(redis, quotaPrefix)
      : new MemoryIssuanceLimiter()
  const app = createApp({
    config: {
      REDIS_URL: options.redisUrl ?? (options.jobQueue === 'redis' ? TEST_REDIS_URL : undefined),
      QUOTA_KEY_PREFIX: quotaPrefix,
      SEARCH_RADIUS_KM: 10,
      GRAPHIQL: options.graphiql ?? true,
      EXPLORER: options.explorer ?? true,
      ...(options.jobChunkRows ? { JOB_CHUNK_ROWS: options.jobChunkRows } : {}),
      JOB_QUEUE_PREFIX: options.jobQueuePrefix ?? `${quotaPrefix}bull`,
      JOB_WORKERS_IN_SERVER: options.jobWorkers ?? true,
      ...(options.jobLockMs ? { JOB_LOCK_MS: options.jobLockMs } : {}),
      DB_QUERY_TIMEOUT_MS: options.queryDeadlineMs ?? 3000,
      REDIS_TIMEOUT_MS: 250,
      SPORE_KEYS_PER_ADDRESS_PER_HOUR: options.sporeKeysPerAddressPerHour ?? 5,
      SPORE_KEYS_PER_HOUR: options.sporeKeysPerHour ?? 500,
      USAGE_FLUSH_MS: options.usageFlushMs ?? 100,
      SURVIVAL_MAP_PER_MINUTE: options.survivalMapPerMinute,
      TRUST_PROXY: options.trustProxy,
      TRUST_PROXY_HEADER: options.trustProxyHeader,
      SITE_CACHE_SITES: options.siteCacheSites,
      SITE_INDEX: options.siteIndex,
      ADDRESS_HASH_KEY: options.addressHashKey ?? TEST_ADDRESS_HASH_KEY,
      ...options.mail,
    },
    keyMailer: options.keyMailer,
    calibrationWaitMs: options.calibrationWaitMs,
    database: options.database,
    logger: options.logger ?? createLogger({ level: 'silent' }),
    quotaStore,
    issuanceLimiter,
    now: options.now,
    keyCacheMs: options.keyCacheMs,
    demoKey: options.demoKey,
    jobQueue: options.jobQueue === 'redis' ? undefined : 'memory',
  })
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as AddressInfo
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    quotaPrefix,
    close: async () => {
      app.server.closeAllConnections()
      await app.close()
      if (options.quota !== 'memory') await deleteKeysWithPrefix(quotaPrefix)
    },
  }
}
