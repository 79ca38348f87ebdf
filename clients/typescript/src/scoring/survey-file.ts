/**
 * A survey file for `score surveys upload`: what it is by its extension (`.csv`; `.ndjson`/`.jsonl`;
 * `.geojson`/`.json`; each optionally `.gz`, sent as it is with `Content-Encoding: gzip`), and, for
 * progress, a guess at its bytes per row from its first megabyte (CSV and NDJSON, not gzipped).
 */
import { open } from 'node:fs/promises'
import { SURVEY_UPLOAD_CONTENT_TYPES, type SurveyUpload, type SurveyUploadContentType } from '../client.ts'

export interface SurveyFile {
  format: SurveyUpload['format']
  contentType: SurveyUploadContentType
  /** The file is gzip-compressed (`.gz`). */
  gzip: boolean
}

const EXTENSIONS: Record<string, SurveyUpload['format']> = {
  csv: 'csv',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  geojson: 'geojson',
  json: 'geojson',
}

export const SURVEY_FILE_EXTENSIONS = '.csv, .ndjson, .jsonl, .geojson or .json, optionally .gz'

/** The file's format by its extension; null when it has none of those. */
export function surveyFileOf(file: string): SurveyFile | null {
  const match = /\.([a-z]+)(\.gz)?$/i.exec(file)
  const format = match ? EXTENSIONS[(match[1] as string).toLowerCase()] : undefined
  if (!match || !format) return null
  return { format, contentType: SURVEY_UPLOAD_CONTENT_TYPES[format], gzip: match[2] !== undefined }
}

const SAMPLE_BYTES = 1024 * 1024

/**
 * Bytes per row, from the lines of the file's first megabyte (a CSV's header counted as a row: an
 * estimate, for a rows/s figure while the bytes go up). Null for GeoJSON and gzip (not line by line
 * as stored), and for a file without a line in its sample.
 */
export async function bytesPerRowOf(file: string, kind: SurveyFile): Promise<number | null> {
  if (kind.gzip || kind.format === 'geojson') return null
  const handle = await open(file, 'r')
  try {
    const sample = Buffer.alloc(SAMPLE_BYTES)
    const { bytesRead } = await handle.read(sample, 0, SAMPLE_BYTES, 0)
    const read = sample.subarray(0, bytesRead)
    let lines = 0
    for (let at = read.indexOf(10); at !== -1; at = read.indexOf(10, at + 1)) lines++
    // A file read whole may end without a line break: its last line counts too.
    if (bytesRead > 0 && bytesRead < SAMPLE_BYTES && read[bytesRead - 1] !== 10) lines++
    return lines > 0 ? bytesRead / lines : null
  } finally {
    await handle.close()
  }
}
