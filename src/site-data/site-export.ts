import type { Sql } from '../db/connect.ts'
import { SiteVersionError } from '../db/site-data-versions.ts'
import { formatOfNameOrFail, type SiteFileFormat } from '../site-files/site-file-source.ts'
import type { ExportSite } from '../site-files/site-format.ts'
import { writeSiteFile } from '../site-files/site-writers.ts'
import type { Site } from '../types.ts'

/*
 * `npm run sites -- export FILE`: a version of the site data (the active one by default) written as a
 * site data file, in the format of FILE's extension. The rows are read from PostgreSQL with a cursor,
 * a batch at a time, in id order (the file's order when imported), and streamed through the writer:
 * never held whole. Read back, the file gives the same version.
 */

/** Rows the cursor reads at a time. */
export const EXPORT_CURSOR_ROWS = 2000

export interface SiteExportOptions {
  /** The version to write; the active one by default. */
  version?: string
  /** The format; by default the one FILE's extension says. */
  format?: SiteFileFormat
  /** Replace a file already at the path (by default it is refused). */
  overwrite?: boolean
  /** GeoPackage: the layer's name (default `sites`). */
  layer?: string
  cursorRows?: number
}

export interface SiteExportResult {
  path: string
  format: SiteFileFormat
  version: string
  rows: number
}

type StoredSite = Omit<Site, 'state'> & { state: Site['state'] | null }

/** A stored row as the writer takes it: its id written as site_id, no state where it has none. */
function exportSite(row: StoredSite): ExportSite {
  if (row.state !== null) return row as ExportSite
  const { state: _none, ...rest } = row
  return rest
}

/**
 * Writes a version to `path`. The catalogue's lock is held shared for the while: no activation or
 * drop moves the version's table until the file is written.
 */
export async function exportSiteVersion(
  sql: Sql,
  path: string,
  options: SiteExportOptions = {},
): Promise<SiteExportResult> {
  const format = options.format ?? formatOfNameOrFail(path)
  const result = await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock_shared(hashtext('site_data_versions'))`
    const [row] = options.version
      ? await tx<{ version: string; active: boolean }[]>`
          SELECT version, active FROM site_data_versions WHERE version = ${options.version}`
      : await tx<{ version: string; active: boolean }[]>`
          SELECT version, active FROM site_data_versions WHERE active`
    if (!row)
      throw new SiteVersionError(
        options.version
          ? `no site data version ${options.version} (npm run sites -- list shows them)`
          : 'no site data version is active: run `npm run db:seed`, or import one and activate it',
      )
    // The active version's table is `sites`; every other keeps its version's name.
    const table = row.active ? 'sites' : row.version
    const cursor = tx<StoredSite[]>`
      SELECT id, latitude, longitude, region_id, zone, state, elevation_m, slope_deg, aspect_deg, heat_load_index,
        soil_depth_cm, rock_fraction_pct, vegetation_cover_pct, annual_precip_mm, summer_water_deficit_mm,
        growing_season_frost_days, browse_pressure_index
      FROM ${tx(table)} ORDER BY id`.cursor(options.cursorRows ?? EXPORT_CURSOR_ROWS)
    async function* sites(): AsyncGenerator<ExportSite> {
      for await (const rows of cursor) for (const stored of rows) yield exportSite(stored)
    }
    const written = await writeSiteFile(sites(), path, {
      format,
      overwrite: options.overwrite,
      layer: options.layer,
    })
    return { ...written, version: row.version }
  })
  return result as SiteExportResult
}
