import { open, stat } from 'node:fs/promises'
import Database from 'better-sqlite3'
import { type ColumnMap, NO_COLUMN_MAP, resolveColumns } from './column-map.ts'
import { decodeGpkgGeometry, GeometryBlobError } from './geopackage-geometry.ts'
import { SiteFileError, valueText } from './site-file-error.ts'
import { checkHead } from './site-file-source.ts'
import { featureIdOf, type RecordIssue, type SiteRecord } from './site-record.ts'

/*
 * A GeoPackage site file (OGC 12-128r18): one layer of Point features in WGS84 (EPSG:4326, or OGC
 * CRS84), its attribute columns the site's columns, its points latitude and longitude. Read with
 * better-sqlite3 a row at a time (a statement iterator), never whole. A file that is not a GeoPackage,
 * is cut short or damaged, holds no point layer or another coordinate system is refused as a whole.
 */

export interface GeoPackageReadOptions {
  columnMap?: ColumnMap
  /** The layer (table) to read; needed when the file has more than one feature layer. */
  layer?: string
  /** Told the layer's attribute columns, under the map (null: ignored), before the first row. */
  onColumns?: (columns: readonly (string | null)[]) => void
}

const SQLITE_HEADER_BYTES = 100

/** SQL identifier quoting: "name", its own quotes doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/**
 * Refuses a file that is not SQLite or is shorter than its header says: SQLite itself may read the
 * pages there are and never notice the ones cut off.
 */
async function checkFileWhole(path: string, name: string): Promise<void> {
  const handle = await open(path, 'r').catch((error: Error) => {
    throw new SiteFileError(name, `cannot be read: ${error.message}`, { cause: error })
  })
  const header = Buffer.alloc(SQLITE_HEADER_BYTES)
  let read: number
  try {
    read = (await handle.read(header, 0, SQLITE_HEADER_BYTES, 0)).bytesRead
  } finally {
    await handle.close()
  }
  checkHead(header.subarray(0, read), 'gpkg', name)
  if (read < SQLITE_HEADER_BYTES)
    throw new SiteFileError(name, `is cut short: ${read} bytes, not even an SQLite header`)
  const rawPageSize = header.readUInt16BE(16)
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize
  const pageCount = header.readUInt32BE(28)
  // The page count is valid when the "version valid for" number matches the change counter.
  const countValid = header.readUInt32BE(92) === header.readUInt32BE(24) && pageCount > 0
  const { size } = await stat(path)
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
    throw new SiteFileError(name, `is damaged: its SQLite header gives a page size of ${rawPageSize}`)
  if (size % pageSize !== 0 || (countValid && size < pageSize * pageCount))
    throw new SiteFileError(
      name,
      `is cut short: ${size} bytes${countValid ? ` of the ${pageSize * pageCount} its header gives` : ', not a whole number of pages'}`,
    )
}

/** An SQLite failure as the file's fault, in words. */
function sqliteFailure(name: string, error: unknown, row?: number): SiteFileError {
  const code = (error as { code?: unknown }).code
  const message = (error as Error).message
  const where = row === undefined ? {} : { row }
  if (code === 'SQLITE_NOTADB')
    return new SiteFileError(name, 'is not a GeoPackage: it is not an SQLite database', {
      ...where,
      cause: error,
    })
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_IOERR_SHORT_READ' || code === 'SQLITE_CORRUPT_INDEX')
    return new SiteFileError(name, `is damaged or cut short (${code}: ${message})`, {
      ...where,
      cause: error,
    })
  return new SiteFileError(name, `cannot be read as a GeoPackage (${String(code ?? 'error')}: ${message})`, {
    ...where,
    cause: error,
  })
}

interface Layer {
  table: string
  geometryColumn: string
  geometryType: string
  srsId: number
}

const POINT_LAYER_TYPES = new Set(['POINT', 'GEOMETRY'])

