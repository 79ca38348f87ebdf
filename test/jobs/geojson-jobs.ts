import { parse } from 'csv-parse/sync'
import { expect } from 'vitest'
import { FEATURE_RESULT_COLUMNS } from '../../src/job-files/feature-output.ts'
import { GEOJSON_COLUMNS } from '../../src/job-files/job-features.ts'
import { rest } from '../rest/client.ts'
import { at, BOWTIE } from '../support/feature-fixtures.ts'
import { square } from '../support/geometry.ts'
import { FOREST_POINTS, forestGrid, NO_DATA_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'

/** The uploads and readings the GeoJSON job tests share: a mixed collection, and its results in each format. */

export const GEOJSON = 'application/geo+json'
const { coastRange, westCascades, eastCascades } = FOREST_POINTS

const around = (point: { latitude: number; longitude: number }) => ({
  type: 'Polygon',
  coordinates: [square(point.longitude - 0.005, point.latitude - 0.005)],
})

export interface Expectation {
  /** What the feature is read as: a prediction, a plan, or refused at upload. */
  kind: 'point' | 'stand' | 'refused'
  /** The error code it ends with; null when it is scored. */
  error: string | null
  /** The geometry type GDAL reads for it; null for none. */
  geometry: 'Point' | 'Polygon' | 'MultiPolygon' | null
}

export interface InputFeature {
  feature: unknown
  expected: Expectation
}

const pointOk = (feature: unknown): InputFeature => ({
  feature,
  expected: { kind: 'point', error: null, geometry: 'Point' },
})
const standOk = (feature: unknown, geometry: 'Polygon' | 'MultiPolygon' = 'Polygon'): InputFeature => ({
  feature,
  expected: { kind: 'stand', error: null, geometry },
})

/**
 * The mixed collection: forest points (a few of the grid may have no data nearby), stands, and the
 * features that fail alone — at upload, when scored, when planned.
 */
export function mixedFeatures(gridPoints: number): InputFeature[] {
  const grid = forestGrid(gridPoints).map((point, index) =>
    pointOk({
      type: 'Feature',
      id: `pt-${index}`,
      geometry: at(point),
      properties: index % 3 === 0 ? { species_code: 'TSHE', plot: index } : { plot: index },
    }),
  )
  const mix = [
    { species_code: 'PSME', share: 0.8 },
    { species_code: 'THPL', share: 0.2 },
  ]
  return [
    ...grid.slice(0, gridPoints / 2),
    standOk({ type: 'Feature', id: 'stand-coast', geometry: around(coastRange), properties: { unit: 'A' } }),
    standOk({
      type: 'Feature',
      id: 'stand-west',
      geometry: around(westCascades),
      properties: { species_mix: mix, trees_per_acre: 300, confidence: 0.8, unit: 'B' },
    }),
    standOk(
      {
        type: 'Feature',
        id: 'stand-east-multi',
        geometry: {
          type: 'MultiPolygon',
          coordinates: [
            [square(eastCascades.longitude - 0.01, eastCascades.latitude - 0.005)],
            [square(eastCascades.longitude + 0.005, eastCascades.latitude - 0.005)],
          ],
        },
        properties: { species_code: 'PIPO', unit: 'C' },
      },
      'MultiPolygon',
    ),
    pointOk({
      type: 'Feature',
      geometry: at(coastRange),
      properties: { id: 'by-property', horizons: [3], species_code: 'TSHE' },
    }),
    {
      feature: 42,
      expected: { kind: 'refused', error: 'invalid_request', geometry: null },
    },
    {
      feature: { type: 'Feature', geometry: null, properties: null },
      expected: { kind: 'refused', error: 'invalid_request', geometry: null },
    },
    {
      feature: {
        type: 'Feature',
        id: 'line',
        geometry: {
          type: 'LineString',
          coordinates: [at(coastRange).coordinates, at(westCascades).coordinates],
        },
        properties: {},
      },
      expected: { kind: 'refused', error: 'invalid_request', geometry: null },
    },
    {
      feature: { type: 'Feature', id: 'off-the-globe', geometry: { type: 'Point', coordinates: [200, 44] } },
      expected: { kind: 'refused', error: 'invalid_request', geometry: null },
    },
    {
      feature: {
        type: 'Feature',
        id: 'bad-method',
        geometry: at(coastRange),
        properties: { planting_method: 7 },
      },
      expected: { kind: 'refused', error: 'invalid_request', geometry: 'Point' },
    },
    {
      feature: {
        type: 'Feature',
        id: 'stand-bad-method',
        geometry: around(coastRange),
        properties: { planting_method: ['manual'] },
      },
      expected: { kind: 'refused', error: 'invalid_request', geometry: 'Polygon' },
    },
    {
      feature: {
        type: 'Feature',
        id: 'unknown-species',
        geometry: at(coastRange),
        properties: { species_code: 'NOPE' },
      },
      expected: { kind: 'point', error: 'invalid_species', geometry: 'Point' },
    },
    {
      feature: { type: 'Feature', id: 'city', geometry: at(NO_DATA_POINTS.downtownPortland), properties: {} },
      expected: { kind: 'point', error: 'no_nearby_data', geometry: 'Point' },
    },
    {
      feature: { type: 'Feature', id: 'idaho', geometry: at(OUTSIDE_POINTS.boise), properties: {} },
      expected: { kind: 'point', error: 'outside_coverage', geometry: 'Point' },
    },
    {
      feature: {
        type: 'Feature',
        id: 'bowtie',
        geometry: BOWTIE,
        properties: {},
      },
      expected: { kind: 'stand', error: 'invalid_request', geometry: 'Polygon' },
    },
    {
      feature: {
        type: 'Feature',
        id: 'shares-short',
        geometry: around(westCascades),
        properties: {
          species_mix: [
            { species_code: 'PSME', share: 0.5 },
            { species_code: 'TSHE', share: 0.4 },
          ],
        },
      },
      expected: { kind: 'stand', error: 'invalid_request', geometry: 'Polygon' },
    },
    {
      feature: { type: 'Feature', id: 'stand-idaho', geometry: around(OUTSIDE_POINTS.boise), properties: {} },
      expected: { kind: 'stand', error: 'outside_coverage', geometry: 'Polygon' },
    },
    ...grid.slice(gridPoints / 2),
  ]
}

/** The defaults every test upload sends in its query string. */
export const QUERY = 'planting_method=manual&species_code=PSME&trees_per_acre=400&horizons=1%7C5'

export function collectionText(features: readonly InputFeature[]): string {
  return JSON.stringify({
    type: 'FeatureCollection',
    name: 'planting units',
    features: features.map((f) => f.feature),
  })
}

/** The id a result feature carries: the feature's, else properties.id. */
export function idOf(feature: unknown): string | number | null {
  if (typeof feature !== 'object' || feature === null) return null
  const { id, properties } = feature as { id?: string | number; properties?: { id?: string | number } }
  return id ?? properties?.id ?? null
}

export function geometryOf(feature: unknown): unknown {
  return (feature as { geometry?: unknown }).geometry
}

export interface ResultFeature {
  type: string
  id?: string | number
  geometry: { type: string; coordinates: unknown } | null
  properties: Record<string, unknown>
}

export interface JobBody {
  id: string
  status: string
  format: string
  rows_total: number
  rows_done: number
  rows_failed: number
  errors_by_code: Record<string, number>
}

export async function finished(url: string, key: string, id: string): Promise<JobBody> {
  let last: JobBody | undefined
  const done = await eventually(
    async () => {
      last = (await rest(url, 'GET', `/v1/jobs/${id}`, { key })).body as JobBody
      return ['succeeded', 'failed', 'cancelled'].includes(last.status)
    },
    30_000,
    50,
  )
  expect(done, JSON.stringify(last)).toBe(true)
  return last as JobBody
}

/** The GeoJSON results as bytes, with the response (fetch: the REST client knows CSV and NDJSON only). */
export async function geojsonResults(
  url: string,
  key: string,
  id: string,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${url}/v1/jobs/${id}/results`, {
    headers: { 'x-api-key': key, accept: GEOJSON, ...headers },
  })
  return { response, bytes: Buffer.from(await response.arrayBuffer()) }
}

export function ndjsonRecords(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** What CSV, NDJSON and GeoJSON say about the same job must agree, feature by feature, in input order. */
export function expectFormatsAgree(
  input: readonly InputFeature[],
  csvText: string,
  ndjsonText: string,
  features: readonly ResultFeature[],
) {
  const csv = parse(csvText) as string[][]
  expect(csv[0]).toEqual([...GEOJSON_COLUMNS, ...FEATURE_RESULT_COLUMNS])
  const ndjson = ndjsonRecords(ndjsonText)
  expect(csv).toHaveLength(input.length + 1)
  expect(ndjson).toHaveLength(input.length)
  expect(features).toHaveLength(input.length)
  input.forEach((item, index) => {
    const line = ndjson[index] as Record<string, unknown>
    const feature = features[index] as ResultFeature
    const where = `feature ${index}`
    expect(line.row, where).toBe(index + 1)
    expect(line.feature_index, where).toBe(index)
    expect(line.id, where).toEqual(idOf(item.feature))
    expect(feature.properties.feature_index, where).toBe(index)
    expect(feature.id ?? null, where).toEqual(idOf(item.feature))
    expect(csv[index + 1]?.[1], where).toBe(String(index))
    expect(line.error_code, where).toBe(feature.properties.error_code ?? null)
    expect(
      csv[index + 1]?.[GEOJSON_COLUMNS.length + FEATURE_RESULT_COLUMNS.indexOf('error_code')],
      where,
    ).toBe((line.error_code as string | null) ?? '')
    for (const name of FEATURE_RESULT_COLUMNS)
      expect(feature.properties[name] ?? null, `${where} ${name}`).toEqual(line[name])
  })
}

/** `ogrinfo -ro -al` of a layer: each feature's fields (as text) and geometry type (null for none). */
export function ogrFeatures(text: string): { fields: Record<string, string>; geometry: string | null }[] {
  const blocks = text.split(/^OGRFeature\([^)]*\):\d+\s*$/m).slice(1)
  return blocks.map((block) => {
    const fields: Record<string, string> = {}
    let geometry: string | null = null
    for (const line of block.split('\n')) {
      const field = /^ {2}(\w+) \([^)]*\) = (.*)$/.exec(line)
      if (field) fields[field[1] as string] = field[2] as string
      const shape = /^ {2}(POINT|POLYGON|MULTIPOLYGON|LINESTRING|GEOMETRYCOLLECTION)\b/.exec(line)
      if (shape) geometry = shape[1] as string
    }
    return { fields, geometry }
  })
}

export const GDAL_TYPES: Record<string, string> = {
  Point: 'POINT',
  Polygon: 'POLYGON',
  MultiPolygon: 'MULTIPOLYGON',
}
