import type { IncomingHttpHeaders } from 'node:http'
import { gzipSync } from 'node:zlib'
import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { records, request, splitAt, uploadError } from '../../test/support/upload-requests.ts'
import { ApiError } from '../domain/errors.ts'
import { streamedUpload } from './streamed-upload.ts'

const CSV = { 'content-type': 'text/csv' }
const NDJSON = { 'content-type': 'application/x-ndjson' }

async function csvOf(pieces: readonly (Buffer | string)[], headers: IncomingHttpHeaders = CSV) {
  const upload = streamedUpload(request(pieces, headers))
  expect(upload.format).toBe('csv')
  return (await records(upload)) as string[][]
}

async function linesOf(pieces: readonly (Buffer | string)[], headers: IncomingHttpHeaders = NDJSON) {
  const upload = streamedUpload(request(pieces, headers))
  expect(upload.format).toBe('ndjson')
  return (await records(upload)) as string[]
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

describe('streamedUpload: CSV', () => {
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

  // BUG: src/rest/streamed-upload.ts:49, bodyOf(): `if (req.destroyed) throw new ClientClosedError(error)`.
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
    const upload = streamedUpload(request([SAMPLE_CSV], CSV))
    for await (const record of upload.records) {
      expect(record).toEqual(SAMPLE_RECORDS[0])
      break
    }
  })
})

describe('streamedUpload: NDJSON', () => {
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

  // BUG: src/rest/streamed-upload.ts:112-119, ndjsonLines(): only the unfinished tail of a piece
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

describe('streamedUpload: media type', () => {
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
      streamedUpload(request(['a\n'], headers))
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
    expect(streamedUpload(request([], { 'content-type': 'text/csv;charset=utf-8' })).format).toBe('csv')
    expect(
      streamedUpload(request([], { 'content-type': 'application/x-ndjson; charset=UTF-8' })).format,
    ).toBe('ndjson')
  })
})
