/**
 * `npm run worker`: scores job chunks from the BullMQ queue in Redis, without serving HTTP. Run as
 * many as you like, on any machine that reaches the same PostgreSQL and Redis: that is how jobs scale
 * past one server. Stops on SIGTERM/SIGINT after the chunks in hand (a chunk cut short is retried by
 * another worker once its lock lapses, and writes nothing twice).
 */
import { loadConfig } from '../config/config.ts'
import { openDatabase } from '../db/connect.ts'
import { logReplicaStates } from '../db/read-replicas.ts'
import { siteIndexFollower, siteLookup, sitesInArea } from '../db/site-ports.ts'
import { modelVersionStore } from '../db/store-ports.ts'
import { PredictionService } from '../domain/prediction-service.ts'
import { StockingPlanService } from '../domain/stocking/stocking-service.ts'
import { createLogger } from '../logging/logger.ts'
import { Metrics } from '../observability/metrics.ts'
import { queuePrefix, redisTarget } from '../redis/connection.ts'
import { createJobRuntime } from './job-runtime.ts'
import { modelRegistry } from './model-versions.ts'
import { siteIndexLog } from './site-index-log.ts'

const config = loadConfig()
const logger = createLogger({ level: config.LOG_LEVEL })
const redis = redisTarget(config)
if (!config.DATABASE_URL || !redis) {
  logger.error(
    'npm run worker needs DATABASE_URL and REDIS_URL (or REDIS_CLUSTER_NODES): the PostgreSQL and Redis the servers use',
  )
  process.exit(2)
}
const database = await openDatabase(config, {
  statementTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
  readReplicas: true,
  onReplicaStateChange: logReplicaStates(logger),
})
const metrics = new Metrics()
const models = modelRegistry(undefined, modelVersionStore(database.sql, config, metrics))
const model = models.current
const siteIndex = siteIndexFollower(database.reads, config, siteIndexLog(logger))
const nearestSite = siteLookup(database.reads, config, metrics, undefined, siteIndex)
const predictions = new PredictionService(model, nearestSite)
const plans = new StockingPlanService(model, nearestSite, sitesInArea(database.reads, config, metrics))
const runtime = createJobRuntime({
  config,
  database,
  predictions,
  plans,
  models,
  metrics,
  logger,
  work: 'at-start',
})
logger.info(
  {
    concurrency: config.JOB_CONCURRENCY,
    queue: queuePrefix(config.JOB_QUEUE_PREFIX, redis),
    redis: redis.kind === 'cluster' ? 'cluster' : 'single',
  },
  'job worker started',
)

let stopping = false
async function stop(signal: string) {
  if (stopping) return
  stopping = true
  logger.info({ signal }, 'job worker stopping after the chunks in hand')
  await runtime.close()
  siteIndex?.stop()
  await database.close()
  process.exit(0)
}
process.on('SIGTERM', () => void stop('SIGTERM'))
process.on('SIGINT', () => void stop('SIGINT'))
