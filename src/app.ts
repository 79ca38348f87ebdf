import type { Server } from 'node:http'
import { AccessControl } from './auth/access-control.ts'
import { Authenticator } from './auth/authenticator.ts'
import type { Config } from './config/config.ts'
import type { Database } from './db/connect.ts'
import { createNearestSiteLoader } from './db/nearest-site-loader.ts'
import { findNearestSites, type NearestSite } from './db/sites.ts'
import { HealthMonitor, modelInfo, type QuotaStoreState } from './domain/health.ts'
import { type Coordinates, PredictionService } from './domain/predictions.ts'
import { createGateway, type Gateway } from './graphql/yoga.ts'
import { createHttpServer } from './http/server.ts'
import type { Logger } from './logging/logger.ts'
import { loadSurvivalModel, type SurvivalModel } from './model/index.ts'
import { Metrics } from './observability/metrics.ts'
import { FailoverQuotaStore } from './quota/failover-quota-store.ts'
import { MemoryQuotaStore } from './quota/memory-quota-store.ts'
import { QuotaGuard } from './quota/quota-guard.ts'
import type { QuotaStore } from './quota/quota-store.ts'
import { RedisQuotaStore } from './quota/redis-quota-store.ts'

export type AppConfig = Pick<
  Config,
  | 'REDIS_URL'
  | 'QUOTA_KEY_PREFIX'
  | 'SEARCH_RADIUS_KM'
  | 'GRAPHIQL'
  | 'DB_QUERY_TIMEOUT_MS'
  | 'REDIS_TIMEOUT_MS'
> &
  Partial<Pick<Config, 'METRICS_TOKEN' | 'MAX_IN_FLIGHT'>>

export interface AppOptions {
  config: AppConfig
  database: Database
  logger: Logger
  model?: SurvivalModel
  /** A ready-made quota store (tests); otherwise Redis with in-memory failover, or memory alone. */
  quotaStore?: QuotaStore
  now?: () => Date
  demoKey?: string
  keyCacheMs?: number
}

export interface App {
  server: Server
  gateway: Gateway
  metrics: Metrics
  close(graceMs?: number): Promise<void>
}

function createQuotaStore(
  options: AppOptions,
  metrics: Metrics,
): { store: QuotaStore; state: () => QuotaStoreState } {
  if (options.quotaStore) {
    const store = options.quotaStore
    return { store, state: () => ('degraded' in store && store.degraded ? 'disconnected' : 'connected') }
  }
  const { REDIS_URL, QUOTA_KEY_PREFIX, REDIS_TIMEOUT_MS } = options.config
  if (!REDIS_URL) return { store: new MemoryQuotaStore(), state: () => 'not_configured' }
  const store = new FailoverQuotaStore(
    RedisQuotaStore.connect(REDIS_URL, QUOTA_KEY_PREFIX),
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
  return { store, state: () => (store.degraded ? 'disconnected' : 'connected') }
}

/** Wires the layers together once: stores, services, the GraphQL gateway and the HTTP front door. */
export function createApp(options: AppOptions): App {
  const model = options.model ?? loadSurvivalModel()
  const now = options.now ?? (() => new Date())
  const metrics = new Metrics()
  const quota = createQuotaStore(options, metrics)
  const health = new HealthMonitor({
    sql: options.database.sql,
    model: modelInfo(model),
    quotaStoreState: quota.state,
    now,
  })
  const access = new AccessControl(
    new Authenticator(options.database.sql, {
      keyCacheMs: options.keyCacheMs,
      queryDeadlineMs: options.config.DB_QUERY_TIMEOUT_MS,
    }),
    new QuotaGuard(quota.store, now),
    metrics,
  )
  const findNearest = (points: readonly Coordinates[]): Promise<(NearestSite | null)[]> => {
    metrics.nearestSiteLookups.inc(points.length)
    metrics.nearestSiteBatchSize.observe(points.length)
    return metrics.trackQuery(() =>
      findNearestSites(options.database.sql, points, options.config.SEARCH_RADIUS_KM, {
        deadlineMs: options.config.DB_QUERY_TIMEOUT_MS,
      }),
    )
  }
  const nearestSite = createNearestSiteLoader(findNearest)
  const predictions = new PredictionService(model, now)
  const gateway = createGateway({
    health,
    nearestSite,
    logger: options.logger,
    predictions,
    access,
    searchRadiusKm: options.config.SEARCH_RADIUS_KM,
    graphiql: options.config.GRAPHIQL,
    demoKey: options.demoKey,
  })
  const server = createHttpServer({
    health,
    logger: options.logger,
    metrics,
    metricsToken: options.config.METRICS_TOKEN,
    maxInFlight: options.config.MAX_IN_FLIGHT ?? 512,
    gateway,
    access,
    predictions,
    nearestSite,
  })
  return {
    server,
    gateway,
    metrics,
    /** Stops accepting, lets in-flight requests finish (at most graceMs), then closes the quota store. */
    close: async (graceMs = 10_000) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      const grace = setTimeout(() => server.closeAllConnections(), graceMs)
      await closed
      clearTimeout(grace)
      await quota.store.close()
    },
  }
}
