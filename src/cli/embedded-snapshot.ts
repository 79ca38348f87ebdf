import { loadConfig } from '../config/config.ts'
import { openDatabase } from '../db/connect.ts'
import { readSnapshot, snapshotKey, writeSnapshot } from '../db/embedded-snapshot.ts'
import { migrate } from '../db/migrate.ts'
import { createLogger } from '../logging/logger.ts'

/**
 * Builds the embedded store's migrated-and-seeded snapshot ahead of time (run after `npm install`),
 * so the first `npm start` without DATABASE_URL skips initdb, migrations and seeding too.
 */
const log = createLogger({ destination: 'stderr' })
const config = loadConfig()
if (config.EMBEDDED_CACHE_DIR === 'off') process.exit(0)
const key = await snapshotKey()
if (await readSnapshot(config.EMBEDDED_CACHE_DIR, key)) {
  log.info({ dir: config.EMBEDDED_CACHE_DIR }, 'embedded snapshot already current')
  process.exit(0)
}
const started = performance.now()
const database = await openDatabase({ DATABASE_URL: undefined, DB_POOL_MAX: 1 })
try {
  await migrate(database.sql)
  const { seedAll } = await import('../seed/seed-all.ts')
  await seedAll(database.sql)
  const snapshot = await database.dumpSnapshot?.()
  const saved = snapshot ? await writeSnapshot(config.EMBEDDED_CACHE_DIR, key, snapshot) : false
  log.info(
    { saved, dir: config.EMBEDDED_CACHE_DIR, ms: Math.round(performance.now() - started) },
    'embedded snapshot built',
  )
} finally {
  await database.close()
}
