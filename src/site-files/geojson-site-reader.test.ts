import { Readable } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { idInFeatureText } from './feature-id-text.ts'
import { featureRecord, MAX_FEATURE_BYTES, readGeoJsonSites } from './geojson-site-reader.ts'
import { SiteFileError } from './site-file-error.ts'
import type { OpenedSource } from './site-file-source.ts'
import type { SiteRecord } from './site-record.ts'

/*
 * The GeoJSON FeatureCollection reader over its byte scanner: the same records however the bytes are
 * split into chunks (inside a string, an escape or a multi-byte character), and a clear refusal, naming
 * the feature, of a document that is cut short, broken, too large in one feature, or no collection.
 */

/** A source of the bytes split before each offset of `cuts`. */
function sourceOf(bytes: Buffer, cuts: readonly number[] = []): OpenedSource & { read: () => number } {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Buffer[] = []
  let from = 0
  for (const cut of [...at, bytes.length]) {
    if (cut > from) chunks.push(bytes.subarray(from, cut))
    from = Math.max(from, cut)
  }
  let read = 0
  async function* counted() {
    for (const chunk of chunks) {
      read += chunk.length
      yield chunk
    }
  }
  return {
    name: 'sites.geojson',
    path: null,
    head: chunks[0] ?? Buffer.alloc(0),
    chunks: counted(),
    close: () => {},
    read: () => read,
  }
}

interface Outcome {
  records: SiteRecord[]
  error: string | null
  row?: number | null
}

async function outcome(source: OpenedSource, maxFeatureBytes?: number): Promise<Outcome> {
  const records: SiteRecord[] = []
  try {
    for await (const record of readGeoJsonSites(source, maxFeatureBytes ? { maxFeatureBytes } : {}))
      records.push(record)
  } catch (error) {
    if (!(error instanceof SiteFileError)) throw error
    return { records, error: error.message, row: error.row }
  }
  return { records, error: null }
}

const read = (text: string | Buffer, cuts: readonly number[] = [], maxFeatureBytes?: number) =>
  outcome(sourceOf(Buffer.from(text), cuts), maxFeatureBytes)

async function refusal(
  text: string | Buffer,
  maxFeatureBytes?: number,
): Promise<Outcome & { error: string }> {
  const result = await read(text, [], maxFeatureBytes)
  if (result.error === null) throw new Error(`read: ${String(text).slice(0, 80)}`)
  return result as Outcome & { error: string }
}

const point = (id: number, properties: Record<string, unknown> = {}) => ({
  type: 'Feature',
  id: `f${id}`,
  geometry: { type: 'Point', coordinates: [-122.5 + id / 1000, 45.5] },
  properties: { site_id: id, elevation_m: 300 + id, ...properties },
})

const collection = (features: unknown[], extra = '') =>
  `{"type":"FeatureCollection"${extra},"features":[${features.map((feature) => JSON.stringify(feature)).join(',')}]}`

// Text that breaks naive scanners: quotes, backslashes before quotes, braces and brackets in strings,
// escapes, and characters of two, three and four bytes in UTF-8.
const tricky = fc.constantFrom(
  '"',
  '\\',
  '\\"',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  'é',
  'ß',
  '中',
  '\u2028',
  '😀',
  '\uFEFF',
)
const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.array(fc.oneof(tricky, fc.string({ maxLength: 2 })), { maxLength: 6 }).map((parts) => parts.join('')),
)
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
)
const nested = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 3 }),
})).value
const feature = fc.oneof(
  {
    arbitrary: fc.record(
      {
        type: fc.constant('Feature'),
        id: fc.oneof(text, fc.integer()),
        geometry: fc.oneof(
          fc.record({
            type: fc.constant('Point'),
            coordinates: fc.tuple(
              fc.double({ min: -180, max: 180, noNaN: true }),
              fc.double({ min: -90, max: 90, noNaN: true }),
            ),
          }),
          fc.constant(null),
          fc.record({ type: fc.constant('Polygon'), coordinates: fc.constant([]) }),
        ),
        properties: fc.oneof(
          fc.dictionary(text, fc.oneof(scalar, nested), { maxKeys: 5 }),
          fc.constant(null),
        ),
      },
      { requiredKeys: ['type'] },
    ),
    weight: 8,
  },
  { arbitrary: nested, weight: 1 },
)
const member = fc.tuple(
  fc.constantFrom('bbox', 'name', 'properties', 'crs', 'featureCount', '"quoted"'),
  nested,
)
const document = fc.record({
  features: fc.array(feature, { maxLength: 6 }),
  before: fc.array(member, { maxLength: 2 }),
  after: fc.array(member, { maxLength: 2 }),
  typeLast: fc.boolean(),
  indent: fc.constantFrom(0, 1, 2, '\t'),
  crlf: fc.boolean(),
  bom: fc.boolean(),
  padding: fc.constantFrom('', ' ', '\n', '\r\n\t '),
})

