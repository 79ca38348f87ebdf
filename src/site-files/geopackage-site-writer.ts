import Database from 'better-sqlite3'
import { encodeGpkgPoint } from './geopackage-geometry.ts'
import { quoteIdentifier } from './geopackage-site-reader.ts'
import { type ExportSite, SITE_COLUMNS, type SiteSource } from './site-format.ts'

/*
 * A GeoPackage 1.3 of sites (OGC 12-128r18): the required tables gpkg_spatial_ref_sys (with EPSG:4326
 * and the two undefined systems), gpkg_contents and gpkg_geometry_columns, and one feature table of
 * Point geometries in EPSG:4326 with the site's columns as attributes, as GDAL (ogrinfo, QGIS) reads it.
 * Rows go in in transactions of `batchRows`, as the sites come; no spatial index is built.
 */

const GPKG_APPLICATION_ID = 0x47504b47
const GPKG_USER_VERSION = 10300
const WGS84 = 4326

const WGS84_DEFINITION =
  'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],' +
  'AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],' +
  'UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],' +
  'AUTHORITY["EPSG","4326"]]'

const SCHEMA = `
CREATE TABLE gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL PRIMARY KEY,
  organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL,
  definition TEXT NOT NULL,
  description TEXT
);
CREATE TABLE gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY,
  data_type TEXT NOT NULL,
  identifier TEXT UNIQUE,
  description TEXT DEFAULT '',
  last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE,
  min_y DOUBLE,
  max_x DOUBLE,
  max_y DOUBLE,
  srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id)
);
CREATE TABLE gpkg_geometry_columns (
  table_name TEXT NOT NULL,
  column_name TEXT NOT NULL,
  geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL,
  z TINYINT NOT NULL,
  m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
  CONSTRAINT uk_gc_table_name UNIQUE (table_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id)
);
`

/** The SQL type of each column (as GDAL names its field types: MEDIUMINT is a 32-bit Integer). */
const SQL_TYPES = { number: 'REAL', integer: 'MEDIUMINT', enum: 'TEXT', text: 'TEXT' } as const

/** The attribute columns: every site column but the point, which is the geometry. */
const ATTRIBUTES = SITE_COLUMNS.filter((column) => column.name !== 'latitude' && column.name !== 'longitude')

export interface GeoPackageWriteOptions {
  /** The feature table's name (default `sites`). */
  layer?: string
  /** Rows a transaction (default 10,000). */
  batchRows?: number
  description?: string
}

/** Writes sites as a new GeoPackage at `path` (which must not exist); resolves to the number of sites. */
export async function writeGeoPackageSites(
  sites: SiteSource,
  path: string,
  options: GeoPackageWriteOptions = {},
): Promise<number> {
  const layer = options.layer ?? 'sites'
  const batchRows = options.batchRows ?? 10_000
  const db = new Database(path)
  try {
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.pragma(`application_id = ${GPKG_APPLICATION_ID}`)
    db.pragma(`user_version = ${GPKG_USER_VERSION}`)
    db.exec(SCHEMA)
    const table = quoteIdentifier(layer)
    db.exec(
      `CREATE TABLE ${table} (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom POINT, ${ATTRIBUTES.map(
        (column) => `${quoteIdentifier(column.name)} ${SQL_TYPES[column.type]}`,
      ).join(', ')})`,
    )
    const srs = db.prepare(
      'INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition, description) VALUES (?, ?, ?, ?, ?, ?)',
    )
    srs.run(
      'Undefined cartesian SRS',
      -1,
      'NONE',
      -1,
      'undefined',
      'undefined cartesian coordinate reference system',
    )
    srs.run(
      'Undefined geographic SRS',
      0,
      'NONE',
      0,
      'undefined',
      'undefined geographic coordinate reference system',
    )
    srs.run(
      'WGS 84 geodetic',
      WGS84,
      'EPSG',
      WGS84,
      WGS84_DEFINITION,
      'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid',
    )
    db.prepare(
      "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES (?, 'features', ?, ?, ?)",
    ).run(layer, layer, options.description ?? 'Forest sites', WGS84)
    db.prepare(
      "INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name, srs_id, z, m) VALUES (?, 'geom', 'POINT', ?, 0, 0)",
    ).run(layer, WGS84)

    const insert = db.prepare(
      `INSERT INTO ${table} (geom, ${ATTRIBUTES.map((column) => quoteIdentifier(column.name)).join(', ')}) VALUES (?${', ?'.repeat(ATTRIBUTES.length)})`,
    )
    const values = new Array<unknown>(ATTRIBUTES.length + 1)
    const bounds = { west: Infinity, south: Infinity, east: -Infinity, north: -Infinity }
    const insertBatch = db.transaction((batch: readonly ExportSite[]) => {
      for (const site of batch) {
        values[0] = encodeGpkgPoint(site.longitude, site.latitude, WGS84)
        for (let i = 0; i < ATTRIBUTES.length; i++) {
          const column = ATTRIBUTES[i] as (typeof ATTRIBUTES)[number]
          const value = column.attribute === null ? site.id : site[column.attribute]
          values[i + 1] =
            value === undefined
              ? null
              : typeof value === 'number' && column.attribute === null
                ? String(value)
                : value
        }
        insert.run(values)
        bounds.west = Math.min(bounds.west, site.longitude)
        bounds.east = Math.max(bounds.east, site.longitude)
        bounds.south = Math.min(bounds.south, site.latitude)
        bounds.north = Math.max(bounds.north, site.latitude)
      }
    })
    let rows = 0
    let batch: ExportSite[] = []
    for await (const site of sites) {
      batch.push(site)
      if (batch.length >= batchRows) {
        insertBatch(batch)
        rows += batch.length
        batch = []
      }
    }
    if (batch.length > 0) insertBatch(batch)
    rows += batch.length
    if (rows > 0)
      db.prepare(
        "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?, last_change = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE table_name = ?",
      ).run(bounds.west, bounds.south, bounds.east, bounds.north, layer)
    return rows
  } finally {
    db.close()
  }
}
