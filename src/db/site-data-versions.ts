import { createHash, randomBytes } from 'node:crypto'
import type { Site } from '../types.ts'
import { type Sql, singleConnection } from './connect.ts'

/*
 * Site data sets as versions (sql/018_site_data_versions.sql). An import fills a staging table a batch
 * at a time, then becomes `sites_<12 hex of its content hash>`; activating a version renames its table
 * to `sites`, the one every query reads, in one transaction with site_revision. Versions never change:
 * the same rows give the same name, and an import of rows already kept keeps the version there is.
 * An import under way holds an advisory lock: the staging table of one whose process died is dropped
 * by the next import or list.
 */

export interface SiteDataVersion {
  version: string
  rowCount: number
  /** [west, south, east, north]; null for an empty data set. */
  bounds: [number, number, number, number] | null
  source: string
  /** Rows that took each optional attribute's default. */
  defaults: Record<string, number>
  importedAt: Date
  active: boolean
  activatedAt: Date | null
}

/** A minute without a batch: the import's process is gone, or hangs. */
const STALE_IMPORT_MS = 60_000
/**
 * An import holds a session advisory lock for its staging table, keyed (this, hashtext(staging)), from
 * before its row is written until after it is finished or abandoned: a process that dies loses it at
 * once, and the next import or list drops what it left.
 */
const IMPORT_LOCK_SPACE = 'site_data_imports'
const VERSION_NAME = /^sites_[0-9a-f]{12}$/

/** The content hash of a data set, row by row in order: the version's name. */
export class SiteContentHash {
  private readonly hash = createHash('sha256')
  rows = 0
  private west = Number.POSITIVE_INFINITY
  private south = Number.POSITIVE_INFINITY
  private east = Number.NEGATIVE_INFINITY
  private north = Number.NEGATIVE_INFINITY

  add(site: Omit<Site, 'id'>): void {
    this.hash.update(
      `${JSON.stringify([
        site.latitude,
        site.longitude,
        site.regionId,
        site.zone,
        site.state ?? null,
        site.elevationM,
        site.slopeDeg,
        site.aspectDeg,
        site.heatLoadIndex,
        site.soilDepthCm,
        site.rockFractionPct,
        site.vegetationCoverPct,
        site.annualPrecipMm,
        site.summerWaterDeficitMm,
        site.growingSeasonFrostDays,
        site.browsePressureIndex,
      ])}\n`,
    )
    this.rows += 1
    this.west = Math.min(this.west, site.longitude)
    this.east = Math.max(this.east, site.longitude)
    this.south = Math.min(this.south, site.latitude)
    this.north = Math.max(this.north, site.latitude)
  }

  /** The version's name and bounds; the hash cannot be added to after. */
  finish(): { version: string; bounds: SiteDataVersion['bounds']; rowCount: number } {
    return {
      version: `sites_${this.hash.digest('hex').slice(0, 12)}`,
      bounds: this.rows === 0 ? null : [this.west, this.south, this.east, this.north],
      rowCount: this.rows,
    }
  }
}

/** The lock holders of this process's imports under way, each releasing its lock (and connection). */
const heldImports = new Map<string, () => Promise<void>>()

/**
 * Takes an import's lock for good: on a client of its own with one connection, idle but for the
 * lock, so that the import's statements run on the pool meanwhile. Not a connection reserved from
 * the pool: postgres.js writes to a reserved connection after its server has closed it, which
 * throws where no caller can catch it, and returns it to the pool as if it were open. A client of
 * its own reconnects instead, and an unlock on the new session is a harmless no-op. A pool of one
 * connection (the embedded store) takes the lock on that connection, whose session then runs every
 * statement of the import.
 */
