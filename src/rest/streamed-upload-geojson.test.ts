import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { records, request, splitAt, uploadError } from '../../test/support/upload-requests.ts'
import { ApiError } from '../domain/errors.ts'
import { streamedUpload } from './streamed-upload.ts'

const GEOJSON = { 'content-type': 'application/geo+json' }

async function featuresOf(pieces: readonly (Buffer | string)[], headers: IncomingHttpHeaders = GEOJSON) {
  const upload = streamedUpload(request(pieces, headers))
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
    await records(streamedUpload(req))
  } catch (error) {
    return error
  }
  return undefined
}

describe('streamedUpload: GeoJSON', () => {
  it('yields the elements of features, and nothing of the foreign members around them', async () => {
    expect(SAMPLE_FEATURES).toHaveLength(8)
    const upload = streamedUpload(
      request([SAMPLE_GEOJSON], GEOJSON),
      new URLSearchParams('species_code=PSME'),
    )
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
    const features = streamedUpload(req).records[Symbol.asyncIterator]()
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

  // BUG: src/rest/streamed-upload.ts:188-195 (geojsonFeatures): at the end of the body only the tokenizer
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

  // BUG: src/rest/streamed-upload.ts:165-175 (geojsonFeatures, tokenizer.onToken): a feature's size is
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

  // BUG: src/rest/streamed-upload.ts:165-177 (geojsonFeatures): the size check runs per token, and the
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
    const upload = streamedUpload(request([SAMPLE_GEOJSON], GEOJSON))
    for await (const feature of upload.records) {
      expect(feature).toEqual(POINT_FEATURE)
      break
    }
  })
})
