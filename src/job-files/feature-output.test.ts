import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FOREST_POINTS, NO_DATA_POINT } from '../../test/support/fakes.ts'
import { at, BOWTIE, squarePolygon } from '../../test/support/feature-fixtures.ts'
import { ndjsonLines, outcomesOf, rowsOf } from '../../test/support/feature-rendering.ts'
import { square } from '../../test/support/geometry.ts'
import type { Prediction } from '../domain/prediction-types.ts'
import type { StockingPlan } from '../domain/stocking/stocking-types.ts'
import type { JobResultChunk } from '../types.ts'
import {
  FEATURE_RESULT_COLUMNS,
  featureCsvHeader,
  GEOJSON_CLOSE,
  GEOJSON_OPENING,
  renderFeatureChunk,
} from './feature-output.ts'
import { GEOJSON_COLUMNS } from './job-features.ts'

const { coastRange, westCascades } = FOREST_POINTS

/** A job's features: scored fine, failed when scored, failed at upload; points, polygons, multipolygons. */
const FEATURES: unknown[] = [
  {
    type: 'Feature',
    id: 'a',
    geometry: at(coastRange),
    properties: { species_code: 'PSME', horizons: [1, 5], note: 'ridge, "upper"' },
  },
  {
    type: 'Feature',
    id: 'unknown-species',
    geometry: at(westCascades),
    properties: { species_code: 'NOPE' },
  },
  { type: 'Feature', id: 'city', geometry: at(NO_DATA_POINT), properties: { species_code: 'PSME' } },
  42,
  {
    type: 'Feature',
    id: 7,
    geometry: squarePolygon(coastRange.longitude, coastRange.latitude),
    properties: { species_code: 'PSME', trees_per_acre: 400, owner: 'BLM' },
  },
  {
    type: 'Feature',
    id: 'multi',
    geometry: {
      type: 'MultiPolygon',
      coordinates: [[square(-123.5, 44.5)], [square(-123.45, 44.5)]],
    },
    properties: {
      species_mix: [
        { species_code: 'PSME', share: 0.7 },
        { species_code: 'THPL', share: 0.3 },
      ],
      trees_per_hectare: 988,
      confidence: 0.8,
    },
  },
  {
    type: 'Feature',
    id: 'both-densities',
    geometry: squarePolygon(-123.4, 44.4),
    properties: { species_code: 'PSME', trees_per_acre: 400, trees_per_hectare: 988 },
  },
  {
    type: 'Feature',
    id: 'bowtie',
    geometry: BOWTIE,
    properties: { species_code: 'PSME', trees_per_acre: 400 },
  },
  {
    type: 'Feature',
    id: 'line',
    geometry: {
      type: 'LineString',
      coordinates: [
        [-123.6, 44.6],
        [-123.5, 44.7],
      ],
    },
    properties: { species_code: 'PSME' },
  },
  {
    type: 'Feature',
    id: 'no-species',
    geometry: squarePolygon(-123.3, 44.3),
    properties: { trees_per_acre: 400 },
  },
  { type: 'Feature', geometry: at(westCascades), properties: { id: 'by-property', species_code: 'TSHE' } },
]

async function rendered(features: readonly unknown[] = FEATURES, chunkIndex = 0) {
  const rows = rowsOf(features)
  const outcomes = await outcomesOf(rows)
  return { rows, outcomes, chunk: renderFeatureChunk(rows, outcomes[Symbol.iterator](), chunkIndex) }
}

interface Feature {
  type: string
  id?: string | number
  geometry: unknown
  properties: Record<string, unknown>
}

function collection(...chunks: readonly JobResultChunk[]): Feature[] {
  const text = `${GEOJSON_OPENING}${chunks.map((chunk) => chunk.geojson).join('')}${GEOJSON_CLOSE}`
  const parsed = JSON.parse(text) as { type: string; features: Feature[] }
  expect(parsed.type).toBe('FeatureCollection')
  return parsed.features
}

