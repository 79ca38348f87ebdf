import type { Server } from 'node:http'
import { AccessControl } from './auth/access-control.ts'
import { Authenticator } from './auth/authenticator.ts'
import type { Config } from './config/config.ts'
import type { Database } from './db/connect.ts'
import { modelInfo } from './domain/health.ts'
import { PredictionService } from './domain/predictions.ts'
import { createGateway, type Gateway } from './graphql/yoga.ts'
import { createHttpServer } from './http/server.ts'
import type { Logger } from './logging/logger.ts'
import { loadSurvivalModel, type SurvivalModel } from './model/index.ts'
import { MemoryQuotaStore } from './quota/memory-quota-store.ts'
import { QuotaGuard } from './quota/quota-guard.ts'
import type { QuotaStore } from './quota/quota-store.ts'
import { RedisQuotaStore } from './quota/redis-quota-store.ts'

export interface AppOptions {
  config: Pick<Config, 'REDIS_URL' | 'QUOTA_KEY_PREFIX' | 'SEARCH_RADIUS_KM' | 'GRAPHIQL'>
  database: Database
  logger: Logger
  model?: SurvivalModel
  quotaStore?: QuotaStore
  now?: () => Date
  demoKey?: string
  keyCacheMs?: number
}

export interface App {
  server: Server
  gateway: Gateway
  close(): Promise<void>
}

/** Wires the layers together once: stores, services, the GraphQL gateway and the HTTP front door. */
export function createApp(options: AppOptions): App {
  const model = options.model ?? loadSurvivalModel()
  const now = options.now ?? (() => new Date())
  const quotaStore =
    options.quotaStore ??
    (options.config.REDIS_URL
      ? RedisQuotaStore.connect(options.config.REDIS_URL, options.config.QUOTA_KEY_PREFIX)
      : new MemoryQuotaStore())
  const access = new AccessControl(
    new Authenticator(options.database.sql, { keyCacheMs: options.keyCacheMs }),
    new QuotaGuard(quotaStore, now),
  )
  const gateway = createGateway({
    sql: options.database.sql,
    logger: options.logger,
    predictions: new PredictionService(model, now),
    access,
    searchRadiusKm: options.config.SEARCH_RADIUS_KM,
    graphiql: options.config.GRAPHIQL,
    demoKey: options.demoKey,
  })
  const server = createHttpServer({
    sql: options.database.sql,
    modelInfo: modelInfo(model),
    logger: options.logger,
    gateway,
    access,
  })
  return {
    server,
    gateway,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      await closed
      await quotaStore.close()
    },
  }
}