async function holdImportLock(sql: Sql, staging: string): Promise<void> {
  const ownClient = (sql.options?.max ?? 1) > 1
  const holder: Sql = ownClient ? singleConnection(sql) : sql
  const closeHolder = async () => {
    if (ownClient) await holder.end({ timeout: 1 })
  }
  try {
    await holder`SELECT pg_advisory_lock(hashtext(${IMPORT_LOCK_SPACE}), hashtext(${staging}))`
  } catch (error) {
    await closeHolder()
    throw error
  }
  heldImports.set(staging, async () => {
    heldImports.delete(staging)
    try {
      if (ownClient) await closeHolder()
      else await holder`SELECT pg_advisory_unlock(hashtext(${IMPORT_LOCK_SPACE}), hashtext(${staging}))`
    } catch {
      // A connection that is gone has let go of its locks already.
    }
  })
}

async function releaseImportLock(staging: string): Promise<void> {
  await heldImports.get(staging)?.()
}

/**
 * Drops the staging tables of imports whose process is gone: their lock is held by no session (the
 * process died, and its connections with it), or their heartbeat is a minute old (it hangs). How many.
 */
export async function dropStaleImports(sql: Sql, now = new Date()): Promise<number> {
  const stale = await sql<{ staging: string }[]>`
    SELECT staging FROM site_data_imports i
    WHERE heartbeat_at < ${new Date(now.getTime() - STALE_IMPORT_MS)}
      OR NOT EXISTS (
        SELECT 1 FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid = hashtext(${IMPORT_LOCK_SPACE})::oid AND l.objid = hashtext(i.staging)::oid)`
  for (const { staging } of stale) {
    await sql.begin(async (tx) => {
      await tx`DROP TABLE IF EXISTS ${tx(staging)}`
      await tx`DELETE FROM site_data_imports WHERE staging = ${staging}`
    })
    await releaseImportLock(staging)
  }
  return stale.length
}

/**
 * A new, empty staging table shaped as `sites` (no index yet: they are built once it is full), its
 * lock held until finishSiteImport or abandonSiteImport.
 */
export async function beginSiteImport(sql: Sql, source: string): Promise<string> {
  await dropStaleImports(sql)
  const staging = `sites_import_${randomBytes(8).toString('hex')}`
  await holdImportLock(sql, staging)
  try {
    await sql.begin(async (tx) => {
      await tx`CREATE TABLE ${tx(staging)} (LIKE sites INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`
      await tx`INSERT INTO site_data_imports (staging, source) VALUES (${staging}, ${source})`
    })
  } catch (error) {
    await releaseImportLock(staging)
    throw error
  }
  return staging
}

/** Column arrays + unnest into `table`: one statement per batch, 17 parameters whatever its size. */
export async function insertSites(sql: Sql, table: string, sites: readonly Site[]): Promise<void> {
  const column = <K extends keyof Site>(key: K) => sites.map((site) => site[key])
  await sql`
    INSERT INTO ${sql(table)} (id, latitude, longitude, earth_point, region_id, zone, state, elevation_m, slope_deg,
      aspect_deg, heat_load_index, soil_depth_cm, rock_fraction_pct, vegetation_cover_pct, annual_precip_mm,
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
  await sql`UPDATE site_data_imports SET heartbeat_at = now() WHERE staging = ${table}`
}

/**
 * The staging table becomes its version (indexed, analysed, catalogued); when the same rows are kept
 * already, it is dropped and the kept version answered.
 */
export async function finishSiteImport(
  sql: Sql,
  staging: string,
  made: { version: string; bounds: SiteDataVersion['bounds']; rowCount: number },
  details: { source: string; defaults: Record<string, number> },
): Promise<{ version: SiteDataVersion; created: boolean }> {
  if (!VERSION_NAME.test(made.version)) throw new RangeError(`not a site data version: ${made.version}`)
  const finished = await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('site_data_versions'))`
    await tx`DELETE FROM site_data_imports WHERE staging = ${staging}`
    const [kept] = await tx<
      SiteDataVersion[]
    >`SELECT * FROM site_data_versions WHERE version = ${made.version}`
    if (kept) {
      await tx`DROP TABLE ${tx(staging)}`
      return { version: versionOf(kept), created: false }
    }
    // Its indexes are named by the version, as its table: none keeps the staging table's name.
    await tx`ALTER TABLE ${tx(staging)} ADD CONSTRAINT ${tx(`${made.version}_pkey`)} PRIMARY KEY (id)`
    await tx`CREATE INDEX ${tx(`${made.version}_knn`)} ON ${tx(staging)} USING gist (earth_point)`
    // A version is not edited, but a change made to it by hand in SQL still reaches every cache.
    await tx`
      CREATE TRIGGER ${tx(`${made.version}_bump_revision`)} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
      ON ${tx(staging)} FOR EACH STATEMENT EXECUTE FUNCTION bump_site_revision()`
    await tx`ANALYZE ${tx(staging)}`
    await tx`ALTER TABLE ${tx(staging)} RENAME TO ${tx(made.version)}`
    const [west, south, east, north] = made.bounds ?? [null, null, null, null]
    const [row] = await tx<SiteDataVersion[]>`
      INSERT INTO site_data_versions (version, row_count, west, south, east, north, source, defaults)
      VALUES (${made.version}, ${made.rowCount}, ${west}, ${south}, ${east}, ${north}, ${details.source},
              ${tx.json(details.defaults)})
      RETURNING *`
    return { version: versionOf(row as SiteDataVersion), created: true }
  })
  await releaseImportLock(staging)
  return finished as { version: SiteDataVersion; created: boolean }
}

