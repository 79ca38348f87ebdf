import type { IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { createGunzip } from 'node:zlib'
import { CsvError, parse } from 'csv-parse'
import { apiError, invalidField } from '../domain/errors.ts'
import type { JobUpload } from '../domain/jobs/job-service.ts'
import { bodyTooLarge, ClientClosedError } from '../http-io/body.ts'
import { lingeringClose } from '../http-io/lingering-close.ts'

/** A job upload is streamed: at most this many bytes (after gzip) are read, never held whole. */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024
/** One CSV record or NDJSON line: far more than a planting site needs. */
const MAX_RECORD_BYTES = 64 * 1024

const MEDIA_TYPES = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson' } as const
const ACCEPTED = Object.keys(MEDIA_TYPES)

function mediaType(req: IncomingMessage): keyof typeof MEDIA_TYPES {
  const [type = '', ...params] = (req.headers['content-type'] ?? '').toLowerCase().split(';')
  const charset = params.map((p) => p.trim()).find((p) => p.startsWith('charset='))
  if (!(type.trim() in MEDIA_TYPES) || (charset && !/^charset="?utf-8"?$/.test(charset)))
    throw apiError(
      'unsupported_media_type',
      { accepted: ACCEPTED.map((t) => `${t} (UTF-8)`) },
      { details: { content_type: req.headers['content-type'] ?? null } },
    )
  return type.trim() as keyof typeof MEDIA_TYPES
}

/** The body as it arrives (gunzipped when sent with Content-Encoding: gzip), counted against the limit. */
async function* bodyOf(req: IncomingMessage): AsyncGenerator<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase()
  if (encoding !== 'identity' && encoding !== 'gzip')
    throw invalidField('Content-Encoding', 'must be gzip or absent', 'request')
  const gunzip = encoding === 'gzip' ? createGunzip() : undefined
  const source: Readable = gunzip ? req.pipe(gunzip) : req
  let size = 0
  try {
    // Not destroyed when the reader stops early: that would reset the connection under the answer.
    for await (const chunk of source.iterator({ destroyOnReturn: false })) {
      size += (chunk as Buffer).length
      if (size > MAX_UPLOAD_BYTES) throw bodyTooLarge(req, MAX_UPLOAD_BYTES)
      yield chunk as Buffer
    }
  } catch (error) {
    // zlib's own failures (not gzip, cut short) are the body's fault, whatever state the socket is in.
    if (/^Z_/.test(String((error as { code?: unknown }).code)))
      throw invalidField('body', 'is not valid gzip', 'request')
    // Node marks a request destroyed once its body is read; only one cut short is a client gone.
    if (req.destroyed && !req.complete) throw new ClientClosedError(error)
    throw error
  } finally {
    // Given up before its end (a refusal): the rest is dropped, the connection closed lingering.
    lingeringClose(req)
    gunzip?.destroy()
  }
}

/** Waits until the parser takes more input, or is gone; leaves no listener behind. */
function drainedOrClosed(parser: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      parser.off('drain', done)
      parser.off('close', done)
      resolve()
    }
    parser.on('drain', done)
    parser.on('close', done)
  })
}

async function* csvRecords(req: IncomingMessage): AsyncGenerator<string[]> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  })
  // Fed as the body arrives; the parser's buffer is the only backlog (write waits for its drain).
  void (async () => {
    try {
      for await (const chunk of bodyOf(req)) {
        if (parser.destroyed) return
        if (!parser.write(chunk)) await drainedOrClosed(parser)
      }
      parser.end()
    } catch (error) {
      parser.destroy(error as Error)
    }
  })()
  try {
    for await (const record of parser) yield record as string[]
  } catch (error) {
    // A record that cannot be read (an unclosed quote, a record over the size) stops the upload there.
    if (error instanceof CsvError)
      throw invalidField(
        'body',
        `is not readable CSV at line ${error.lines ?? '?'}: ${error.message}`,
        'request',
      )
    throw error
  } finally {
    // The reader stopped early (a refusal): stop parsing, and drop the rest of the body.
    parser.destroy()
    lingeringClose(req)
  }
}

async function* ndjsonLines(req: IncomingMessage): AsyncGenerator<string> {
  // A character split between two chunks of the body is joined again.
  const decoder = new StringDecoder('utf8')
  let pending = ''
  let line = 0
  for await (const chunk of bodyOf(req)) {
    const text = pending + decoder.write(chunk)
    const lines = text.split('\n')
    pending = lines.pop() ?? ''
    for (const text of lines) {
      line += 1
      yield checkedLine(text, line)
    }
    // A line still arriving is refused as soon as it is too long, not once it is whole.
    if (Buffer.byteLength(pending) > MAX_RECORD_BYTES) checkedLine(pending, line + 1)
  }
  pending += decoder.end()
  if (pending !== '') yield checkedLine(pending, line + 1)
}

/** A line without its CR (CRLF files) or, on the first line, a byte order mark; refused when too long. */
function checkedLine(text: string, line: number): string {
  if (Buffer.byteLength(text) > MAX_RECORD_BYTES)
    throw invalidField('body', `line ${line} is longer than ${MAX_RECORD_BYTES} bytes`, 'request')
  const bare = text.endsWith('\r') ? text.slice(0, -1) : text
  return line === 1 && bare.startsWith('\uFEFF') ? bare.slice(1) : bare
}

/** Splits a job upload into records by its Content-Type: CSV rows of cells, or NDJSON lines. */
export function jobUpload(req: IncomingMessage): JobUpload {
  const type = mediaType(req)
  return MEDIA_TYPES[type] === 'csv'
    ? { format: 'csv', records: csvRecords(req) }
    : { format: 'ndjson', records: ndjsonLines(req) }
}
