import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ColumnMap } from './column-map.ts'
import { readCsvSites } from './csv-site-reader.ts'
import { readGeoJsonSites, readNdjsonSites } from './geojson-site-reader.ts'
import { readGeoPackageSites } from './geopackage-site-reader.ts'
import { SiteFileError } from './site-file-error.ts'
import {
  checkHead,
  formatOfNameOrFail,
  openSource,
  type SiteFileFormat,
  type SiteFileSource,
} from './site-file-source.ts'
import type { SiteRecord } from './site-record.ts'

/*
 * Reading a site data file of any format: chosen by the file name's extension (or told), checked
 * against the file's first bytes, then streamed row by row as SiteRecords for site-validation.ts.
 */

export { formatOfName, SITE_FILE_FORMATS, type SiteFileFormat } from './site-file-source.ts'
export type { RecordIssue, SiteRecord } from './site-record.ts'

export interface SiteReadOptions {
  /** The format; by default the one the file name's extension (or `name`'s) says. */
  format?: SiteFileFormat
  /** The file's name in messages (and for its extension, when the source is a stream). */
  name?: string
  columnMap?: ColumnMap
  /** GeoPackage: the layer to read, when the file has more than one. */
  layer?: string
  /** CSV and GeoPackage: told the file's columns, under the map (null: ignored), before the first row. */
  onColumns?: (columns: readonly (string | null)[]) => void
}

/** A GeoPackage that comes as a stream is a database: it is written to a temporary file to be read. */
async function* spilledGeoPackage(stream: Readable, name: string, options: SiteReadOptions) {
  const dir = await mkdtemp(join(tmpdir(), 'site-file-'))
  try {
    const path = join(dir, 'input.gpkg')
    try {
      await pipeline(stream, createWriteStream(path))
    } catch (error) {
      throw new SiteFileError(name, `cannot be read: ${(error as Error).message}`, { cause: error })
    }
    yield* readGeoPackageSites(path, name, options)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The rows of a site data file, streamed: CSV, GeoJSON FeatureCollection, newline-delimited GeoJSON or
 * GeoPackage. A file that cannot be read as a whole throws a SiteFileError (when it is found: a file
 * damaged half way yields the rows before); a row that cannot be read comes with its issues.
 */
export async function* readSiteFile(
  source: SiteFileSource,
  options: SiteReadOptions = {},
): AsyncGenerator<SiteRecord> {
  const name = options.name ?? (typeof source === 'string' ? source : 'input')
  const format = options.format ?? formatOfNameOrFail(name)
  if (format === 'gpkg') {
    if (typeof source === 'string') yield* readGeoPackageSites(source, name, options)
    else yield* spilledGeoPackage(source, name, options)
    return
  }
  const opened = await openSource(source, name)
  try {
    checkHead(opened.head, format, name)
  } catch (error) {
    opened.close()
    throw error
  }
  if (format === 'csv') yield* readCsvSites(opened, options)
  else if (format === 'geojson') yield* readGeoJsonSites(opened, options)
  else yield* readNdjsonSites(opened, options)
}