/** Gives up an import: its staging table and its row. */
export async function abandonSiteImport(sql: Sql, staging: string): Promise<void> {
  try {
    await sql.begin(async (tx) => {
      await tx`DROP TABLE IF EXISTS ${tx(staging)}`
      await tx`DELETE FROM site_data_imports WHERE staging = ${staging}`
    })
  } finally {
    await releaseImportLock(staging)
  }
}

type VersionRow = Omit<SiteDataVersion, 'bounds'> & Record<'west' | 'south' | 'east' | 'north', number | null>

function versionOf(row: SiteDataVersion | VersionRow): SiteDataVersion {
  const { west, south, east, north, ...rest } = row as VersionRow
  return {
    ...rest,
    rowCount: Number(rest.rowCount),
    bounds: west === null ? null : [west, south as number, east as number, north as number],
  }
}

export async function listSiteVersions(sql: Sql): Promise<SiteDataVersion[]> {
  await dropStaleImports(sql)
  const rows = await sql<VersionRow[]>`SELECT * FROM site_data_versions ORDER BY imported_at, version`
  return rows.map(versionOf)
}

/** Where a version came from (its file's name, or the synthetic generator); null for no such version. */
export async function siteVersionSource(sql: Sql, version: string): Promise<string | null> {
  const [row] = await sql<
    { source: string }[]
  >`SELECT source FROM site_data_versions WHERE version = ${version}`
  return row?.source ?? null
}

export async function activeSiteVersion(sql: Sql): Promise<SiteDataVersion | null> {
  const [row] = await sql<VersionRow[]>`SELECT * FROM site_data_versions WHERE active`
  return row ? versionOf(row) : null
}

/**
 * Makes `version` the data every query reads: in one transaction the active table goes back to its
 * version's name, `version`'s table becomes `sites`, and site_revision names it (a new revision, so
 * every cache of site data starts over). A `sites` table that is no version (a database from before
 * versions, or the migrations' empty one) is dropped when empty and refused otherwise.
 */
