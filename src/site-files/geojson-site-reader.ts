import { StringDecoder } from 'node:string_decoder'
import { JSONParser } from '@streamparser/json'
import { type ColumnMap, NO_COLUMN_MAP } from './column-map.ts'
import { SiteFileError, valueText } from './site-file-error.ts'
import type { OpenedSource } from './site-file-source.ts'
import {
  featureIdOf,
  fieldsOfProperties,
  type ReaderRule,
  type RecordIssue,
  type SiteRecord,
} from './site-record.ts'

/*
 * GeoJSON site files: a FeatureCollection of Point features (RFC 7946: WGS84 longitude, latitude), or
 * newline-delimited GeoJSON, one Feature a line. A feature's properties are its columns; its point
 * gives latitude and longitude (over any properties of those names). The collection is parsed as it
 * streams in (@streamparser/json), one feature at a time, never whole.
 */

export interface GeoJsonReadOptions {
  columnMap?: ColumnMap
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function issue(field: string, value: unknown, rule: ReaderRule, message: string): RecordIssue {
  return { field, value: valueText(value), rule, message }
}

/** A feature as a site row: its properties under the map, its point's position; or what keeps it from one. */
export function featureRecord(row: number, feature: unknown, map: ColumnMap = NO_COLUMN_MAP): SiteRecord {
  if (!isObject(feature) || feature.type !== 'Feature') {
    const type = isObject(feature) ? feature.type : undefined
    return {
      row,
      featureId: null,
      fields: {},
      issues: [
        issue(
          'feature',
          feature,
          'feature',
          typeof type === 'string' ? `is a ${type}, not a Feature` : 'is not a GeoJSON Feature',
        ),
      ],
    }
  }
  const properties = isObject(feature.properties) ? feature.properties : {}
  const { fields, issues } = fieldsOfProperties(properties, map)
  const featureId = featureIdOf(fields, feature.id)
  const geometry = feature.geometry
  if (!isObject(geometry)) {
    issues.push(issue('geometry', geometry, 'geometry', 'has no geometry: a site is a Point'))
  } else if (geometry.type !== 'Point') {
    issues.push(
      issue('geometry', geometry.type, 'geometry', `is a ${String(geometry.type)}: a site is a Point`),
    )
  } else {
    const coordinates = geometry.coordinates
    const position =
      Array.isArray(coordinates) &&
      (coordinates.length === 2 || coordinates.length === 3) &&
      coordinates.every((value) => typeof value === 'number' && Number.isFinite(value))
    if (!position) {
      issues.push(
        issue(
          'geometry',
          coordinates,
          'geometry',
          'has coordinates that are not a position [longitude, latitude]',
        ),
      )
    } else {
      fields.longitude = coordinates[0]
      fields.latitude = coordinates[1]
    }
  }
  return issues.length > 0 ? { row, featureId, fields, issues } : { row, featureId, fields }
}

/** The coordinate systems a GeoJSON `crs` member may name: WGS84 longitude, latitude. */
const WGS84_NAMES = /(^|[:/])(CRS84|OGC:1\.3:CRS84|EPSG::?4326|EPSG\/0\/4326)$/i

function checkCrs(crs: unknown, name: string): void {
  if (crs === null || crs === undefined) return
  const crsName = isObject(crs) && isObject(crs.properties) ? crs.properties.name : undefined
  if (typeof crsName === 'string' && WGS84_NAMES.test(crsName.trim())) return
  throw new SiteFileError(
    name,
    `is in the coordinate system ${valueText(crsName ?? crs)}: sites must be WGS84 longitude and latitude (EPSG:4326); reproject it, e.g. \`ogr2ogr -t_srs EPSG:4326 out.geojson in.geojson\``,
    { field: 'crs' },
  )
}

const notACollection = (name: string, what: string) =>
  new SiteFileError(
    name,
    `is ${what}, not a GeoJSON FeatureCollection: {"type": "FeatureCollection", "features": [...]} (one Feature a line: name it .ndjson)`,
  )

/** The features of a GeoJSON FeatureCollection as site rows, as the file streams in. */
export async function* readGeoJsonSites(
  source: OpenedSource,
  options: GeoJsonReadOptions = {},
): AsyncGenerator<SiteRecord> {
  const map = options.columnMap ?? NO_COLUMN_MAP
  const first = source.head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()[0]
  if (first !== '{') {
    source.close()
    throw notACollection(source.name, 'a JSON array')
  }
  // Not '$.features' itself: the parser would keep every feature to hand over the whole array.
  const parser = new JSONParser({ paths: ['$.type', '$.crs', '$.features.*'], keepStack: false })
  let rootType: unknown
  let pending: unknown[] = []
  let featuresNotArray = false
  parser.onValue = ({ value, key, parent, stack }) => {
    if (stack.length === 1 && key === 'type') rootType = value
    else if (stack.length === 1 && key === 'crs') checkCrs(value, source.name)
    else if (stack.length === 2) {
      if (Array.isArray(parent)) pending.push(value)
      else featuresNotArray = true
    }
  }
  const step = (work: () => void) => {
    try {
      work()
    } catch (error) {
      if (error instanceof SiteFileError) throw error
      throw new SiteFileError(source.name, `is not valid JSON: ${(error as Error).message}`, { cause: error })
    }
  }
  let row = 0
  try {
    for await (const chunk of source.chunks) {
      step(() => parser.write(chunk))
      if (rootType !== undefined && rootType !== 'FeatureCollection')
        throw notACollection(source.name, `a GeoJSON ${valueText(rootType)}`)
      if (featuresNotArray) throw new SiteFileError(source.name, 'has "features" that is not an array')
      if (pending.length > 0) {
        const features = pending
        pending = []
        for (const feature of features) {
          row += 1
          yield featureRecord(row, feature, map)
        }
      }
    }
    step(() => {
      if (!parser.isEnded) parser.end()
    })
  } finally {
    source.close()
  }
  if (rootType !== 'FeatureCollection')
    throw notACollection(
      source.name,
      rootType === undefined ? 'an object without "type"' : valueText(rootType),
    )
  for (const feature of pending) {
    row += 1
    yield featureRecord(row, feature, map)
  }
}

/** One NDJSON line: far more than a site needs; a whole collection written on one line is refused by it. */
const MAX_LINE_BYTES = 16 * 1024 * 1024

/** The lines of newline-delimited GeoJSON as site rows, one Feature a line; blank lines are skipped. */
export async function* readNdjsonSites(
  source: OpenedSource,
  options: GeoJsonReadOptions = {},
): AsyncGenerator<SiteRecord> {
  const map = options.columnMap ?? NO_COLUMN_MAP
  const decoder = new StringDecoder('utf8')
  let pending = ''
  let line = 0
  let row = 0
  const record = (text: string): SiteRecord | null => {
    line += 1
    let bare = text.endsWith('\r') ? text.slice(0, -1) : text
    if (line === 1 && bare.startsWith('\uFEFF')) bare = bare.slice(1)
    // RFC 8142 GeoJSON text sequences start each record with a record separator.
    if (bare.startsWith('\u001e')) bare = bare.slice(1)
    if (bare.trim() === '') return null
    row += 1
    let feature: unknown
    try {
      feature = JSON.parse(bare)
    } catch (error) {
      return {
        row,
        featureId: null,
        fields: {},
        issues: [issue('line', bare, 'json', `line ${line} is not JSON: ${(error as Error).message}`)],
      }
    }
    return featureRecord(row, feature, map)
  }
  const tooLong = () =>
    new SiteFileError(
      source.name,
      `has a line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB (a whole FeatureCollection? name it .geojson)`,
      { row: row + 1 },
    )
  try {
    for await (const chunk of source.chunks) {
      const text = pending + decoder.write(chunk)
      const lines = text.split('\n')
      pending = lines.pop() ?? ''
      for (const each of lines) {
        const read = record(each)
        if (read) yield read
      }
      if (pending.length > MAX_LINE_BYTES) throw tooLong()
    }
  } finally {
    source.close()
  }
  pending += decoder.end()
  const last = record(pending)
  if (last) yield last
}
