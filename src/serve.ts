import { createApp } from './app.ts'
import type { Config } from './config/config.ts'
import { openDatabase } from './db/connect.ts'
import { migrate } from './db/migrate.ts'
import { createDemoKeys, formatDemoKeys } from './keys/demo-keys.ts'
import type { Logger } from './logging/logger.ts'

/** Runs one API server process until SIGTERM/SIGINT, then shuts down gracefully and exits 0. */
export async function serve(config: Config, logger: Logger): Promise<void> {
  const database = await openDatabase(config, { statementTimeoutMs: config.DB_QUERY_TIMEOUT_MS })

  let demoKey: string | undefined
  if (database.mode === 'embedded') {
    // No DATABASE_URL: an in-memory store that must be built from scratch on every start.
    const started = performance.now()
    await migrate(database.sql)
    const { seedAll } = await import('../seed/seed-all.ts')
    await seedAll(database.sql)
    logger.info({ ms: Math.round(performance.now() - started) }, 'embedded store migrated and seeded')
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
