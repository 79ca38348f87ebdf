import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../domain/errors.ts'
import type { JobUpload } from '../domain/jobs/file-formats.ts'
import { byteRange, resultFormat } from './job-routes.ts'
import { jobUpload } from './job-upload.ts'

/**
 * A request whose body arrives in exactly these pieces. Like an IncomingMessage on Node 20, it is
 * destroyed once read to the end; `stillSending` leaves it open after the pieces (more to come).
 */
function request(
  pieces: readonly (Buffer | string)[],
  headers: IncomingHttpHeaders,
  stillSending = false,
): IncomingMessage {
  const buffers = pieces.map((piece) => Buffer.from(piece))
  const body = stillSending ? new Readable({ read() {} }) : Readable.from(buffers)
  if (stillSending) for (const buffer of buffers) body.push(buffer)
  return Object.assign(body, { headers }) as unknown as IncomingMessage
}

const CSV = { 'content-type': 'text/csv' }
const NDJSON = { 'content-type': 'application/x-ndjson' }

/** Splits `bytes` at the given offsets (any order, repeats and out-of-range offsets ignored). */
function splitAt(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const cuts = [...new Set(offsets.filter((at) => at > 0 && at < bytes.length))].sort((a, b) => a - b)
  return [0, ...cuts].map((from, index) => bytes.subarray(from, cuts[index] ?? bytes.length))
}

async function records(upload: JobUpload): Promise<unknown[]> {
  const out: unknown[] = []
  for await (const record of upload.records) out.push(record)
  return out
}

async function csvOf(pieces: readonly (Buffer | string)[], headers: IncomingHttpHeaders = CSV) {
  const upload = jobUpload(request(pieces, headers))
  expect(upload.format).toBe('csv')
  return (await records(upload)) as string[][]
}

async function linesOf(pieces: readonly (Buffer | string)[], headers: IncomingHttpHeaders = NDJSON) {
  const upload = jobUpload(request(pieces, headers))
  expect(upload.format).toBe('ndjson')
  return (await records(upload)) as string[]
}

