import type postgres from 'postgres'
import type { Coordinates, NearestSite, Site, SiteBox } from '../types.ts'
import { withDeadline } from './availability.ts'
import type { Sql } from './connect.ts'

/** A site's columns, from the table aliased `s`, in the order of the Site type. */
export function siteColumns(sql: Sql) {
  return sql`
    s.id, s.latitude, s.longitude, s.region_id, s.zone, s.state, s.elevation_m, s.slope_deg, s.aspect_deg,
    s.heat_load_index, s.soil_depth_cm, s.rock_fraction_pct, s.vegetation_cover_pct, s.annual_precip_mm,
    s.summer_water_deficit_mm, s.growing_season_frost_days, s.browse_pressure_index`
}

/** Nearest sites read in one statement, with the revision of the table they were read at. */
export interface NearestSitesRead {
  /** The sites table's revision (sql/004_site_revision.sql) when the statement ran. */
  revision: string
  /** The site data version active when the statement ran (sql/018); null before any is. */
  dataVersion: string | null
  /** Per point, in the points' order; null when no site lies within the radius. */
  nearest: (NearestSite | null)[]
}

/** Like NearestSitesRead, with each nearest site named by its id alone. */
export interface NearestSiteIdsRead {
  revision: string
  dataVersion: string | null
  nearest: ({ siteId: number; distanceKm: number } | null)[]
}

type Deadline = { deadlineMs?: number }

/**
 * Nearest site for each point, in ONE statement: the points are unnested in order and each does an
 * index-backed KNN (`<->` on the GiST-indexed earth_point), selecting `columns` of the site found (`s`)
 * and its great-circle distance. Rows come in the order of `points`, one per point (a site's columns are
 * null when the table is empty); the first row also carries the table's revision, read in the same
 * snapshot as the sites. No points, no KNN: the revision alone is read.
 *
 * Each point's cube is built once from earth() and cosd/sind, the same coordinates ll_to_earth() gives
 * but without its `earth` domain checks (half the statement's cost for a 500-point batch), and the
 * great-circle distance comes from the cube's chord, 2R·asin(chord / 2R), which is exactly what
 * earth_distance() computes.
 */
async function nearestRows<Row extends { distanceKm: number | null }>(
  sql: Sql,
  points: readonly Coordinates[],
  columns: postgres.Fragment,
  options: Deadline,
): Promise<SiteRevision & { rows: readonly Row[] }> {
  if (points.length === 0) return { ...(await siteRevisionRead(sql)), rows: [] }
  const latitudes = new Array<number>(points.length)
  const longitudes = new Array<number>(points.length)
  for (let i = 0; i < points.length; i++) {
    const { latitude, longitude } = points[i] as Coordinates
    latitudes[i] = finiteCoordinate(latitude)
    longitudes[i] = finiteCoordinate(longitude)
  }
  // The revision is wanted once: null on every other row costs the driver nothing to read.
  type Revised = Row & { revision: string | null; dataVersion: string | null }
  const query = sql<Revised[]>`
    SELECT CASE WHEN q.ord = 1 THEN (SELECT revision::text FROM site_revision) END AS revision,
           CASE WHEN q.ord = 1 THEN (SELECT data_version FROM site_revision) END AS data_version, nearest.*
    FROM unnest(${float8Array(latitudes)}::float8[], ${float8Array(longitudes)}::float8[]) WITH ORDINALITY AS q (lat, lon, ord)
    CROSS JOIN LATERAL (
      SELECT cube(array[earth() * cosd(q.lat) * cosd(q.lon), earth() * cosd(q.lat) * sind(q.lon), earth() * sind(q.lat)]) AS point
    ) p
    LEFT JOIN LATERAL (
      SELECT ${columns},
             2 * earth() * asin(least(1, (s.earth_point <-> p.point) / (2 * earth()))) / 1000 AS distance_km
      FROM sites s
      ORDER BY s.earth_point <-> p.point
      LIMIT 1
    ) nearest ON true
    ORDER BY q.ord`
  const rows = await (options.deadlineMs ? withDeadline<Revised[]>(query, options.deadlineMs) : query)
  const first = rows[0]
  if (!first?.revision) throw new Error('site_revision has no row (run the migrations)')
  return { revision: first.revision, dataVersion: first.dataVersion, rows }
}

/** The nearest site to each point with all its attributes; null beyond radiusKm. */
export async function findNearestSites(
  sql: Sql,
  points: readonly Coordinates[],
  radiusKm: number,
  options: Deadline = {},
): Promise<NearestSitesRead> {
  const { revision, dataVersion, rows } = await nearestRows<Site & { distanceKm: number | null }>(
    sql,
    points,
    siteColumns(sql),
    options,
  )
  return {
    revision,
    dataVersion,
    nearest: rows.map((row) =>
      row.distanceKm === null || row.distanceKm > radiusKm
        ? null
        : { site: siteOf(row), distanceKm: row.distanceKm, dataVersion },
    ),
  }
}

/**
 * The nearest site's id alone: the same statement as findNearestSites, reading 2 columns a point
 * instead of 18, for a caller that holds the sites' attributes already (site-cache.ts).
 */
export async function findNearestSiteIds(
  sql: Sql,
  points: readonly Coordinates[],
  radiusKm: number,
  options: Deadline = {},
): Promise<NearestSiteIdsRead> {
  const { revision, dataVersion, rows } = await nearestRows<{ id: number | null; distanceKm: number | null }>(
    sql,
    points,
    sql`s.id`,
    options,
  )
  return {
    revision,
    dataVersion,
    nearest: rows.map((row) =>
      row.id === null || row.distanceKm === null || row.distanceKm > radiusKm
        ? null
        : { siteId: row.id, distanceKm: row.distanceKm },
    ),
  }
}

