/** A fresh database for a benchmark: created, migrated and seeded, with unlimited (hypha) keys in it. */

import { openDatabase } from '../src/db/connect.ts'
import { createKey } from '../src/db/keys.ts'
import { migrate } from '../src/db/migrate.ts'
import { seedAll } from '../src/seed/seed-all.ts'
import { createDatabase } from './support.ts'

export interface SeededDatabase {
  name: string
  url: string
  /** Hypha keys, as many as asked for. */
  apiKeys: string[]
  drop(): Promise<void>
}

/** Creates `<prefix>_<random>`, migrates and seeds it and issues `keys` hypha keys; dropped again if any step fails. */
export async function seededDatabase(
  prefix: string,
  log: (message: string) => void,
  keys = 1,
): Promise<SeededDatabase> {
  const database = await createDatabase(prefix)
  try {
    const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 2 })
    try {
      await migrate(db.sql)
      const seedStarted = performance.now()
      await seedAll(db.sql)
      log(`migrated and seeded ${database.name} (seed ${Math.round(performance.now() - seedStarted)} ms)`)
      const apiKeys: string[] = []
      for (let n = 0; n < keys; n++)
        apiKeys.push((await createKey(db.sql, { tier: 'hypha', name: 'bench' })).key)
      return { ...database, apiKeys }
    } finally {
      await db.close()
    }
  } catch (error) {
    await database.drop()
    throw error
  }
}