/** The ApiError reading a request's records fails with (or jobUpload itself throws). */
async function uploadError(
  pieces: readonly (Buffer | string)[],
  headers: IncomingHttpHeaders,
  stillSending = false,
): Promise<ApiError> {
  let thrown: unknown
  try {
    await records(jobUpload(request(pieces, headers, stillSending)))
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(ApiError)
  return thrown as ApiError
}

const SAMPLE_CSV = [
  'id,latitude,longitude,species_code,planting_method,notes',
  'a1,44.6,-123.6,PSME,manual,"ridge, north ""upper"" slope"',
  'a2,44.2,-122.2,TSHE,drone_seeded,"two\r\nlines"',
  '',
  'a3,44.0,-121.6,PIPO,manual,Ñandú 🌲',
  'a4,44.1,-121.7,PIPO,manual',
].join('\r\n')

const SAMPLE_RECORDS = [
  ['id', 'latitude', 'longitude', 'species_code', 'planting_method', 'notes'],
  ['a1', '44.6', '-123.6', 'PSME', 'manual', 'ridge, north "upper" slope'],
  ['a2', '44.2', '-122.2', 'TSHE', 'drone_seeded', 'two\r\nlines'],
  ['a3', '44.0', '-121.6', 'PIPO', 'manual', 'Ñandú 🌲'],
  ['a4', '44.1', '-121.7', 'PIPO', 'manual'],
]

describe('jobUpload: CSV', () => {
  it('splits a CSV body into records: quotes, embedded newlines, CRLF, blank lines skipped, short rows kept', async () => {
    expect(await csvOf([SAMPLE_CSV])).toEqual(SAMPLE_RECORDS)
    expect(await csvOf([`${SAMPLE_CSV.replaceAll('\r\n', '\n')}\n`])).toEqual(
      SAMPLE_RECORDS.map((record) => record.map((cell) => cell.replace('\r\n', '\n'))),
    )
  })

  it('drops a UTF-8 byte order mark and takes text/csv with parameters, in any case', async () => {
    const [header] = await csvOf(['\uFEFFlatitude,longitude\n1,2\n'], {
      'content-type': 'Text/CSV; Charset="UTF-8"',
    })
    expect(header).toEqual(['latitude', 'longitude'])
    expect(await csvOf(['a\n'], { 'content-type': 'text/csv; header=present' })).toEqual([['a']])
  })

  it('reads the same records wherever the body is split', async () => {
    const bytes = Buffer.from(SAMPLE_CSV)
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), async (offsets) => {
        expect(await csvOf(splitAt(bytes, offsets))).toEqual(SAMPLE_RECORDS)
      }),
    )
  })

  it('reads any CSV text the same split into arbitrary pieces as whole', async () => {
    const cell = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', '1', ' ', 'é', '🌲', '.') }),
      fc
        .string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r\n', 'Ñ') })
        .map((text) => `"${text.replaceAll('"', '""')}"`),
    )
    const text = fc
      .array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 })
      .chain((rows) =>
        fc.constantFrom('\n', '\r\n').map((eol) => rows.map((row) => row.join(',')).join(eol) + eol),
      )
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.nat({ max: 400 }), { maxLength: 10 }), async (csv, offsets) => {
        const whole = parse(csv, {
          bom: true,
          relax_column_count: true,
          skip_empty_lines: true,
        }) as string[][]
        expect(await csvOf(splitAt(Buffer.from(csv), offsets))).toEqual(whole)
      }),
    )
  })

  it('reads a gzipped body (Content-Encoding: gzip), itself split anywhere', async () => {
    const zipped = gzipSync(Buffer.from(SAMPLE_CSV))
    expect(await csvOf([zipped], { ...CSV, 'content-encoding': 'gzip' })).toEqual(SAMPLE_RECORDS)
    expect(
      await csvOf(splitAt(zipped, [1, 7, 20, 21, zipped.length - 3]), { ...CSV, 'content-encoding': 'GZIP' }),
    ).toEqual(SAMPLE_RECORDS)
  })

  it('refuses an encoding other than gzip', async () => {
    const brotli = await uploadError([SAMPLE_CSV], { ...CSV, 'content-encoding': 'br' })
    expect(brotli.code).toBe('invalid_request')
    expect(brotli.details).toEqual({ field: 'Content-Encoding', reason: 'must be gzip or absent' })
  })

  it('refuses a body that is not gzip when it says it is, found while the body still arrives', async () => {
    const notGzip = await uploadError([SAMPLE_CSV], { ...CSV, 'content-encoding': 'gzip' }, true)
    expect(notGzip.code).toBe('invalid_request')
    expect(notGzip.details).toEqual({ field: 'body', reason: 'is not valid gzip' })
  })

  // BUG: src/rest/job-upload.ts:49, bodyOf(): `if (req.destroyed) throw new ClientClosedError(error)`.
  // Node 20 destroys an IncomingMessage as soon as its body has been read to the end (autoDestroy; the
  // fake here, a Readable.from, does the same), so a gunzip error found after the last byte arrived —
  // a small body that is not gzip, or any truncated or corrupt gzip body — is taken for the client
  // having gone away. router.ts:110 then returns without answering: the POST /v1/jobs hangs with no
  // response at all (checked against a real server: no answer within 5 s). Expected: 400
  // invalid_request "body is not valid gzip". (A truncated gzip fails with Z_BUF_ERROR, which the
  // code does not map either, so even without the destroyed check it would be a 500.)
  it('refuses a small body that is not gzip when it says it is', async () => {
    const notGzip = await uploadError([SAMPLE_CSV], { ...CSV, 'content-encoding': 'gzip' })
    expect(notGzip.code).toBe('invalid_request')
    expect(notGzip.details).toEqual({ field: 'body', reason: 'is not valid gzip' })
  })

  it('refuses a truncated gzip body (same bug as above)', async () => {
    const zipped = gzipSync(Buffer.from(SAMPLE_CSV))
    const truncated = await uploadError([zipped.subarray(0, zipped.length - 6)], {
      ...CSV,
      'content-encoding': 'gzip',
    })
    expect(truncated.code).toBe('invalid_request')
    expect(truncated.details).toEqual({ field: 'body', reason: 'is not valid gzip' })
  })

  it('refuses an unclosed quote as invalid_request, naming the line', async () => {
    const error = await uploadError(['latitude,notes\n44.6,"open quote\n45,x\n'], CSV)
    expect(error.code).toBe('invalid_request')
    expect(error.details).toMatchObject({ field: 'body' })
    expect(error.message).toMatch(/^body is not readable CSV at line \d+: /)
  })

  it('refuses a record over 64 KiB', async () => {
    const error = await uploadError([`latitude,notes\n44.6,${'x'.repeat(70_000)}\n`], CSV)
    expect(error.code).toBe('invalid_request')
    expect(error.message).toMatch(/^body is not readable CSV/)
  })

  it('stops reading when the reader stops early', async () => {
    const upload = jobUpload(request([SAMPLE_CSV], CSV))
    for await (const record of upload.records) {
      expect(record).toEqual(SAMPLE_RECORDS[0])
      break
    }
  })
})

