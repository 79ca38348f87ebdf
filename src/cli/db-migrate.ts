import { loadConfig } from '../config/config.ts'
import { openDatabase } from '../db/connect.ts'
import { migrate } from '../db/migrate.ts'
import { createLogger } from '../logging/logger.ts'

const log = createLogger({ destination: 'stderr' })
const config = loadConfig()
if (!config.DATABASE_URL) {
  log.error('DATABASE_URL is not set: the embedded store is migrated by `npm start` itself')
  process.exit(1)
}
const database = await openDatabase(config)
try {
  const applied = await migrate(database.sql)
  log.info({ applied }, applied.length ? 'migrations applied' : 'schema up to date')
} catch (error) {
  log.error({ err: error }, 'migration failed')
  process.exitCode = 1
} finally {
  await database.close()
}
