import { createHash } from 'node:crypto'
import type { Sql } from '../db/connect.ts'
import {
  abandonSiteImport,
  activateSiteVersion,
  activeSiteVersion,
  adoptUnversionedSites,
  beginSiteImport,
  finishSiteImport,
  insertSites,
  listSiteVersions,
  SiteContentHash,
} from '../db/site-data-versions.ts'
import { SPECIES } from '../domain/species.ts'
import type { Site, Species } from '../types.ts'

export interface SeedProgress {
  dataset: string
  done: number
  total: number
}

export interface SeedResult {
  dataset: string
  rows: number
  /** false when the stored fingerprint already matched: nothing was written. */
  changed: boolean
}

const SITE_CHUNK = 3000

export function fingerprint(rows: unknown): string {
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex')
}

/**
 * Replaces a data set inside one transaction unless the stored fingerprint already matches, so
 * re-running with identical data changes nothing and a changed generator replaces every row.
 */
async function replaceDataset<T>(
  sql: Sql,
  dataset: string,
  rows: readonly T[],
  write: (tx: Sql, rows: readonly T[]) => Promise<void>,
): Promise<SeedResult> {
  const print = fingerprint(rows)
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`seed:${dataset}`}))`
    const [state] = await tx<
      { fingerprint: string }[]
    >`SELECT fingerprint FROM seed_state WHERE dataset = ${dataset}`
    if (state?.fingerprint === print) return { dataset, rows: rows.length, changed: false }
    await write(tx as unknown as Sql, rows)
    await tx`
      INSERT INTO seed_state (dataset, fingerprint, row_count) VALUES (${dataset}, ${print}, ${rows.length})
      ON CONFLICT (dataset) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, row_count = EXCLUDED.row_count,
        loaded_at = now()`
    return { dataset, rows: rows.length, changed: true }
  })
}

export function seedSpecies(sql: Sql, species: readonly Species[] = SPECIES): Promise<SeedResult> {
  return replaceDataset(sql, 'species', species, async (tx, rows) => {
    await tx`DELETE FROM species`
    await tx`
      INSERT INTO species ${tx(
        rows.map((s) => ({
          code: s.code,
          common_name: s.commonName,
          scientific_name: s.scientificName,
          species_group: s.group,
          elev_min_m: s.elevMinM,
          elev_max_m: s.elevMaxM,
          precip_min_mm: s.precipMinMm,
          precip_max_mm: s.precipMaxMm,
          drought_tolerance: s.droughtTolerance,
          shade_tolerance: s.shadeTolerance,
          frost_tolerance: s.frostTolerance,
          range_zones: s.rangeZones,
          range_states: s.rangeStates,
          notes: s.notes,
        })),
      )}`
  })
}

/** The source a synthetic data set is catalogued under (`npm run sites -- list`). */
export const SYNTHETIC_SOURCE = 'synthetic generator (src/seed/generate-sites.ts)'

/**
 * The synthetic sites as a site data version (src/db/site-data-versions.ts), activated unless an
 * operator's data set is active: `npm run db:seed` never replaces imported data. The same sites are the
 * same version, so seeding again changes nothing; a changed generator makes a new version and
 * activates it in place of the old synthetic one.
 */
export async function seedSites(
  sql: Sql,
  sites: readonly Site[],
  onProgress?: (progress: SeedProgress) => void,
): Promise<SeedResult> {
  await adoptUnversionedSites(sql, SYNTHETIC_SOURCE)
  const hash = new SiteContentHash()
  for (const site of sites) hash.add(site)
  const made = hash.finish()
  const kept = (await listSiteVersions(sql)).find((version) => version.version === made.version)
  if (!kept) {
    const staging = await beginSiteImport(sql, SYNTHETIC_SOURCE)
    try {
      for (let start = 0; start < sites.length; start += SITE_CHUNK) {
        await insertSites(sql, staging, sites.slice(start, start + SITE_CHUNK))
        onProgress?.({
          dataset: 'sites',
          done: Math.min(start + SITE_CHUNK, sites.length),
          total: sites.length,
        })
      }
      await finishSiteImport(sql, staging, made, { source: SYNTHETIC_SOURCE, defaults: {} })
    } catch (error) {
      await abandonSiteImport(sql, staging).catch(() => {})
      throw error
    }
  }
  const active = await activeSiteVersion(sql)
  if (active?.version === made.version) return { dataset: 'sites', rows: sites.length, changed: false }
  if (active && active.source !== SYNTHETIC_SOURCE)
    return { dataset: 'sites', rows: sites.length, changed: false }
  await activateSiteVersion(sql, made.version)
  return { dataset: 'sites', rows: sites.length, changed: true }
}

/** Inserts into the active `sites` table (tests and benchmarks that add sites by hand). */
export function insertSiteChunk(tx: Sql, sites: readonly Site[]): Promise<void> {
  return insertSites(tx, 'sites', sites)
}