describe('jobUpload: NDJSON', () => {
  it('splits lines on LF or CRLF, keeping blank lines and a last line without a newline', async () => {
    expect(await linesOf(['{"a":1}\r\n{"b":2}\n\n{"c":3}'])).toEqual(['{"a":1}', '{"b":2}', '', '{"c":3}'])
    expect(await linesOf(['{"a":1}\n'])).toEqual(['{"a":1}'])
    expect(await linesOf([])).toEqual([])
  })

  it('joins a CRLF split between two pieces', async () => {
    expect(await linesOf(['{"a":1}\r', '\n{"b":2}\r\n'])).toEqual(['{"a":1}', '{"b":2}'])
  })

  it('joins a multi-byte character split across pieces', async () => {
    const text = '{"plot":"Ñandú 🌲"}\n{"plot":"é"}\n'
    const bytes = Buffer.from(text)
    const tree = bytes.indexOf(Buffer.from('🌲'))
    // Inside the 4-byte tree, and inside the 2-byte é.
    const pieces = splitAt(bytes, [tree + 1, tree + 3, bytes.indexOf(Buffer.from('é')) + 1])
    expect(pieces.length).toBe(4)
    expect(await linesOf(pieces)).toEqual(['{"plot":"Ñandú 🌲"}', '{"plot":"é"}'])
  })

  it('reads the same lines wherever the body is split', async () => {
    const text = ['{"plot":"Ñandú 🌲"}', '{"a":"x\\ny"}', '', '{"é":1}', 'not json 🌲'].join('\r\n')
    const bytes = Buffer.from(text)
    const expected = ['{"plot":"Ñandú 🌲"}', '{"a":"x\\ny"}', '', '{"é":1}', 'not json 🌲']
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), async (offsets) => {
        expect(await linesOf(splitAt(bytes, offsets))).toEqual(expected)
      }),
    )
  })

  it('reads a gzipped NDJSON body', async () => {
    const zipped = gzipSync(Buffer.from('{"a":1}\n{"b":"🌲"}\n'))
    expect(await linesOf(splitAt(zipped, [3, 11]), { ...NDJSON, 'content-encoding': 'gzip' })).toEqual([
      '{"a":1}',
      '{"b":"🌲"}',
    ])
  })

  it('refuses a line over 64 KiB that arrives in pieces, naming it', async () => {
    const long = `{"b":"${'x'.repeat(70_000)}"}\n`
    const error = await uploadError(['{"a":1}\n', long.slice(0, 66_000), long.slice(66_000)], NDJSON)
    expect(error.code).toBe('invalid_request')
    expect(error.message).toBe('body line 2 is longer than 65536 bytes')
  })

  // BUG: src/rest/job-upload.ts:112-119, ndjsonLines(): only the unfinished tail of a piece
  // (`pending`) is measured against MAX_RECORD_BYTES, never a complete line, nor the last line at the
  // end of the body. So whether a line over 64 KiB is refused depends on where the body happens to be
  // split: the same 70,000-byte line is refused when a piece boundary leaves more than 65,536 bytes of it
  // pending, and taken when it arrives whole in one piece (or in two pieces of up to 64 KiB, as a
  // socket delivers them). Expected: refused (invalid_request "body line 2 is longer than 65536
  // bytes") however the body is split, as a CSV record over the limit always is.
  it('refuses a line over 64 KiB however the body is split', async () => {
    const long = `{"b":"${'x'.repeat(70_000)}"}`
    for (const pieces of [
      [`{"a":1}\n${long}\n`],
      [`{"a":1}\n${long}`],
      ['{"a":1}\n', long.slice(0, 60_000), `${long.slice(60_000)}\n`],
    ]) {
      const error = await uploadError(pieces, NDJSON)
      expect(error.message).toBe('body line 2 is longer than 65536 bytes')
    }
  })
})

