import { seedAll } from '../../seed/seed-all.ts'
import { createKey, type IssuedKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
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

/** Forest points that have a site within the radius (Coast Range, Cascades, eastside). */
export const FOREST_POINTS = {
  coastRange: { latitude: 44.6, longitude: -123.6 },
  westCascades: { latitude: 44.2, longitude: -122.2 },
  eastCascades: { latitude: 44.0, longitude: -121.6 },
} as const

export const NO_DATA_POINTS = {
  downtownPortland: { latitude: 45.5152, longitude: -122.6784 },
  openPugetSound: { latitude: 47.62, longitude: -122.43 },
} as const

export const OUTSIDE_POINTS = {
  boise: { latitude: 43.615, longitude: -116.202 },
  openPacific: { latitude: 46.5, longitude: -125.0 },
} as const
