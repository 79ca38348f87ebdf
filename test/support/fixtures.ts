import { createKey, type IssuedKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { seedAll } from '../../src/seed/seed-all.ts'
import type { TierName } from '../../src/types.ts'
import { createTestDatabase, type TestDatabase } from './database.ts'

/** A migrated, fully seeded PostgreSQL database for API tests. */
export async function createSeededDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase()
  await migrate(db.sql)
  await seedAll(db.sql)
  return db
}

export function issueKey(db: TestDatabase, tier: TierName): Promise<IssuedKey> {
  return createKey(db.sql, { tier, name: `test ${tier}` })
}