describe('jobUpload: media type', () => {
  it.each([
    [undefined],
    ['application/json'],
    ['text/plain'],
    ['text/csv; charset=latin1'],
    ['application/x-ndjson; charset=utf-16'],
    ['multipart/form-data; boundary=x'],
  ])('refuses Content-Type %s with unsupported_media_type, echoing it in details', (type) => {
    const headers: IncomingHttpHeaders = type === undefined ? {} : { 'content-type': type }
    let thrown: unknown
    try {
      jobUpload(request(['a\n'], headers))
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ApiError)
    const error = thrown as ApiError
    expect(error.code).toBe('unsupported_media_type')
    expect(error.status).toBe(415)
    expect(error.details).toEqual({ content_type: type ?? null })
    expect(error.message).toBe(
      'Send the body as text/csv (UTF-8), application/x-ndjson (UTF-8) or application/geo+json (UTF-8)',
    )
  })

  it('takes either type with charset utf-8', () => {
    expect(jobUpload(request([], { 'content-type': 'text/csv;charset=utf-8' })).format).toBe('csv')
    expect(jobUpload(request([], { 'content-type': 'application/x-ndjson; charset=UTF-8' })).format).toBe(
      'ndjson',
    )
  })
})

describe('resultFormat', () => {
  it('answers the job’s own format when Accept names neither', () => {
    for (const accept of [undefined, '', '*/*', 'application/json', 'text/*']) {
      expect(resultFormat(accept, 'csv'), String(accept)).toBe('csv')
      expect(resultFormat(accept, 'ndjson'), String(accept)).toBe('ndjson')
    }
  })

  it('answers the one format Accept names, in any case and with parameters', () => {
    expect(resultFormat('text/csv', 'ndjson')).toBe('csv')
    expect(resultFormat('Application/X-NDJSON', 'csv')).toBe('ndjson')
    expect(resultFormat('application/json, text/csv;q=0.5', 'ndjson')).toBe('csv')
  })

  it('answers the first named when Accept names both', () => {
    expect(resultFormat('text/csv, application/x-ndjson', 'ndjson')).toBe('csv')
    expect(resultFormat('application/x-ndjson,text/csv', 'csv')).toBe('ndjson')
  })

  it('skips a format refused with q=0', () => {
    expect(resultFormat('text/csv;q=0, application/x-ndjson', 'csv')).toBe('ndjson')
    expect(resultFormat('text/csv; q=0.0', 'csv')).toBe('csv')
    expect(resultFormat('application/x-ndjson;q=0', 'ndjson')).toBe('ndjson')
    expect(resultFormat('application/x-ndjson;q=0.01', 'csv')).toBe('ndjson')
  })
})

describe('byteRange', () => {
  it('reads one bytes=start-end range, clipping the end to the length', () => {
    expect(byteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 })
    expect(byteRange('bytes=500-', 1000)).toEqual({ start: 500, end: 999 })
    expect(byteRange('bytes=900-5000', 1000)).toEqual({ start: 900, end: 999 })
    expect(byteRange('bytes=999-999', 1000)).toEqual({ start: 999, end: 999 })
    expect(byteRange(' bytes=1-2 ', 1000)).toEqual({ start: 1, end: 2 })
  })

  it('reads a suffix range as the last bytes, the whole body when it is longer', () => {
    expect(byteRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 })
    expect(byteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 })
    expect(byteRange('bytes=-0', 1000)).toBe('unsatisfiable')
  })

  it('calls a range starting at or past the end unsatisfiable', () => {
    expect(byteRange('bytes=1000-', 1000)).toBe('unsatisfiable')
    expect(byteRange('bytes=1000-2000', 1000)).toBe('unsatisfiable')
    expect(byteRange('bytes=99999999999999999999-', 1000)).toBe('unsatisfiable')
  })

  it('ignores no range, a malformed one, a backwards one and several ranges (the whole body is sent)', () => {
    for (const header of [
      undefined,
      '',
      'bytes=',
      'bytes=-',
      'bytes=5-2',
      'bytes=0-1,3-4',
      'items=0-1',
      'bytes=a-b',
      'bytes 0-1',
    ]) {
      expect(byteRange(header, 1000), String(header)).toBeUndefined()
    }
  })

  it('keeps any satisfiable range within [0, length), never empty', () => {
    const header = fc.oneof(
      fc.tuple(fc.nat(), fc.option(fc.nat())).map(([start, end]) => `bytes=${start}-${end ?? ''}`),
      fc.nat().map((suffix) => `bytes=-${suffix}`),
      fc.string(),
    )
    fc.assert(
      fc.property(header, fc.integer({ min: 1, max: 2 ** 40 }), (text, length) => {
        const range = byteRange(text, length)
        if (range === undefined || range === 'unsatisfiable') return
        expect(Number.isInteger(range.start) && Number.isInteger(range.end)).toBe(true)
        expect(range.start).toBeGreaterThanOrEqual(0)
        expect(range.start).toBeLessThanOrEqual(range.end)
        expect(range.end).toBeLessThan(length)
      }),
    )
  })

  it('answers exactly the bytes asked for when they lie within the body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.nat(), fc.nat(), (length, a, b) => {
        const start = a % length
        const end = start + (b % (length - start))
        expect(byteRange(`bytes=${start}-${end}`, length)).toEqual({ start, end })
      }),
    )
  })
})

