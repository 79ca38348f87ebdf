import { StringDecoder } from 'node:string_decoder'
import { type ColumnMap, NO_COLUMN_MAP } from './column-map.ts'
import { FeatureCollectionScanner } from './feature-collection-scanner.ts'
import { idInFeatureText } from './feature-id-text.ts'
import { FeatureScanError, sizeText } from './feature-scan-error.ts'
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
 * gives latitude and longitude (over any properties of those names). The collection is read as it
 * streams in, one feature at a time, never whole: feature-collection-scanner.ts finds each feature's
 * bytes, JSON.parse reads them; a feature over MAX_FEATURE_BYTES, or JSON that does not parse, stops the
 * file there, naming the feature.
 */

export interface GeoJsonReadOptions {
  columnMap?: ColumnMap
  /** A collection: the most bytes one feature may take (MAX_FEATURE_BYTES); a larger one stops the file. */
  maxFeatureBytes?: number
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

/** One feature of a collection, and one other member of it: far more than a site needs, and a bound on memory. */
export const MAX_FEATURE_BYTES = 1024 * 1024

/** A scan's error as the file's. */
function scanFailure(name: string, error: FeatureScanError): SiteFileError {
  if (error.kind === 'not_an_object') return notACollection(name, error.message)
  if (error.kind === 'features_not_array')
    return new SiteFileError(name, 'has "features" that is not an array')
  if (error.kind === 'too_large')
    return new SiteFileError(
      name,
      `has a feature too large to be a site: ${error.message}; is a "}" or "]" missing?`,
      { row: error.feature },
    )
  return new SiteFileError(name, `is not valid JSON: ${error.message}`)
}

/** The features of a GeoJSON FeatureCollection as site rows, as the file streams in. */
export async function* readGeoJsonSites(
  source: OpenedSource,
  options: GeoJsonReadOptions = {},
): AsyncGenerator<SiteRecord> {
  const map = options.columnMap ?? NO_COLUMN_MAP
  const maxBytes = options.maxFeatureBytes ?? MAX_FEATURE_BYTES
  const name = source.name
  let rootType: unknown
  // The last feature read, for a message about what follows it.
  let lastRow = 0
  let lastId: string | null = null
  let ready: SiteRecord[] = []
  // A feature in a message: its number, its id (read from its text, or its record's), where it begins.
  const featureName = (index: number, partial: string | null, offset: number | null) => {
    const id = partial !== null ? idInFeatureText(partial) : index === lastRow ? lastId : null
    const details = [id === null ? '' : `id ${id}`, offset === null ? '' : `from byte ${offset}`]
    const known = details.filter((detail) => detail !== '')
    return `feature ${index}${known.length > 0 ? ` (${known.join(', ')})` : ''}`
  }
  const parsed = (text: string, what: () => string, row: number | null): unknown => {
    try {
      return JSON.parse(text)
    } catch (error) {
      throw new SiteFileError(name, `is not valid JSON: ${what()}: ${(error as Error).message}`, {
        row,
        cause: error,
      })
    }
  }
  const scanner = new FeatureCollectionScanner(
    {
      onFeature(index, text, offset) {
        const feature = parsed(text, () => `${featureName(index, text, offset)} does not parse`, index)
        const record = featureRecord(index, feature, map)
        lastRow = index
        lastId = record.featureId
        ready.push(record)
      },
      onMember(member, text, offset) {
        const known = member === 'type' || member === 'crs'
        if (text === null) {
          if (known) throw new SiteFileError(name, `has a "${member}" larger than ${sizeText(maxBytes)}`)
          return
        }
        const value = parsed(
          text,
          () => `the value of ${JSON.stringify(member)} from byte ${offset} does not parse`,
          null,
        )
        if (member === 'type') {
          rootType = value
          if (value !== 'FeatureCollection') throw notACollection(name, `a GeoJSON ${valueText(value)}`)
        } else if (member === 'crs') checkCrs(value, name)
      },
    },
    { maxValueBytes: maxBytes, featureName },
  )
  const scan = (work: () => void): unknown => {
    try {
      work()
      return null
    } catch (error) {
      return error instanceof FeatureScanError ? scanFailure(name, error) : error
    }
  }
  try {
    for await (const chunk of source.chunks) {
      // The rows read before a fault are handed on before it is thrown.
      const failure = scan(() => scanner.write(chunk))
      if (ready.length > 0) {
        const records = ready
        ready = []
        yield* records
      }
      if (failure !== null) throw failure
    }
    const failure = scan(() => scanner.end())
    if (failure !== null) throw failure
  } finally {
    source.close()
  }
  if (rootType !== 'FeatureCollection')
    throw notACollection(name, rootType === undefined ? 'an object without "type"' : valueText(rootType))
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
