import { createHash } from 'node:crypto'
import type { Sql } from '../db/connect.ts'
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

export function seedSites(
  sql: Sql,
  sites: readonly Site[],
  onProgress?: (progress: SeedProgress) => void,
): Promise<SeedResult> {
  return replaceDataset(sql, 'sites', sites, async (tx, rows) => {
    await tx`DELETE FROM sites`
    for (let start = 0; start < rows.length; start += SITE_CHUNK) {
      await insertSiteChunk(tx, rows.slice(start, start + SITE_CHUNK))
      onProgress?.({ dataset: 'sites', done: Math.min(start + SITE_CHUNK, rows.length), total: rows.length })
    }
    await tx`ANALYZE sites`
  })
}

/** Column arrays + unnest: one statement per chunk, 17 parameters whatever the chunk size. */
export async function insertSiteChunk(tx: Sql, sites: readonly Site[]): Promise<void> {
  const column = <K extends keyof Site>(key: K) => sites.map((site) => site[key])
  await tx`
    INSERT INTO sites (id, latitude, longitude, earth_point, region_id, zone, state, elevation_m, slope_deg, aspect_deg,
      heat_load_index, soil_depth_cm, rock_fraction_pct, vegetation_cover_pct, annual_precip_mm,
      summer_water_deficit_mm, growing_season_frost_days, browse_pressure_index)
    SELECT id, lat, lon, ll_to_earth(lat, lon)::cube, region_id, zone, state, elevation_m, slope_deg, aspect_deg,
      heat_load_index, soil_depth_cm, rock_fraction_pct, vegetation_cover_pct, annual_precip_mm,
      summer_water_deficit_mm, growing_season_frost_days, browse_pressure_index
    FROM unnest(
      ${column('id')}::integer[], ${column('latitude')}::float8[], ${column('longitude')}::float8[],
      ${column('regionId')}::text[], ${column('zone')}::text[], ${sites.map((site) => site.state ?? null)}::text[],
      ${column('elevationM')}::integer[],
      ${column('slopeDeg')}::float8[], ${column('aspectDeg')}::float8[], ${column('heatLoadIndex')}::float8[],
      ${column('soilDepthCm')}::integer[], ${column('rockFractionPct')}::float8[],
      ${column('vegetationCoverPct')}::float8[], ${column('annualPrecipMm')}::integer[],
      ${column('summerWaterDeficitMm')}::integer[], ${column('growingSeasonFrostDays')}::integer[],
      ${column('browsePressureIndex')}::float8[]
    ) AS t (id, lat, lon, region_id, zone, state, elevation_m, slope_deg, aspect_deg, heat_load_index, soil_depth_cm,
      rock_fraction_pct, vegetation_cover_pct, annual_precip_mm, summer_water_deficit_mm,
      growing_season_frost_days, browse_pressure_index)`
}