function ndjsonOf(chunk: JobResultChunk): Record<string, unknown>[] {
  expect(chunk.ndjson.endsWith('\n')).toBe(true)
  return ndjsonLines(chunk)
}

function csvOf(chunk: JobResultChunk): string[][] {
  expect(chunk.csv.endsWith('\r\n')).toBe(true)
  return parse(chunk.csv, { relax_column_count: false }) as string[][]
}

/** A CSV cell's text for an NDJSON value: what the two must agree on. */
function asCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return value.join('|')
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

const COLUMNS = [...GEOJSON_COLUMNS, ...FEATURE_RESULT_COLUMNS]

/** A feature's expected properties: its own, then every result column (null unless given). */
function withResults(
  own: Record<string, unknown>,
  results: Record<string, unknown>,
): Record<string, unknown> {
  return { ...own, ...Object.fromEntries(FEATURE_RESULT_COLUMNS.map((name) => [name, null])), ...results }
}

describe('renderFeatureChunk', () => {
  it('renders every feature once, in input order, in all three formats', async () => {
    const { chunk } = await rendered()
    expect(chunk.rowsDone).toBe(FEATURES.length)
    expect(csvOf(chunk).map((cells) => cells[1])).toEqual(FEATURES.map((_, i) => String(i)))
    expect(ndjsonOf(chunk).map((line) => [line.row, line.feature_index])).toEqual(
      FEATURES.map((_, i) => [i + 1, i]),
    )
    expect(collection(chunk).map((feature) => feature.properties.feature_index)).toEqual(
      FEATURES.map((_, i) => i),
    )
    expect(collection(chunk).map((feature) => feature.id ?? null)).toEqual([
      'a',
      'unknown-species',
      'city',
      null,
      7,
      'multi',
      'both-densities',
      'bowtie',
      'line',
      'no-species',
      'by-property',
    ])
  })

  it('counts the failed features by error code, from upload, scoring and planning alike', async () => {
    const { chunk } = await rendered()
    expect(chunk.errors).toEqual({ invalid_species: 1, no_nearby_data: 1, invalid_request: 5 })
    expect(chunk.rowsFailed).toBe(7)
    expect(ndjsonOf(chunk).map((line) => line.error_code)).toEqual([
      null,
      'invalid_species',
      'no_nearby_data',
      'invalid_request',
      null,
      null,
      'invalid_request',
      'invalid_request',
      'invalid_request',
      'invalid_request',
      null,
    ])
  })

  it('says the same in CSV, NDJSON and GeoJSON: same columns, same values', async () => {
    const { chunk, rows } = await rendered()
    expect(parse(featureCsvHeader())).toEqual([COLUMNS])
    const csv = csvOf(chunk)
    const ndjson = ndjsonOf(chunk)
    const features = collection(chunk)
    expect(csv).toHaveLength(rows.length)
    ndjson.forEach((line, i) => {
      expect(Object.keys(line)).toEqual(['row', ...COLUMNS])
      expect(csv[i], `row ${i + 1}`).toEqual(COLUMNS.map((name) => asCell(line[name])))
      const feature = features[i] as Feature
      expect(feature.type).toBe('Feature')
      expect(feature.id ?? null).toEqual(line.id)
      expect(feature.properties.feature_index).toBe(line.feature_index)
      for (const name of FEATURE_RESULT_COLUMNS)
        expect(feature.properties[name] ?? null, `row ${i + 1} ${name}`).toEqual(line[name])
    })
  })

  it("echoes the input columns: id, index, type, position (a stand's centre), species, method, climate", async () => {
    const ndjson = ndjsonOf((await rendered()).chunk)
    expect(ndjson[0]).toMatchObject({
      id: 'a',
      feature_index: 0,
      geometry_type: 'Point',
      latitude: coastRange.latitude,
      longitude: coastRange.longitude,
      species: 'PSME',
      // From the query's default.
      planting_method: 'manual',
      period: null,
      scenario: null,
    })
    expect(ndjson[4]).toMatchObject({
      id: 7,
      geometry_type: 'Polygon',
      latitude: Math.round((coastRange.latitude + 0.005) * 1e6) / 1e6,
      longitude: Math.round((coastRange.longitude + 0.005) * 1e6) / 1e6,
      species: 'PSME',
    })
    expect(ndjson[5]).toMatchObject({ geometry_type: 'MultiPolygon', species: 'PSME:0.7|THPL:0.3' })
    expect(ndjson[3]).toMatchObject({ id: null, feature_index: 3, geometry_type: null, latitude: null })
    expect(ndjson[8]).toMatchObject({ id: 'line', geometry_type: 'LineString', latitude: null })
  })

  it('gives a point its survival and top factor for the horizons it asked, from the prediction', async () => {
    const { chunk, outcomes } = await rendered()
    const prediction = (outcomes[0] as { result: { ok: true; prediction: Prediction } }).result.prediction
    const [one, five] = prediction.predictions
    const feature = collection(chunk)[0] as Feature
    expect(feature.geometry).toEqual(at(coastRange))
    expect(feature.properties).toEqual(
      withResults(
        { species_code: 'PSME', horizons: [1, 5], note: 'ridge, "upper"', feature_index: 0 },
        {
          survival_1y: one?.survivalProbability,
          survival_5y: five?.survivalProbability,
          top_factor_1y: one?.topContributions(1)[0]?.factor,
          top_factor_5y: five?.topContributions(1)[0]?.factor,
        },
      ),
    )
    expect(typeof feature.properties.survival_1y).toBe('number')
    expect(typeof feature.properties.top_factor_1y).toBe('string')
    const line = ndjsonOf(chunk)[0] as Record<string, unknown>
    expect(line.survival_3y).toBeNull()
    expect(line.top_factor_3y).toBeNull()
    expect(line.rule_set).toBeNull()
    // All three horizons when it asks for none.
    const last = collection(chunk)[10] as Feature
    for (const name of ['survival_1y', 'survival_3y', 'survival_5y'])
      expect(typeof last.properties[name], name).toBe('number')
  })

  it("gives a stand its plan at the rule's horizon, and no survival columns", async () => {
    const { chunk, outcomes } = await rendered()
    const plan = (outcomes.find((o) => o.kind === 'plan') as { plan: StockingPlan }).plan
    const atRule = plan.horizons.find((h) => h.horizonYears === plan.rule.horizonYears)
    const feature = collection(chunk)[4] as Feature
    expect(feature.geometry).toEqual(squarePolygon(coastRange.longitude, coastRange.latitude))
    expect(feature.properties).toEqual(
      withResults(
        { species_code: 'PSME', trees_per_acre: 400, owner: 'BLM', feature_index: 4 },
        {
          rule_set: plan.rule.id,
          rule_horizon_years: plan.rule.horizonYears,
          target_trees_per_acre: plan.rule.targetTreesPerAcre,
          planted_trees_per_acre: 400,
          confidence: 0.9,
          meets_probability: plan.meetsStandard.probability,
          required_trees_per_acre: plan.required.treesPerAcre,
          expected_trees_per_acre: atRule?.expectedTreesPerAcre,
          lower_trees_per_acre: atRule?.lower,
          upper_trees_per_acre: atRule?.upper,
        },
      ),
    )
    expect(plan.rule.id).toBe('or_fpa')
    expect(atRule?.lower).toBeLessThanOrEqual(atRule?.expectedTreesPerAcre as number)
    const multi = collection(chunk)[5] as Feature
    expect(multi.properties).toMatchObject({
      confidence: 0.8,
      planted_trees_per_acre: expect.closeTo(988 / 2.471, 1),
    })
    expect((multi.geometry as { type: string }).type).toBe('MultiPolygon')
  })

  it('gives a plan that failed its error, with its geometry; a feature refused at upload keeps a usable geometry only', async () => {
    const features = collection((await rendered()).chunk)
    const both = features[6] as Feature
    expect(both.geometry).toEqual(squarePolygon(-123.4, 44.4))
    expect(both.properties).toEqual(
      withResults(
        { species_code: 'PSME', trees_per_acre: 400, trees_per_hectare: 988, feature_index: 6 },
        {
          error_code: 'invalid_request',
          error_message: 'trees_per_hectare is given with trees_per_acre; send one or the other',
        },
      ),
    )
    const bowtie = features[7] as Feature
    expect(bowtie.properties.error_code).toBe('invalid_request')
    expect(bowtie.properties.error_message).toMatch(/intersects itself/)
    expect((bowtie.geometry as { type: string }).type).toBe('Polygon')
    // Refused at upload: the message names the feature; a geometry that could be read is given back.
    expect(features[3]).toEqual({
      type: 'Feature',
      geometry: null,
      properties: withResults(
        { feature_index: 3 },
        { error_code: 'invalid_request', error_message: 'feature 3 must be a GeoJSON Feature object' },
      ),
    })
    expect(features[8]?.geometry).toBeNull()
    expect(features[8]?.properties.error_message).toMatch(/^feature 8: geometry\.type "LineString"/)
    expect(features[9]?.geometry).toEqual(squarePolygon(-123.3, 44.3))
    expect(features[9]?.properties.error_message).toBe(
      'feature 9: properties.species_mix (or species_code) is required',
    )
    // Failed when scored: the code the endpoint gives.
    expect(features[1]?.properties).toMatchObject({ error_code: 'invalid_species' })
    expect(features[2]?.properties).toMatchObject({ error_code: 'no_nearby_data' })
    expect(features[2]?.properties.survival_1y).toBeNull()
  })

  it('puts no comma before the very first feature (chunk 0), and one before every other', async () => {
    const rows = rowsOf(FEATURES)
    const outcomes = await outcomesOf(rows)
    const first = renderFeatureChunk(rows, outcomes[Symbol.iterator](), 0)
    const later = renderFeatureChunk(rows, outcomes[Symbol.iterator](), 3)
    expect(first.geojson.startsWith('{"type":"Feature"')).toBe(true)
    expect(later.geojson).toBe(`,\n${first.geojson}`)
    expect(first.geojson.split('\n').length).toBe(FEATURES.length)
    expect(first.geojson.endsWith('}')).toBe(true)
    expect(later.csv).toBe(first.csv)
    expect(later.ndjson).toBe(first.ndjson)
    // Chunk 0 then any later chunk, between the opening and the close: one FeatureCollection.
    expect(collection(first, later)).toHaveLength(2 * FEATURES.length)
  })

  it('makes the same collection however the features are cut into chunks', async () => {
    const rows = rowsOf(FEATURES)
    const outcomes = await outcomesOf(rows)
    const whole = renderFeatureChunk(rows, outcomes[Symbol.iterator](), 0)
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: rows.length - 1 }), { maxLength: 6 }), (cuts) => {
        const bounds = [0, ...[...cuts].sort((a, b) => a - b), rows.length]
        // One outcome stream across the chunks, each chunk taking what its rows need.
        const stream = outcomes[Symbol.iterator]()
        const chunks = bounds
          .slice(0, -1)
          .map((from, index) => renderFeatureChunk(rows.slice(from, bounds[index + 1]), stream, index))
        expect(collection(...chunks)).toEqual(collection(whole))
        expect(chunks.map((chunk) => chunk.csv).join('')).toBe(whole.csv)
        expect(chunks.map((chunk) => chunk.ndjson).join('')).toBe(whole.ndjson)
        expect(chunks.map((chunk) => chunk.geojson).join('')).toBe(whole.geojson)
        expect(chunks.reduce((sum, chunk) => sum + chunk.rowsFailed, 0)).toBe(whole.rowsFailed)
      }),
      { numRuns: 50 },
    )
  })

  it('refuses to render a chunk with fewer outcomes than checked features', async () => {
    const rows = rowsOf(FEATURES)
    const outcomes = (await outcomesOf(rows)).slice(0, -1)
    expect(() => renderFeatureChunk(rows, outcomes[Symbol.iterator](), 0)).toThrow(
      'fewer results than features to score',
    )
  })
})