type Document = typeof document extends fc.Arbitrary<infer T> ? T : never

/** A document's text, and the records its features give (each as JSON.parse gives it back). */
function written(doc: Document): { text: string; expected: SiteRecord[] } {
  const members: [string, unknown][] = []
  const other = ([name, value]: [string, unknown]): [string, unknown] =>
    name === 'crs'
      ? [name, { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } }]
      : [name, value]
  if (!doc.typeLast) members.push(['type', 'FeatureCollection'])
  members.push(...doc.before.map(other), ['features', doc.features], ...doc.after.map(other))
  if (doc.typeLast) members.push(['type', 'FeatureCollection'])
  const json = (value: unknown) => JSON.stringify(value, null, doc.indent)
  // Member by member: a document may repeat a name, as JSON allows.
  const body = members
    .map(([name, value]) => `${JSON.stringify(name)}:${json(value)}`)
    .join(`,${doc.padding}`)
  let text = `${doc.padding}{${doc.padding}${body}${doc.padding}}${doc.padding}`
  if (doc.crlf) text = text.replaceAll('\n', '\r\n')
  if (doc.bom) text = `\uFEFF${text}`
  const expected = doc.features.map((each, index) =>
    featureRecord(index + 1, JSON.parse(JSON.stringify(each))),
  )
  return { text, expected }
}

const cutsOf = fc.array(fc.nat(), { maxLength: 12 })

