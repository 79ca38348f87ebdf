import cluster from 'node:cluster'
import { loadConfig, serverConfig } from '../config/config.ts'
import { createLogger } from '../logging/logger.ts'
import { redisTarget } from '../redis/connection.ts'
import { runPrimary } from './cluster.ts'
import { serve } from './serve.ts'

// With DATABASE_URL the start stops here without ADDRESS_HASH_KEY (the message says how to make one),
// or with /metrics open (neither METRICS_TOKEN nor METRICS_PORT: the message names both).
const config = serverConfig(loadConfig(process.env, { server: true }))
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