const GEOJSON = { 'content-type': 'application/geo+json' }

async function featuresOf(pieces: readonly (Buffer | string)[], headers: IncomingHttpHeaders = GEOJSON) {
  const upload = jobUpload(request(pieces, headers))
  expect(upload.format).toBe('geojson')
  return records(upload)
}

const POINT_FEATURE = {
  type: 'Feature',
  id: 'Ñandú 🌲',
  geometry: { type: 'Point', coordinates: [-123.456789, 44.000001] },
  properties: {
    species_code: 'PSME',
    note: 'é "quoted" \\ back\nslash',
    small: -1.5e-7,
    big: 12345678901234,
    yes: true,
    no: false,
    none: null,
  },
}
const POLYGON_FEATURE = {
  type: 'Feature',
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [-123.6, 44.6],
        [-123.59, 44.6],
        [-123.59, 44.61],
        [-123.6, 44.6],
      ],
    ],
  },
  properties: {
    species_mix: [
      { species_code: 'PSME', share: 0.5 },
      { species_code: 'ALRU', share: 0.5 },
    ],
    'clé 🌲': '日本語',
  },
}

/**
 * A FeatureCollection as a GIS writes it: whitespace and newlines, foreign members before and after
 * `features` (one of them holding a `features` of its own), multi-byte characters in keys and values,
 * escapes, numbers of every form, and elements of `features` that are not features at all.
 */
const SAMPLE_GEOJSON = [
  '\n{ "type": "FeatureCollection", "name": "units 🌲", "bbox": [-123.6, 44.0, -123.4, 44.61],',
  ' "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:OGC:1.3:CRS84" } },',
  ' "features": [',
  JSON.stringify(POINT_FEATURE, null, 1),
  ',',
  JSON.stringify(POLYGON_FEATURE),
  ', 42, "text 🌲", null, [1, 2.5e+3, -0], {},',
  '{"type":"Feature","geometry":null,"properties":{"escaped":"\\u00e9\\ud83c\\udf32\\"\\/\\t"}}',
  ' ],\n "metadata": { "features": [ { "type": "Feature" } ] }\n}\n',
].join('')
const SAMPLE_FEATURES = (JSON.parse(SAMPLE_GEOJSON) as { features: unknown[] }).features

/** The opening of a collection, `type` first. */
const OPEN = '{"type":"FeatureCollection","features":['

/** A body whose pieces come from `pieces` as the reader asks for them; `sent()` says how many bytes went. */
function pulledRequest(pieces: () => Generator<Buffer>, headers: IncomingHttpHeaders = GEOJSON) {
  let bytes = 0
  const counted = function* () {
    for (const piece of pieces()) {
      bytes += piece.length
      yield piece
    }
  }
  const body = Readable.from(counted(), { highWaterMark: 1 })
  return { req: Object.assign(body, { headers }) as unknown as IncomingMessage, sent: () => bytes }
}

async function pulledError(req: IncomingMessage): Promise<unknown> {
  try {
    await records(jobUpload(req))
  } catch (error) {
    return error
  }
  return undefined
}