describe('reading a FeatureCollection however its bytes are split', () => {
  it('gives the records JSON.parse gives each feature, one chunk or many', async () => {
    await fc.assert(
      fc.asyncProperty(document, cutsOf, async (doc, cuts) => {
        const { text, expected } = written(doc)
        expect(await read(text)).toEqual({ records: expected, error: null })
        expect(await read(text, cuts)).toEqual({ records: expected, error: null })
      }),
      { numRuns: 400 },
    )
  })

  it('reads a byte at a time', async () => {
    const features = [point(1, { note: 'a "quoted" \\ {brace} [bracket] é 中 😀' }), point(2), null, 7]
    const text = `\uFEFF{\r\n  "type": "FeatureCollection",\r\n  "bbox": [1, 2, 3, 4],\r\n  "features": [\r\n${features.map((each) => JSON.stringify(each, null, 2)).join(',\r\n')}\r\n  ]\r\n}\r\n`
    const bytes = Buffer.from(text)
    const everyByte = Array.from({ length: bytes.length }, (_, index) => index)
    const expected = features.map((each, index) => featureRecord(index + 1, each))
    expect(await read(bytes, everyByte)).toEqual({ records: expected, error: null })
    expect(expected[0]?.fields.note).toBe('a "quoted" \\ {brace} [bracket] é 中 😀')
    expect(expected[2]?.issues?.[0]?.message).toBe('is not a GeoJSON Feature')
  })

  it('fails the same way, after the same records, one chunk or many: cut, damaged, or past the limit', async () => {
    const damage = fc.oneof(
      fc.record({ cut: fc.nat() }),
      fc.record({ at: fc.nat(), insert: fc.constantFrom('{', '}', '[', ']', '"', ',', ':', '\\', 'x', ' ') }),
      fc.record({ at: fc.nat(), remove: fc.integer({ min: 1, max: 3 }) }),
    )
    await fc.assert(
      fc.asyncProperty(
        document,
        damage,
        cutsOf,
        fc.option(fc.integer({ min: 8, max: 400 }), { nil: undefined }),
        async (doc, change, cuts, limit) => {
          const bytes = Buffer.from(written(doc).text)
          let damaged: Buffer
          if ('cut' in change) damaged = bytes.subarray(0, change.cut % (bytes.length + 1))
          else {
            const at = change.at % (bytes.length + 1)
            damaged =
              'insert' in change
                ? Buffer.concat([bytes.subarray(0, at), Buffer.from(change.insert), bytes.subarray(at)])
                : Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + change.remove)])
          }
          const whole = await outcome(sourceOf(damaged), limit)
          expect(await outcome(sourceOf(damaged, cuts), limit)).toEqual(whole)
          // A document cut short is refused after the records before the cut.
          const full = await outcome(sourceOf(bytes), limit)
          if ('cut' in change && damaged.length <= bytes.lastIndexOf('}') && full.error === null) {
            expect(whole.error).toMatch(/^sites\.geojson: is not valid JSON: it /)
            expect(full.records.slice(0, whole.records.length)).toEqual(whole.records)
          }
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe('a document that is not a readable collection is refused, naming the feature', () => {
  const features = [point(1), point(2), point(3)]
  const good = collection(features)

  it('a document cut short, wherever the cut falls', async () => {
    const bytes = Buffer.from(good)
    const expected = features.map((each, index) => featureRecord(index + 1, each))
    for (let length = 0; length < bytes.length; length++) {
      const result = await read(bytes.subarray(0, length))
      expect(result.error, `cut at ${length}`).toMatch(/^sites\.geojson: is not valid JSON: it /)
      expect(expected.slice(0, result.records.length)).toEqual(result.records)
    }
    const inside = await refusal(good.slice(0, good.indexOf('"elevation_m":302')))
    expect(inside.error).toBe(
      `sites.geojson: is not valid JSON: it ends inside feature 2 (id 2, from byte ${good.indexOf('{"type":"Feature","id":"f2"')}) at byte ${good.indexOf('"elevation_m":302')}, before the FeatureCollection closes`,
    )
    expect(inside.records.map((record) => record.row)).toEqual([1])
    const between = await refusal(good.slice(0, good.indexOf(',{"type":"Feature","id":"f2"') + 1))
    expect(between.error).toMatch(
      /it ends after feature 1 \(id 1\) at byte \d+, before the FeatureCollection closes$/,
    )
    expect((await refusal(good.slice(0, -1))).error).toMatch(
      /it ends at byte \d+, before the FeatureCollection closes$/,
    )
  })

  it('broken JSON inside a feature, or between two', async () => {
    const mismatched = good.replace('45.5]}', '45.5}}')
    const at = mismatched.indexOf('45.5}}') + 4
    expect((await refusal(mismatched)).error).toBe(
      `sites.geojson: is not valid JSON: expected "]" in feature 1 (id f1, from byte 40), found "}" at byte ${at}`,
    )
    const unparsed = await refusal(good.replace('"elevation_m":302', '"elevation_m":3x2'))
    expect(unparsed.error).toMatch(
      /^sites\.geojson \(row 2\): is not valid JSON: feature 2 \(id 2, from byte \d+\) does not parse: /,
    )
    expect(unparsed.records).toHaveLength(1)
    const noComma = await refusal(
      good.replace('}},{"type":"Feature","id":"f3"', '}} {"type":"Feature","id":"f3"'),
    )
    expect(noComma.error).toMatch(
      /is not valid JSON: expected "," or "]" after feature 2 \(id 2\), found "\{" at byte \d+$/,
    )
    expect(noComma.records).toHaveLength(2)
    expect((await refusal(good.replace('[{', '[,{'))).error).toMatch(
      /expected feature 1, found "," at byte 40$/,
    )
    expect((await refusal(good.replace(/\]\}$/, ',]}'))).error).toMatch(/expected feature 4, found "]"/)
    expect((await refusal(good.replace('"features"', '"features" x'))).error).toMatch(
      /expected ":" after "features", found "x"/,
    )
    expect((await refusal(good.replace(',"features"', ' "features"'))).error).toMatch(
      /expected "," or "}" after the value of "type", found "\\"" at byte 28$/,
    )
  })

  it('trailing garbage after the collection', async () => {
    for (const tail of ['x', ',', '{}', ']', '\u0000', good]) {
      const result = await refusal(`${good}\r\n${tail}`)
      expect(result.error).toMatch(
        /is not valid JSON: expected nothing more after the FeatureCollection, found .+ at byte \d+$/,
      )
      expect(result.records).toHaveLength(3)
    }
    expect(await read(`${good} \r\n\t `)).toMatchObject({ error: null })
  })

  it('a feature past the size limit, and a feature that never ends', async () => {
    const big = collection([point(1), point(2, { notes: 'x'.repeat(MAX_FEATURE_BYTES) }), point(3)])
    const result = await refusal(big)
    expect(result.error).toBe(
      `sites.geojson (row 2): has a feature too large to be a site: feature 2 (id 2, from byte ${big.indexOf('{"type":"Feature","id":"f2"')}) is larger than 1 MiB; is a "}" or "]" missing?`,
    )
    expect(result.row).toBe(2)
    expect(result.records).toHaveLength(1)
    // One just under the limit is read.
    const fits = point(2, { notes: '' })
    const room = MAX_FEATURE_BYTES - JSON.stringify(fits).length
    const under = await read(collection([point(1), point(2, { notes: 'y'.repeat(room) })]))
    expect(under.error).toBeNull()
    expect(under.records[1]?.fields.notes).toHaveLength(room)
    // A string that never closes is refused once it passes the limit, not read to the end.
    const endless = Buffer.from(
      `${collection([point(1)]).slice(0, -2)},{"type":"Feature","properties":{"notes":"${'z'.repeat(8 * MAX_FEATURE_BYTES)}`,
    )
    const source = sourceOf(
      endless,
      Array.from({ length: 64 }, (_, index) => (index + 1) * 64 * 1024),
    )
    expect((await outcome(source)).error).toMatch(/feature 2 \(from byte \d+\) is larger than 1 MiB/)
    expect(source.read()).toBeLessThan(MAX_FEATURE_BYTES + 2 * 64 * 1024)
    // Another member past the limit is passed over; a "type" or "crs" is refused.
    const description = `,"description":${JSON.stringify('d'.repeat(MAX_FEATURE_BYTES + 10))}`
    expect(await read(collection(features, description))).toMatchObject({
      error: null,
      records: { length: 3 },
    })
    expect((await refusal(`{"crs":${JSON.stringify({ p: 'c'.repeat(MAX_FEATURE_BYTES) })}}`)).error).toMatch(
      /has a "crs" larger than 1 MiB$/,
    )
  })

  it('a top level that is not a FeatureCollection', async () => {
    const cases: [string, RegExp][] = [
      ['[{"type":"FeatureCollection","features":[]}]', /is a JSON array, not a GeoJSON FeatureCollection/],
      [JSON.stringify(point(1)), /is a GeoJSON Feature, not a GeoJSON FeatureCollection/],
      ['{"type":"Topology","objects":{}}', /is a GeoJSON Topology, not a GeoJSON FeatureCollection/],
      ['{"type":"Point","coordinates":[1,2]}', /is a GeoJSON Point, not a GeoJSON FeatureCollection/],
      ['{}', /is an object without "type", not a GeoJSON FeatureCollection/],
      ['"FeatureCollection"', /is not valid JSON: expected "\{", found "\\"" at byte 0$/],
      ['{"type":"FeatureCollection","features":null}', /has "features" that is not an array$/],
      ['{"type":"FeatureCollection","features":{"0":{}}}', /has "features" that is not an array$/],
      ['{"type":FeatureCollection,"features":[]}', /expected the value of "type", found "F" at byte 8$/],
      ['{"type":nul,"features":[]}', /is not valid JSON: the value of "type" from byte 8 does not parse: /],
      ['{"typ\\u0065":"Feature","features":[]}', /is a GeoJSON Feature, not/],
    ]
    for (const [text, message] of cases) expect((await refusal(text)).error, text).toMatch(message)
    // The type may come last: the features before it are read, then the collection is refused.
    const typeLast = await refusal(`{"features":[${JSON.stringify(point(1))}],"type":"Feature"}`)
    expect(typeLast.error).toMatch(/is a GeoJSON Feature, not/)
    expect(typeLast.records).toHaveLength(1)
    expect(await read(`{"features":[${JSON.stringify(point(1))}],"type":"FeatureCollection"}`)).toMatchObject(
      {
        error: null,
        records: { length: 1 },
      },
    )
  })
})

describe('a feature’s id for a message', () => {
  it('is its site_id, else its properties’ id, else its own id, from as much of it as was read', () => {
    expect(idInFeatureText(JSON.stringify(point(7)))).toBe('7')
    expect(idInFeatureText('{"id":"own","properties":{"a":{"site_id":"nested"},"id":"prop')).toBe('own')
    expect(idInFeatureText('{"id":"own","properties":{"a":{"site_id":"nested"},"id":"prop"')).toBe('prop')
    expect(idInFeatureText('{"properties":{"note":"\\"site_id\\": 3","site_id":"S\\u00e9 1"},"id":9}')).toBe(
      'Sé 1',
    )
    expect(idInFeatureText('{"type":"Feature","properties":{"site_id":null}')).toBeNull()
    expect(idInFeatureText('{"ty')).toBeNull()
  })
})

// A stream of Buffers through the public entry point too, so the reader is used as site-readers.ts uses it.
it('reads a collection streamed in small chunks through readSiteFile', async () => {
  const { readSiteFile } = await import('./site-readers.ts')
  const text = collection([point(1, { note: '中😀' }), point(2)])
  const chunks = Buffer.from(text).reduce<Buffer[]>((all, _, index, bytes) => {
    if (index % 7 === 0) all.push(Buffer.from(bytes.subarray(index, index + 7)))
    return all
  }, [])
  const got: SiteRecord[] = []
  for await (const record of readSiteFile(Readable.from(chunks), { name: 'streamed.geojson' }))
    got.push(record)
  expect(got.map((record) => [record.row, record.featureId, record.fields.note])).toEqual([
    [1, '1', '中😀'],
    [2, '2', undefined],
  ])
})
