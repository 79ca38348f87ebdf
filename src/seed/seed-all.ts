import type { Sql } from '../db/connect.ts'
import { generateSites } from './generate-sites.ts'
import { type SeedProgress, type SeedResult, seedSites, seedSpecies } from './load.ts'

/** Loads every reference data set (species, synthetic sites); idempotent. Tiers come with the migrations. */
export async function seedAll(
  sql: Sql,
  options: { onProgress?: ((progress: SeedProgress) => void) | undefined } = {},
): Promise<SeedResult[]> {
  const species = await seedSpecies(sql)
  const sites = await seedSites(sql, generateSites(), options.onProgress)
  return [species, sites]
}
