import { createReadStream } from 'node:fs'
import { extname } from 'node:path'
import type { Readable } from 'node:stream'
import { SiteFileError } from './site-file-error.ts'

/*
 * Where a site data file comes from (a path, or a stream) and which format it is: chosen by its name's
 * extension, then checked against its first bytes, so that a file that is not what its name says is
 * refused at once with what it looks like instead.
 */

export const SITE_FILE_FORMATS = ['csv', 'geojson', 'ndjson', 'gpkg'] as const
export type SiteFileFormat = (typeof SITE_FILE_FORMATS)[number]

const EXTENSIONS: Readonly<Record<string, SiteFileFormat>> = {
  '.csv': 'csv',
  '.geojson': 'geojson',
  '.json': 'geojson',
  '.ndjson': 'ndjson',
  '.geojsonl': 'ndjson',
  '.geojsons': 'ndjson',
  '.jsonl': 'ndjson',
  '.gpkg': 'gpkg',
}

/** The extensions each format is known by, for messages. */
export const FORMAT_EXTENSIONS: Readonly<Record<SiteFileFormat, string>> = {
  csv: '.csv',
  geojson: '.geojson or .json',
  ndjson: '.ndjson, .geojsonl or .jsonl',
  gpkg: '.gpkg',
}

/** The format a file name's extension says; null for an extension of none of them. */
export function formatOfName(name: string): SiteFileFormat | null {
  return EXTENSIONS[extname(name).toLowerCase()] ?? null
}

/** The format of `name`, or a SiteFileError listing the extensions there are. */
export function formatOfNameOrFail(name: string): SiteFileFormat {
  const format = formatOfName(name)
  if (format) return format
  const known = Object.keys(EXTENSIONS).join(', ')
  throw new SiteFileError(name, `has an extension of no site file format: name it ${known}`)
}

/** What a file's first bytes look like. */
export type HeadKind = 'empty' | 'sqlite' | 'gzip' | 'zip' | 'shapefile' | 'pdf' | 'binary' | 'json' | 'text'

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')

export function headKind(head: Uint8Array): HeadKind {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength)
  if (bytes.length === 0) return 'empty'
  if (bytes.subarray(0, 16).equals(SQLITE_MAGIC)) return 'sqlite'
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip'
  if (bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return 'zip'
  if (bytes.subarray(0, 4).equals(Buffer.from([0x00, 0x00, 0x27, 0x0a]))) return 'shapefile'
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf'
  if (bytes.includes(0)) return 'binary'
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  while (
    at < bytes.length &&
    (bytes[at] === 0x20 || bytes[at] === 0x09 || bytes[at] === 0x0a || bytes[at] === 0x0d)
  )
    at += 1
  if (at === bytes.length) return 'empty'
  return bytes[at] === 0x7b || bytes[at] === 0x5b ? 'json' : 'text'
}

const LOOKS_LIKE: Readonly<Record<Exclude<HeadKind, 'empty'>, string>> = {
  sqlite: 'an SQLite database (a GeoPackage? name it .gpkg)',
  gzip: 'gzip-compressed data: unpack it first',
  zip: 'a ZIP archive: unpack it (a shapefile inside converts with `ogr2ogr -f GPKG sites.gpkg sites.shp`)',
  shapefile: 'a shapefile: convert it with `ogr2ogr -f GPKG sites.gpkg sites.shp`',
  pdf: 'a PDF document',
  binary: 'binary data',
  json: 'JSON (name GeoJSON .geojson, one feature a line .ndjson)',
  text: 'text (CSV? name it .csv)',
}

const EXPECTED: Readonly<Record<SiteFileFormat, HeadKind>> = {
  csv: 'text',
  geojson: 'json',
  ndjson: 'json',
  gpkg: 'sqlite',
}

const FORMAT_NAMES: Readonly<Record<SiteFileFormat, string>> = {
  csv: 'CSV',
  geojson: 'a GeoJSON FeatureCollection',
  ndjson: 'newline-delimited GeoJSON',
  gpkg: 'a GeoPackage',
}

/** Refuses a file whose first bytes are not those of `format`, saying what they look like. */
export function checkHead(head: Uint8Array, format: SiteFileFormat, name: string): void {
  const kind = headKind(head)
  if (kind === 'empty') throw new SiteFileError(name, 'is empty')
  if (kind === EXPECTED[format]) return
  throw new SiteFileError(name, `is not ${FORMAT_NAMES[format]}: it looks like ${LOOKS_LIKE[kind]}`)
}

/** A file path, or a stream of its bytes. */
export type SiteFileSource = string | Readable

/** A source opened: its first bytes (to check), then all its bytes from the start, as they come. */
export interface OpenedSource {
  name: string
  /** The path when the source is a file. */
  path: string | null
  head: Buffer
  chunks: AsyncIterable<Buffer>
  /** Closes the file or destroys the stream, for a source whose chunks are not read to their end. */
  close(): void
}

const READ_CHUNK_BYTES = 1024 * 1024

function asBuffer(chunk: unknown): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk as Uint8Array)
}

/**
 * Opens a source and reads its first chunk. The chunks are streamed, never held whole; a consumer that
 * stops early closes the file (or destroys the stream).
 */
export async function openSource(source: SiteFileSource, name?: string): Promise<OpenedSource> {
  const path = typeof source === 'string' ? source : null
  const label = name ?? path ?? 'input'
  const stream =
    typeof source === 'string' ? createReadStream(source, { highWaterMark: READ_CHUNK_BYTES }) : source
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<unknown>
  let first: IteratorResult<unknown>
  try {
    first = await iterator.next()
  } catch (error) {
    stream.destroy()
    throw new SiteFileError(label, `cannot be read: ${(error as Error).message}`, { cause: error })
  }
  const head = first.done ? Buffer.alloc(0) : asBuffer(first.value)
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head
      if (first.done) return
      for (;;) {
        const next = await iterator.next()
        if (next.done) return
        yield asBuffer(next.value)
      }
    } finally {
      await iterator.return?.()
      stream.destroy()
    }
  }
  return { name: label, path, head, chunks: chunks(), close: () => stream.destroy() }
}
