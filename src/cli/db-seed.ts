import { loadConfig } from '../config/config.ts'
import { openDatabase } from '../db/connect.ts'
import { createLogger } from '../logging/logger.ts'
import { seedAll } from '../seed/seed-all.ts'

const log = createLogger({ destination: 'stderr' })
const config = loadConfig()
if (!config.DATABASE_URL) {
  log.error('DATABASE_URL is not set: the embedded store is seeded by `npm start` itself')
  process.exit(1)
}

const showProgress = process.stdout.isTTY
const database = await openDatabase(config)
try {
  const started = performance.now()
  const results = await seedAll(database.sql, {
    onProgress: showProgress
      ? ({ dataset, done, total }) => {
          const width = 30
          const filled = Math.round((done / total) * width)
          process.stdout.write(
            `\r${dataset.padEnd(8)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`,
          )
          if (done === total) process.stdout.write('\n')
        }
      : undefined,
  })
  log.info({ results, ms: Math.round(performance.now() - started) }, 'seed complete')
} catch (error) {
  log.error({ err: error }, 'seed failed')
  process.exitCode = 1
} finally {
  await database.close()
}