function finiteCoordinate(value: number): number {
  if (!Number.isFinite(value)) throw new RangeError(`coordinate ${value} is not a finite number`)
  return value
}

/**
 * An array literal of finite numbers, each as PostgreSQL's float8 input reads it back exactly (JavaScript's
 * shortest round-trip form, which JSON.stringify writes all at once): written here, as postgres.js would
 * otherwise quote and escape every element.
 */
function float8Array(values: readonly number[]): string {
  return `{${JSON.stringify(values).slice(1, -1)}}`
}

/**
 * One string per distinct value of the labels sites share (region, zone, state: a few dozen values),
 * instead of a fresh copy per row read: a site held in memory (site-cache.ts, the survival map) then
 * costs a fifth less.
 */
const sharedLabels = new Map<string, string>()
const MOST_SHARED_LABELS = 1000

function sharedLabel<Label extends string>(text: Label): Label {
  const known = sharedLabels.get(text) as Label | undefined
  if (known !== undefined) return known
  if (sharedLabels.size < MOST_SHARED_LABELS) sharedLabels.set(text, text)
  return text
}

/** The row's site columns, spelled out: a literal of fixed shape is far cheaper than a rest spread. */
export function siteOf(row: Site): Site {
  return {
    id: row.id,
    latitude: row.latitude,
    longitude: row.longitude,
    regionId: sharedLabel(row.regionId),
    zone: sharedLabel(row.zone),
    state: row.state == null ? undefined : sharedLabel(row.state),
    elevationM: row.elevationM,
    slopeDeg: row.slopeDeg,
    aspectDeg: row.aspectDeg,
    heatLoadIndex: row.heatLoadIndex,
    soilDepthCm: row.soilDepthCm,
    rockFractionPct: row.rockFractionPct,
    vegetationCoverPct: row.vegetationCoverPct,
    annualPrecipMm: row.annualPrecipMm,
    summerWaterDeficitMm: row.summerWaterDeficitMm,
    growingSeasonFrostDays: row.growingSeasonFrostDays,
    browsePressureIndex: row.browsePressureIndex,
  }
}

/** The sites in a box, and the data version they belong to (null when none lies in it). */
export interface SitesInBox {
  sites: Site[]
  dataVersion: string | null
}

/**
 * The condition that keeps a site in the box: the GiST index narrows to a sphere around the box
 * (earth_box, reaching its farthest corner) and the coordinates then keep the box itself. The sphere
 * reaches a box's farthest point only through a corner while the box spans less than a hemisphere of
 * longitude; a wider box is filtered by its coordinates alone.
 */
export function withinBox(sql: Sql, box: SiteBox) {
  const inBox = sql`s.latitude BETWEEN ${box.south} AND ${box.north}
      AND s.longitude BETWEEN ${box.west} AND ${box.east}`
  if (box.east - box.west >= 180) return inBox
  const centre = sql`ll_to_earth(${(box.south + box.north) / 2}, ${(box.west + box.east) / 2})`
  return sql`earth_box(${centre}, 10 + 1.01 * greatest(
        earth_distance(${centre}, ll_to_earth(${box.south}, ${box.west})),
        earth_distance(${centre}, ll_to_earth(${box.south}, ${box.east})),
        earth_distance(${centre}, ll_to_earth(${box.north}, ${box.west})),
        earth_distance(${centre}, ll_to_earth(${box.north}, ${box.east}))
      )) @> s.earth_point
      AND ${inBox}`
}

/** Every site whose coordinates lie in the box, by id. */
export async function findSitesInBox(
  sql: Sql,
  box: SiteBox,
  options: { deadlineMs?: number } = {},
): Promise<SitesInBox> {
  // The data version rides on each row, read in the statement that reads the sites (one snapshot).
  type Row = Site & { dataVersion: string | null }
  const query = sql<Row[]>`
    SELECT (SELECT data_version FROM site_revision) AS data_version, ${siteColumns(sql)}
    FROM sites s
    WHERE ${withinBox(sql, box)}
    ORDER BY s.id`
  const rows = await (options.deadlineMs ? withDeadline(query, options.deadlineMs) : query)
  return { sites: rows.map(siteOf), dataVersion: rows[0]?.dataVersion ?? null }
}

/** The sites table's revision token (sql/004_site_revision.sql): it changes with every change to the table. */
export async function siteRevision(sql: Sql): Promise<string> {
  return (await siteRevisionRead(sql)).revision
}

/** The revision token and the site data version it belongs to (sql/018; null before any is active). */
export interface SiteRevision {
  revision: string
  dataVersion: string | null
}

export async function siteRevisionRead(sql: Sql): Promise<SiteRevision> {
  const [row] = await sql<SiteRevision[]>`
    SELECT revision::text AS revision, data_version FROM site_revision`
  if (!row) throw new Error('site_revision has no row (run the migrations)')
  return row
}

/**
 * Every site with its attributes, ordered by id, and the revision they belong to: read in one
 * repeatable-read transaction, so a reseed committing meanwhile cannot mix old rows with a new token.
 */
export async function allSites(sql: Sql): Promise<SiteRevision & { sites: Site[] }> {
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    // Sites first: the lock that read holds on `sites` keeps an activation (which renames the table)
    // waiting until this transaction ends, so the revision read next is the one of these rows.
    const sites = await tx<Site[]>`SELECT ${siteColumns(sql)} FROM sites s ORDER BY s.id`
    const read = await siteRevisionRead(tx as unknown as Sql)
    return { ...read, sites: sites.map(siteOf) }
  })
}
