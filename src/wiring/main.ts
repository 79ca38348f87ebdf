import cluster from 'node:cluster'
import { loadConfig } from '../config/config.ts'
import { createLogger } from '../logging/logger.ts'
import { redisTarget } from '../redis/connection.ts'
import { runPrimary } from './cluster.ts'
import { serve } from './serve.ts'

const config = loadConfig()
const logger = createLogger({ level: config.LOG_LEVEL })

if (config.WEB_CONCURRENCY > 1 && cluster.isPrimary) {
  if (!config.DATABASE_URL || !redisTarget(config)) {
    // Each worker would get its own embedded database or its own quota counters.
    logger.error(
      'WEB_CONCURRENCY > 1 needs DATABASE_URL and REDIS_URL (or REDIS_CLUSTER_NODES) shared by every worker',
    )
    process.exit(1)
  }
  runPrimary(config.WEB_CONCURRENCY, logger)
} else {
  await serve(config, logger)
}
