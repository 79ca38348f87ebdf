import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { access, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { writeGeoPackageSites } from './geopackage-site-writer.ts'
import { SiteFileError } from './site-file-error.ts'
import { formatOfNameOrFail, type SiteFileFormat } from './site-file-source.ts'
import { type ExportSite, SITE_COLUMNS, type SiteSource } from './site-format.ts'

/*
 * Writing sites out in the formats they are read in (site-format.ts): CSV, a GeoJSON FeatureCollection,
 * newline-delimited GeoJSON, GeoPackage. Each streams from an iterable of sites, a chunk of text (or a
 * transaction of rows) at a time, never the whole set. Numbers are written in JavaScript's shortest
 * form that reads back as the same double, so a file read back gives the same sites.
 */

/** The columns written besides the point (GeoJSON and GeoPackage carry it as their geometry). */
export const PROPERTY_COLUMNS = SITE_COLUMNS.filter(
  (column) => column.name !== 'latitude' && column.name !== 'longitude',
)

/** Text is written in chunks of about this many characters. */
const CHUNK_CHARS = 64 * 1024

/** A site's value of a column: its id for site_id; undefined when it has none. */
export function columnValue(
  site: ExportSite,
  column: (typeof SITE_COLUMNS)[number],
): number | string | undefined {
  const value = column.attribute === null ? site.id : site[column.attribute]
  return value === null ? undefined : value
}

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/

function csvCell(value: number | string | undefined): string {
  if (value === undefined) return ''
  if (typeof value === 'number') return String(value)
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

/** Text a chunk at a time from one line per site. */
async function* chunked(head: string, sites: SiteSource, line: (site: ExportSite) => string, tail: string) {
  let text = head
  for await (const site of sites) {
    text += line(site)
    if (text.length >= CHUNK_CHARS) {
      yield text
      text = ''
    }
  }
  text += tail
  if (text !== '') yield text
}

/** A CSV site file: the header, then a row per site (CRLF-free, comma-separated, quoted where needed). */
export function csvChunks(sites: SiteSource): AsyncGenerator<string> {
  const header = `${SITE_COLUMNS.map((column) => column.name).join(',')}\n`
  return chunked(
    header,
    sites,
    (site) => `${SITE_COLUMNS.map((column) => csvCell(columnValue(site, column))).join(',')}\n`,
    '',
  )
}

/** A site as a GeoJSON Point Feature, on one line. */
export function featureJson(site: ExportSite): string {
  const properties: Record<string, number | string> = {}
  for (const column of PROPERTY_COLUMNS) {
    const value = columnValue(site, column)
    if (value !== undefined) properties[column.name] = value
  }
  return `{"type":"Feature","geometry":{"type":"Point","coordinates":[${site.longitude},${site.latitude}]},"properties":${JSON.stringify(properties)}}`
}

/** A GeoJSON FeatureCollection, a feature a line. */
export function geojsonChunks(sites: SiteSource): AsyncGenerator<string> {
  let first = true
  const line = (site: ExportSite) => {
    const text = `${first ? '' : ',\n'}${featureJson(site)}`
    first = false
    return text
  }
  return chunked('{"type":"FeatureCollection","features":[\n', sites, line, '\n]}\n')
}

/** Newline-delimited GeoJSON: one Feature a line. */
export function ndjsonChunks(sites: SiteSource): AsyncGenerator<string> {
  return chunked('', sites, (site) => `${featureJson(site)}\n`, '')
}

/** Counts the sites as they pass. */
function counted(sites: SiteSource): { sites: AsyncGenerator<ExportSite>; count: () => number } {
  let count = 0
  async function* each() {
    for await (const site of sites) {
      count += 1
      yield site
    }
  }
  return { sites: each(), count: () => count }
}

const TEXT_CHUNKS: Readonly<
  Record<Exclude<SiteFileFormat, 'gpkg'>, (sites: SiteSource) => AsyncGenerator<string>>
> = {
  csv: csvChunks,
  geojson: geojsonChunks,
  ndjson: ndjsonChunks,
}

/** Streams sites into `out` as CSV, GeoJSON or NDJSON, ending it; resolves to the number of sites. */
export async function writeSitesText(
  sites: SiteSource,
  format: Exclude<SiteFileFormat, 'gpkg'>,
  out: Writable,
): Promise<number> {
  const each = counted(sites)
  await pipeline(Readable.from(TEXT_CHUNKS[format](each.sites)), out)
  return each.count()
}

export interface WriteSiteFileOptions {
  /** The format; by default the one the path's extension says. */
  format?: SiteFileFormat
  /** Replace a file already at `path` (by default it is refused). */
  overwrite?: boolean
  /** GeoPackage: the layer's name (default `sites`). */
  layer?: string
}

/**
 * Writes sites to a file in any format. The file is written beside its path under a temporary name and
 * renamed once whole, so a failed export leaves no half file behind. Resolves to the number of sites.
 */
export async function writeSiteFile(
  sites: SiteSource,
  path: string,
  options: WriteSiteFileOptions = {},
): Promise<{ path: string; format: SiteFileFormat; rows: number }> {
  const format = options.format ?? formatOfNameOrFail(path)
  if (!options.overwrite) {
    const exists = await access(path).then(
      () => true,
      () => false,
    )
    if (exists) throw new SiteFileError(path, 'exists already: choose another name, or overwrite it')
  }
  const partial = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.partial`)
  try {
    const rows =
      format === 'gpkg'
        ? await writeGeoPackageSites(sites, partial, { layer: options.layer })
        : await writeSitesText(sites, format, createWriteStream(partial))
    await rename(partial, path)
    return { path, format, rows }
  } catch (error) {
    await rm(partial, { force: true })
    throw error
  }
}