export async function activateSiteVersion(sql: Sql, version: string): Promise<SiteDataVersion> {
  if (!VERSION_NAME.test(version)) throw new SiteVersionError(`${version} is not a site data version name`)
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('site_data_versions'))`
    const [target] = await tx<VersionRow[]>`SELECT * FROM site_data_versions WHERE version = ${version}`
    if (!target) throw new SiteVersionError(`no site data version ${version}`)
    const [current] = await tx<VersionRow[]>`SELECT * FROM site_data_versions WHERE active`
    if (current?.version === version) return versionOf(target)
    if (current) await tx`ALTER TABLE sites RENAME TO ${tx(current.version)}`
    else {
      const [{ rows } = { rows: 0 }] = await tx<{ rows: number }[]>`SELECT count(*)::int AS rows FROM sites`
      if (rows > 0)
        throw new SiteVersionError(
          'the sites table holds rows that are no version: run `npm run db:seed` once to adopt them',
        )
      await tx`DROP TABLE sites`
    }
    await tx`ALTER TABLE ${tx(version)} RENAME TO sites`
    await tx`UPDATE site_data_versions SET active = false, activated_at = activated_at WHERE active`
    const [row] = await tx<VersionRow[]>`
      UPDATE site_data_versions SET active = true, activated_at = now() WHERE version = ${version} RETURNING *`
    await tx`INSERT INTO site_data_activations (version) VALUES (${version})`
    await tx`UPDATE site_revision SET revision = gen_random_uuid(), changed_at = now(), data_version = ${version}`
    return versionOf(row as VersionRow)
  }) as Promise<SiteDataVersion>
}

/** Activates the version active before the current one. */
export async function rollbackSiteVersion(sql: Sql): Promise<SiteDataVersion> {
  const history = await sql<{ version: string }[]>`
    SELECT version FROM site_data_activations ORDER BY seq DESC`
  const current = history[0]?.version
  const previous = history.find((entry) => entry.version !== current)
  if (!previous) throw new SiteVersionError('there is no earlier version to roll back to')
  const exists = await sql`SELECT 1 FROM site_data_versions WHERE version = ${previous.version}`
  if (exists.length === 0) throw new SiteVersionError(`the earlier version ${previous.version} was dropped`)
  return activateSiteVersion(sql, previous.version)
}

/** Drops a version that is not active: its table and its catalogue row. */
export async function dropSiteVersion(sql: Sql, version: string): Promise<void> {
  if (!VERSION_NAME.test(version)) throw new SiteVersionError(`${version} is not a site data version name`)
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('site_data_versions'))`
    const [row] = await tx<VersionRow[]>`SELECT * FROM site_data_versions WHERE version = ${version}`
    if (!row) throw new SiteVersionError(`no site data version ${version}`)
    if (row.active) throw new SiteVersionError(`${version} is active: activate another first`)
    await tx`DROP TABLE ${tx(version)}`
    await tx`DELETE FROM site_data_versions WHERE version = ${version}`
  })
}

/**
 * A database whose `sites` table holds rows but no version (from before versions): the rows become
 * the active version, named by their content, in place. Nothing when a version is active or `sites` is
 * empty. The version's name, or null.
 */
export async function adoptUnversionedSites(sql: Sql, source: string): Promise<string | null> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('site_data_versions'))`
    const [active] = await tx`SELECT 1 FROM site_data_versions WHERE active`
    if (active) return null
    const hash = new SiteContentHash()
    const sites = await tx<Site[]>`
      SELECT id, latitude, longitude, region_id, zone, state, elevation_m, slope_deg, aspect_deg, heat_load_index,
        soil_depth_cm, rock_fraction_pct, vegetation_cover_pct, annual_precip_mm, summer_water_deficit_mm,
        growing_season_frost_days, browse_pressure_index
      FROM sites ORDER BY id`
    if (sites.length === 0) return null
    for (const site of sites) hash.add(site)
    const made = hash.finish()
    const [west, south, east, north] = made.bounds ?? [null, null, null, null]
    await tx`
      INSERT INTO site_data_versions (version, row_count, west, south, east, north, source, active, activated_at)
      VALUES (${made.version}, ${made.rowCount}, ${west}, ${south}, ${east}, ${north}, ${source}, true, now())`
    await tx`INSERT INTO site_data_activations (version) VALUES (${made.version})`
    await tx`UPDATE site_revision SET data_version = ${made.version}`
    return made.version
  }) as Promise<string | null>
}

/** A refusal the sites CLI reports as it is (exit code 1), never a crash. */
export class SiteVersionError extends Error {}
