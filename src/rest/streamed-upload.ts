import type { IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { createGunzip } from 'node:zlib'
import { Tokenizer, TokenParser, TokenType } from '@streamparser/json'
import { CsvError, parse } from 'csv-parse'
import { ApiError, apiError, ClientClosedError, invalidField } from '../domain/errors.ts'
import type { StreamedUpload } from '../domain/streamed-upload.ts'
import { bodyTooLarge } from '../http-body/body.ts'
import { lingeringClose } from '../http-body/lingering-close.ts'

/** A job upload is streamed: at most this many bytes (after gzip) are read, never held whole. */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024
/** One CSV record or NDJSON line: far more than a planting site needs. */
const MAX_RECORD_BYTES = 64 * 1024

const MEDIA_TYPES = {
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/geo+json': 'geojson',
} as const
/** One GeoJSON feature: a stand of 10,000 positions is well under this. */
const MAX_FEATURE_BYTES = 2 * 1024 * 1024
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

/**
 * The features of a GeoJSON FeatureCollection as the body streams in (@streamparser/json): each one
 * parsed alone and handed on, never the whole collection. A body whose root is not a FeatureCollection
 * is refused when that is known (the `type` member may come last); a feature over MAX_FEATURE_BYTES, or
 * JSON that does not parse, stops the upload there.
 */
async function* geojsonFeatures(req: IncomingMessage): AsyncGenerator<unknown> {
  const tokenizer = new Tokenizer()
  // Not '$.features' itself: the parser would keep every feature to hand over the whole array.
  const parser = new TokenParser({ paths: ['$.type', '$.features.*'], keepStack: false })
  let rootType: unknown
  let featuresIsArray = false
  let pending: unknown[] = []
  // Containers open around the next token: the root object is 1, the features array 2, a feature 3.
  let depth = 0
  // Where the value being read began: the last token seen at depth 2 or less. A feature (or a root
  // member, or a long string anywhere above the features) is measured from there, by the bytes that
  // have arrived, so one that never ends is refused once it passes the limit, not when it ends.
  let segmentStart = 0
  let received = 0
  const tooLong = () =>
    invalidField('body', `holds a feature longer than ${MAX_FEATURE_BYTES} bytes`, 'request')
  parser.onValue = ({ value, key, parent, stack }) => {
    if (stack.length === 1 && key === 'type') rootType = value
    else if (stack.length === 2 && Array.isArray(parent)) pending.push(value)
  }
  // The root object's member names, read off its tokens: `features` must hold an array.
  let expectingKey = false
  let rootKey: unknown
  let valueNext = false
  const followRoot = (token: TokenType, value: unknown) => {
    if (expectingKey && token === TokenType.STRING) {
      rootKey = value
      expectingKey = false
    } else if (token === TokenType.COLON) valueNext = true
    else if (valueNext) {
      if (rootKey === 'features') featuresIsArray = token === TokenType.LEFT_BRACKET
      valueNext = false
    } else if (token === TokenType.COMMA) expectingKey = true
  }
  tokenizer.onToken = (info) => {
    const opens = info.token === TokenType.LEFT_BRACE || info.token === TokenType.LEFT_BRACKET
    const closes = info.token === TokenType.RIGHT_BRACE || info.token === TokenType.RIGHT_BRACKET
    if (closes) depth -= 1
    if (depth === 1) followRoot(info.token, info.value)
    else if (depth === 0 && info.token === TokenType.LEFT_BRACE) expectingKey = true
    if (depth <= 2) {
      // A value that ends here (a feature's closing brace, a root member's string) is measured whole.
      if (info.offset + 1 - segmentStart > MAX_FEATURE_BYTES && !opens) throw tooLong()
      segmentStart = info.offset
    }
    if (opens) depth += 1
    parser.write(info)
  }
  // The tokenizer ends the token parser too, which refuses a document cut short.
  tokenizer.onEnd = () => {
    if (!parser.isEnded) parser.end()
  }
  // The parser's own errors (its classes, or a plain Error when it ends mid-document) are the body's.
  const parse = (step: () => void) => {
    try {
      step()
    } catch (error) {
      if (error instanceof ApiError) throw error
      throw invalidField('body', `is not valid JSON: ${(error as Error).message}`, 'request')
    }
  }
  for await (const chunk of bodyOf(req)) {
    received += chunk.length
    parse(() => tokenizer.write(chunk))
    if (received - segmentStart > MAX_FEATURE_BYTES) throw tooLong()
    if (pending.length > 0) {
      const features = pending
      pending = []
      yield* features
    }
    if (rootType !== undefined && rootType !== 'FeatureCollection') throw notACollection()
  }
  parse(() => tokenizer.end())
  yield* pending
  if (rootType !== 'FeatureCollection' || !featuresIsArray) throw notACollection()
}

function notACollection() {
  return invalidField(
    'body',
    'must be a GeoJSON FeatureCollection: {"type": "FeatureCollection", "features": [...]}',
    'request',
  )
}

/** Splits a job upload into records by its Content-Type: CSV rows of cells, NDJSON lines or GeoJSON features. */
export function streamedUpload(
  req: IncomingMessage,
  defaults: URLSearchParams = new URLSearchParams(),
): StreamedUpload {
  const type = mediaType(req)
  const format = MEDIA_TYPES[type]
  if (format === 'csv') return { format, records: csvRecords(req) }
  if (format === 'ndjson') return { format, records: ndjsonLines(req) }
  return { format, records: geojsonFeatures(req), defaults: Object.fromEntries(defaults) }
}