function isWgs84(row: {
  organization: string | null
  id: number | null
  definition: string | null
}): boolean {
  const organization = (row.organization ?? '').toUpperCase()
  if (organization === 'EPSG' && row.id === 4326) return true
  if (organization === 'OGC' && row.id === 84) return true
  return /CRS84/i.test(row.definition ?? '') && !/PROJCS|PROJCRS/i.test(row.definition ?? '')
}

function chooseLayer(db: Database.Database, name: string, wanted: string | undefined): Layer {
  const gpkgTables = db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name IN ('gpkg_contents', 'gpkg_geometry_columns', 'gpkg_spatial_ref_sys')",
    )
    .all()
    .map((row) => row.name)
  if (!gpkgTables.includes('gpkg_contents'))
    throw new SiteFileError(name, 'is an SQLite database but not a GeoPackage: it has no gpkg_contents table')
  for (const table of ['gpkg_geometry_columns', 'gpkg_spatial_ref_sys'])
    if (!gpkgTables.includes(table))
      throw new SiteFileError(name, `is not a whole GeoPackage: it has no ${table} table`)
  const layers = db
    .prepare<[], Layer>(
      `SELECT c.table_name AS "table", g.column_name AS geometryColumn, upper(g.geometry_type_name) AS geometryType, g.srs_id AS srsId
       FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name
       WHERE c.data_type = 'features' ORDER BY c.table_name`,
    )
    .all()
  if (layers.length === 0)
    throw new SiteFileError(name, 'holds no feature layer (gpkg_contents lists no features)')
  const listed = layers.map((layer) => layer.table).join(', ')
  let layer: Layer | undefined
  if (wanted !== undefined) {
    layer = layers.find((each) => each.table === wanted)
    if (!layer) throw new SiteFileError(name, `has no feature layer "${wanted}" (its layers: ${listed})`)
  } else if (layers.length > 1) {
    throw new SiteFileError(name, `has ${layers.length} feature layers (${listed}): name the one to read`)
  } else {
    layer = layers[0] as Layer
  }
  if (!POINT_LAYER_TYPES.has(layer.geometryType))
    throw new SiteFileError(
      name,
      `has a layer "${layer.table}" of ${layer.geometryType} geometries: sites are points${
        layer.geometryType === 'MULTIPOINT'
          ? ' (split it: `ogr2ogr -explodecollections -nlt POINT out.gpkg in.gpkg`)'
          : ''
      }`,
      { field: 'geometry' },
    )
  const srs = db
    .prepare<
      [number],
      { organization: string | null; id: number | null; definition: string | null; srsName: string }
    >(
      'SELECT organization, organization_coordsys_id AS id, definition, srs_name AS srsName FROM gpkg_spatial_ref_sys WHERE srs_id = ?',
    )
    .get(layer.srsId)
  if (!srs)
    throw new SiteFileError(
      name,
      `has a layer "${layer.table}" in srs_id ${layer.srsId}, which gpkg_spatial_ref_sys lacks`,
    )
  if (!isWgs84(srs)) {
    const which =
      layer.srsId <= 0
        ? 'no defined coordinate system'
        : `${srs.organization ?? '?'}:${srs.id ?? '?'} (${srs.srsName})`
    throw new SiteFileError(
      name,
      `has a layer "${layer.table}" in ${which}: sites must be WGS84 longitude and latitude (EPSG:4326); reproject it, e.g. \`ogr2ogr -t_srs EPSG:4326 out.gpkg in.gpkg\``,
      { field: 'srs' },
    )
  }
  return layer
}

function geometryIssue(value: unknown, message: string): RecordIssue {
  return { field: 'geometry', value: valueText(value), rule: 'geometry', message }
}