describe('jobUpload: GeoJSON', () => {
  it('yields the elements of features, and nothing of the foreign members around them', async () => {
    expect(SAMPLE_FEATURES).toHaveLength(8)
    const upload = jobUpload(request([SAMPLE_GEOJSON], GEOJSON), new URLSearchParams('species_code=PSME'))
    expect(upload.format).toBe('geojson')
    expect(upload.format === 'geojson' && upload.defaults).toEqual({ species_code: 'PSME' })
    expect(await records(upload)).toEqual(SAMPLE_FEATURES)
    expect(
      await featuresOf([SAMPLE_GEOJSON], { 'content-type': 'Application/Geo+JSON; charset="utf-8"' }),
    ).toEqual(SAMPLE_FEATURES)
    expect(await featuresOf([`${OPEN}]}`])).toEqual([])
  })

  it('yields each feature as soon as it has arrived, before the body ends', async () => {
    const first = JSON.stringify(POINT_FEATURE)
    const second = JSON.stringify(POLYGON_FEATURE)
    const body = new Readable({ read() {} })
    const req = Object.assign(body, { headers: GEOJSON }) as unknown as IncomingMessage
    const features = jobUpload(req).records[Symbol.asyncIterator]()
    body.push(Buffer.from(`${OPEN}${first},${second.slice(0, 25)}`))
    expect((await features.next()).value).toEqual(POINT_FEATURE)
    const next = features.next()
    const waiting = await Promise.race([
      next.then(() => 'yielded'),
      new Promise((resolve) => setTimeout(() => resolve('waiting'), 50)),
    ])
    expect(waiting).toBe('waiting')
    body.push(Buffer.from(second.slice(25)))
    expect((await next).value).toEqual(POLYGON_FEATURE)
    body.push(Buffer.from(',{"type":"Feature"}'))
    expect((await features.next()).value).toEqual({ type: 'Feature' })
    body.push(Buffer.from(']}'))
    body.push(null)
    expect((await features.next()).done).toBe(true)
  })

  it('reads the same features wherever the body is cut once: inside characters, numbers, escapes, literals', async () => {
    const bytes = Buffer.from(SAMPLE_GEOJSON)
    for (let at = 1; at < bytes.length; at++) {
      expect(await featuresOf(splitAt(bytes, [at])), `cut at byte ${at}`).toEqual(SAMPLE_FEATURES)
    }
  })

  it('reads the same features from a body arriving a byte at a time', async () => {
    const bytes = Buffer.from(SAMPLE_GEOJSON)
    const cuts = Array.from({ length: bytes.length }, (_, i) => i)
    expect(await featuresOf(splitAt(bytes, cuts))).toEqual(SAMPLE_FEATURES)
  })

  it('reads the same features however the body is split', async () => {
    const bytes = Buffer.from(SAMPLE_GEOJSON)
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: bytes.length }), { maxLength: 16 }), async (offsets) => {
        expect(await featuresOf(splitAt(bytes, offsets))).toEqual(SAMPLE_FEATURES)
      }),
      { numRuns: 100 },
    )
  })

  it('reads any collection of JSON values as JSON.parse does, split anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 8 }),
        async (features, typeLast, offsets) => {
          const text = typeLast
            ? JSON.stringify({ features, type: 'FeatureCollection' })
            : JSON.stringify({ type: 'FeatureCollection', features })
          const expected = (JSON.parse(text) as { features: unknown[] }).features
          expect(await featuresOf(splitAt(Buffer.from(text), offsets))).toEqual(expected)
        },
      ),
      { numRuns: 100 },
    )
  })

  it('takes `type` after `features` (known only at the end)', async () => {
    const text = `{"features":[${JSON.stringify(POINT_FEATURE)},{"type":"Feature"}],"type":"FeatureCollection"}`
    expect(await featuresOf([text])).toEqual([POINT_FEATURE, { type: 'Feature' }])
  })

  it('reads a gzipped body (Content-Encoding: gzip), itself split anywhere', async () => {
    const zipped = gzipSync(Buffer.from(SAMPLE_GEOJSON))
    const headers = { ...GEOJSON, 'content-encoding': 'gzip' }
    expect(await featuresOf([zipped], headers)).toEqual(SAMPLE_FEATURES)
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: zipped.length }), { maxLength: 8 }), async (offsets) => {
        expect(await featuresOf(splitAt(zipped, offsets), headers)).toEqual(SAMPLE_FEATURES)
      }),
      { numRuns: 30 },
    )
  })

  const NOT_A_COLLECTION = {
    field: 'body',
    reason: 'must be a GeoJSON FeatureCollection: {"type": "FeatureCollection", "features": [...]}',
  }

  it('refuses a root that is not an object', async () => {
    for (const text of ['[{"type":"Feature"}]', '42', '"FeatureCollection"', 'null', 'true', '', '  \n']) {
      const error = await uploadError([text], GEOJSON)
      expect(error.code, text).toBe('invalid_request')
      expect(error.status).toBe(400)
      expect(error.details, text).toEqual(NOT_A_COLLECTION)
    }
  })

  it('refuses a root whose type is not FeatureCollection, or that has none', async () => {
    for (const type of ['"Feature"', '"featurecollection"', '"GeometryCollection"', '1', 'null', '{}']) {
      const error = await uploadError([`{"type":${type},"features":[]}`], GEOJSON)
      expect(error.details, type).toEqual(NOT_A_COLLECTION)
    }
    expect((await uploadError(['{"features":[]}'], GEOJSON)).details).toEqual(NOT_A_COLLECTION)
    // Known only at the end: the features before it were read, the upload still fails.
    const late = await uploadError(
      [`{"features":[${JSON.stringify(POINT_FEATURE)}],"type":"Feature"}`],
      GEOJSON,
    )
    expect(late.details).toEqual(NOT_A_COLLECTION)
  })

  it('refuses a wrong root type as soon as it is known, while the body still arrives', async () => {
    const error = await uploadError(
      [`{"type":"Topology","features":[${JSON.stringify(POINT_FEATURE)},`],
      GEOJSON,
      true,
    )
    expect(error.details).toEqual(NOT_A_COLLECTION)
  })

  it('refuses features that are not an array', async () => {
    for (const features of ['{"a":{"type":"Feature"}}', 'null', '"[]"', '7', '{}']) {
      const error = await uploadError([`{"type":"FeatureCollection","features":${features}}`], GEOJSON)
      expect(error.details, features).toEqual(NOT_A_COLLECTION)
    }
    expect((await uploadError(['{"type":"FeatureCollection"}'], GEOJSON)).details).toEqual(NOT_A_COLLECTION)
  })

  it('refuses a body that is not JSON, naming it so', async () => {
    for (const text of [
      `${OPEN}{"type":}]}`,
      `${OPEN}{"type":"Feature",}]}`,
      `${OPEN}{"type":"Feature"},]}`,
      `${OPEN}{'type':'Feature'}]}`,
      `${OPEN}NaN]}`,
      `${OPEN}]} x`,
      `${OPEN}]}{"type":"FeatureCollection"}`,
      `${OPEN}/* a comment */]}`,
      'type: FeatureCollection',
    ]) {
      const error = await uploadError([text], GEOJSON)
      expect(error.code, text).toBe('invalid_request')
      expect(error.details, text).toMatchObject({ field: 'body' })
      expect(error.message, text).toMatch(/^body is not valid JSON: /)
    }
  })

  it('refuses a body cut short inside a feature, a string, a number or the features', async () => {
    const feature = JSON.stringify(POINT_FEATURE)
    for (const text of [
      OPEN,
      `${OPEN}${feature}`,
      `${OPEN}${feature},`,
      `${OPEN}${feature.slice(0, 30)}`,
      `${OPEN}${feature.slice(0, feature.indexOf('-123.45') + 4)}`,
      '{"type":"FeatureCol',
      '{"type":"FeatureCollection","features"',
    ]) {
      const error = await uploadError([text], GEOJSON)
      expect(error.code, text).toBe('invalid_request')
      expect(error.details, text).toMatchObject({ field: 'body' })
    }
  })

  // BUG: src/rest/job-upload.ts:188-195 (geojsonFeatures): at the end of the body only the tokenizer
  // is ended, never the TokenParser, and nothing checks that the root object was closed. A body cut
  // short after the features array (`{"type":"FeatureCollection","features":[…]` without its `}`, or
  // with a foreign member half sent) is taken as a whole collection: rootType and featuresIsArray are
  // both set by then. docs/jobs.md: a body that is not JSON is 400 invalid_request and nothing is kept.
  // Expected: 400 invalid_request (body is not valid JSON), as for a body cut anywhere else.
  it('refuses a body cut short after the features array, before the root object closes', async () => {
    const feature = JSON.stringify(POINT_FEATURE)
    for (const text of [
      `${OPEN}${feature}]`,
      `${OPEN}${feature}],`,
      `${OPEN}${feature}],"name":`,
      `${OPEN}${feature}],"bbox":[1,2`,
    ]) {
      const error = await uploadError([text], GEOJSON)
      expect(error.code, text).toBe('invalid_request')
      expect(error.details, text).toMatchObject({ field: 'body' })
    }
  })

  it('takes a feature of exactly 2 MiB', async () => {
    const head = '{"type":"Feature","properties":{"s":"'
    const tail = '"}}'
    const feature = `${head}${'x'.repeat(2 * 1024 * 1024 - head.length - tail.length)}${tail}`
    expect(Buffer.byteLength(feature)).toBe(2 * 1024 * 1024)
    const [read] = await featuresOf([OPEN, feature, ']}'])
    expect((read as { properties: { s: string } }).properties.s).toHaveLength(
      2 * 1024 * 1024 - head.length - tail.length,
    )
  })

  it('refuses a feature over 2 MiB as it arrives, without reading the rest of the body', async () => {
    // A stand of ever more positions: 40 MiB of it would come if the reader kept asking.
    const { req, sent } = pulledRequest(function* () {
      yield Buffer.from(`${OPEN}${JSON.stringify(POINT_FEATURE)},`)
      yield Buffer.from('{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[')
      const positions = Buffer.from('[-123.456789,44.123456],'.repeat(2700))
      for (let i = 0; i < (40 * 1024 * 1024) / positions.length; i++) yield positions
      yield Buffer.from('[-123.456789,44.123456]]]},"properties":{}}]}')
    })
    const error = await pulledError(req)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).code).toBe('invalid_request')
    expect((error as ApiError).message).toBe('body holds a feature longer than 2097152 bytes')
    expect(sent()).toBeLessThan(3 * 1024 * 1024)
  })

  it('refuses a feature over 2 MiB while the body is still being sent', async () => {
    const positions = '[-123.456789,44.123456],'.repeat(100_000)
    const error = await uploadError(
      [`${OPEN}{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[`, positions],
      GEOJSON,
      true,
    )
    expect(error.message).toBe('body holds a feature longer than 2097152 bytes')
  })

  // BUG: src/rest/job-upload.ts:165-175 (geojsonFeatures, tokenizer.onToken): a feature's size is
  // judged by the offset at which each token *starts*, and the feature's own closing brace is never
  // judged (featureStart is reset at line 171 before the check at line 174). So a feature whose bulk is
  // its last token — a long string or number as its last member, e.g. a `description` or a WKT copy
  // of the geometry — is taken at any size: 3 MiB here, and 2 MiB + 2 bytes of any shape. Expected:
  // 400 invalid_request "body holds a feature longer than 2097152 bytes" for every feature over 2 MiB.
  it('refuses any feature over 2 MiB, whatever its last member is', async () => {
    const point = '{"type":"Feature","geometry":{"type":"Point","coordinates":[-123.6,44.6]},"properties":{}'
    const over = (tail: string) => `${point},${tail}}`
    const justOver = (() => {
      const head = '{"type":"Feature","properties":{"s":"'
      const end = '"}}'
      return `${head}${'x'.repeat(2 * 1024 * 1024 + 1 - head.length - end.length)}${end}`
    })()
    for (const [name, feature] of [
      ['a 3 MiB string last', over(`"wkt":"${'x'.repeat(3 * 1024 * 1024)}"`)],
      ['a 3 MiB number last', over(`"n":1${'0'.repeat(3 * 1024 * 1024)}`)],
      ['2 MiB + 1 byte', justOver],
    ] as const) {
      const error = await uploadError([OPEN, feature, ']}'], GEOJSON)
      expect(error.message, name).toBe('body holds a feature longer than 2097152 bytes')
    }
  })

  // BUG: src/rest/job-upload.ts:165-177 (geojsonFeatures): the size check runs per token, and the
  // tokenizer hands on a string only once it has ended, holding all of it until then (as one number).
  // A feature with one long string is read and held whole however long it is — up to MAX_UPLOAD_BYTES
  // (512 MiB) — before any check; while it arrives, nothing is refused. Here all 12 MiB of the string
  // are read and held, and the feature is refused only at the token after it. Expected: refused once
  // the feature passes 2 MiB, with the rest of the body unread (as for a feature of many small tokens).
  it('refuses a feature over 2 MiB of one long string as it arrives, without reading the rest', async () => {
    const { req, sent } = pulledRequest(function* () {
      yield Buffer.from(`${OPEN}{"type":"Feature","geometry":null,"properties":{"note":"`)
      const text = Buffer.from('x'.repeat(64 * 1024))
      for (let i = 0; i < 12 * 16; i++) yield text
      yield Buffer.from('"}}]}')
    })
    const error = await pulledError(req)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).message).toBe('body holds a feature longer than 2097152 bytes')
    expect(sent()).toBeLessThan(3 * 1024 * 1024)
  })

  it('stops reading when the reader stops early', async () => {
    const upload = jobUpload(request([SAMPLE_GEOJSON], GEOJSON))
    for await (const feature of upload.records) {
      expect(feature).toEqual(POINT_FEATURE)
      break
    }
  })
})
