import type { Config, ServerConfig } from '../config/config.ts'
import { type Database, openDatabase } from '../db/connect.ts'
import { readSnapshot, snapshotKey, writeSnapshot } from '../db/embedded-snapshot.ts'
import { migrate } from '../db/migrate.ts'
import { logReplicaStates } from '../db/read-replicas.ts'
import type { Logger } from '../logging/logger.ts'
import { createApp } from './app.ts'
import { createDemoKeys, formatDemoKeys } from './demo-keys.ts'

/**
 * With DATABASE_URL: that PostgreSQL, as it is. Without: the embedded store, started from the cached
 * migrated-and-seeded snapshot when one matches the current migrations and seed, else built from
 * scratch (migrate + seed) and cached for the next start.
 */
async function openEmbeddedOrConfigured(config: Config, logger: Logger): Promise<Database> {
  const statementTimeoutMs = config.DB_QUERY_TIMEOUT_MS
  if (config.DATABASE_URL)
    return openDatabase(config, {
      statementTimeoutMs,
      readReplicas: true,
      onReplicaStateChange: logReplicaStates(logger),
    })
  const started = performance.now()
  const caching = config.EMBEDDED_CACHE_DIR !== 'off'
  const key = caching ? await snapshotKey() : ''
  const snapshot = caching ? await readSnapshot(config.EMBEDDED_CACHE_DIR, key) : undefined
  const database = await openDatabase(config, { statementTimeoutMs, embeddedSnapshot: snapshot })
  if (snapshot) {
    logger.info(
      { ms: Math.round(performance.now() - started) },
      'embedded store started from its cached snapshot',
    )
    return database
  }
  await migrate(database.sql)
  const { seedAll } = await import('../seed/seed-all.ts')
  await seedAll(database.sql)
  logger.info({ ms: Math.round(performance.now() - started) }, 'embedded store migrated and seeded')
  if (caching && database.dumpSnapshot) {
    const saved = await writeSnapshot(config.EMBEDDED_CACHE_DIR, key, await database.dumpSnapshot())
    if (saved)
      logger.info({ dir: config.EMBEDDED_CACHE_DIR }, 'embedded store snapshot cached for the next start')
  }
  return database
}

/** Where METRICS_PORT listens: loopback only, for a Prometheus (or an agent) on the same machine. */
const METRICS_HOST = '127.0.0.1'

/** Runs one API server process until SIGTERM/SIGINT, then shuts down gracefully and exits 0. */
export async function serve(config: ServerConfig, logger: Logger): Promise<void> {
  const database = await openEmbeddedOrConfigured(config, logger)

  let demoKey: string | undefined
  if (database.mode === 'embedded') {
    const demoKeys = await createDemoKeys(database.sql)
    demoKey = demoKeys.find((k) => k.tier === 'mycel')?.key
    process.stdout.write(`\n${formatDemoKeys(demoKeys)}\n\n`)
  }

  const app = createApp({ config, database, logger, demoKey })
  app.server.listen(config.PORT, config.HOST, () => {
    logger.info(
      { port: config.PORT, database: database.mode, graphiql: config.GRAPHIQL },
      'survival API listening',
    )
  })
  // Only this machine reaches it. Under WEB_CONCURRENCY > 1 every worker listens here and node:cluster
  // shares the port as it shares PORT: the primary holds it and hands each scrape to one worker.
  app.metricsServer?.listen(config.METRICS_PORT, METRICS_HOST, () => {
    logger.info({ host: METRICS_HOST, port: config.METRICS_PORT }, '/metrics listening on its own port')
  })

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down: finishing in-flight requests')
    await app.close(config.SHUTDOWN_GRACE_MS)
    await database.close()
    logger.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