/** The point of a geometry blob as latitude and longitude, or the issue that keeps it from one. */
function pointOf(blob: unknown, layerSrsId: number): { latitude: number; longitude: number } | RecordIssue {
  if (blob === null || blob === undefined) return geometryIssue(blob, 'has no geometry: a site is a point')
  if (!(blob instanceof Uint8Array)) return geometryIssue(blob, 'is not a GeoPackage geometry blob')
  try {
    const geometry = decodeGpkgGeometry(blob)
    if (geometry.kind === 'empty') return geometryIssue(blob, 'is an empty point')
    if (geometry.kind === 'other')
      return geometryIssue(geometry.typeName, `is a ${geometry.typeName}: a site is a point`)
    if (geometry.srsId !== layerSrsId)
      return geometryIssue(geometry.srsId, `has srs_id ${geometry.srsId} where its layer has ${layerSrsId}`)
    return { latitude: geometry.y, longitude: geometry.x }
  } catch (error) {
    if (error instanceof GeometryBlobError) return geometryIssue(blob, `cannot be read: it ${error.message}`)
    throw error
  }
}

/** The rows of a GeoPackage's point layer, one at a time. */
export async function* readGeoPackageSites(
  path: string,
  name: string = path,
  options: GeoPackageReadOptions = {},
): AsyncGenerator<SiteRecord> {
  await checkFileWhole(path, name)
  let db: Database.Database
  try {
    db = new Database(path, { readonly: true, fileMustExist: true })
  } catch (error) {
    throw sqliteFailure(name, error)
  }
  let row = 0
  let rows: IterableIterator<unknown[]> | undefined
  try {
    let layer: Layer
    let columns: { name: string; pk: number }[]
    try {
      layer = chooseLayer(db, name, options.layer)
      columns = db
        .prepare<[string], { name: string; pk: number }>('SELECT name, pk FROM pragma_table_info(?)')
        .all(layer.table)
    } catch (error) {
      if (error instanceof SiteFileError) throw error
      throw sqliteFailure(name, error)
    }
    const primaryKeys = columns.filter((column) => column.pk > 0)
    const fid = primaryKeys.length === 1 ? (primaryKeys[0] as { name: string }).name : null
    const attributes = columns
      .map((column) => column.name)
      .filter((column) => column !== layer.geometryColumn && column !== fid)
    const resolved = resolveColumns(attributes, options.columnMap ?? NO_COLUMN_MAP)
    if (resolved.conflicts.length > 0)
      throw new SiteFileError(name, `has columns that cannot be read: ${resolved.conflicts.join('; ')}`, {
        field: 'columns',
      })
    const names = resolved.names
    options.onColumns?.(names)
    const select = [fid ? quoteIdentifier(fid) : 'NULL', quoteIdentifier(layer.geometryColumn)]
      .concat(attributes.map(quoteIdentifier))
      .join(', ')
    try {
      rows = db
        .prepare<[], unknown[]>(`SELECT ${select} FROM ${quoteIdentifier(layer.table)}`)
        .raw(true)
        .iterate()
    } catch (error) {
      throw sqliteFailure(name, error)
    }
    for (;;) {
      let next: IteratorResult<unknown[]>
      try {
        next = rows.next()
      } catch (error) {
        throw sqliteFailure(name, error, row + 1)
      }
      if (next.done) break
      const values = next.value
      row += 1
      const fields: Record<string, unknown> = {}
      for (let i = 0; i < names.length; i++) {
        const column = names[i]
        if (column === null || column === undefined) continue
        let value = values[i + 2]
        if (typeof value === 'string') value = value.trim()
        if (value !== null && value !== undefined && value !== '') fields[column] = value
      }
      const point = pointOf(values[1], layer.srsId)
      const featureId = featureIdOf(fields, values[0])
      if ('rule' in point) {
        yield { row, featureId, fields, issues: [point] }
        continue
      }
      fields.latitude = point.latitude
      fields.longitude = point.longitude
      yield { row, featureId, fields }
    }
  } finally {
    // A reader that stopped early leaves the statement open: it is ended before the database closes.
    rows?.return?.()
    db.close()
  }
}
