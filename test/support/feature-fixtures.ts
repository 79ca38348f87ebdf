import type { Polygon } from 'geojson'
import { expect } from 'vitest'
import type { InputRow } from '../../src/domain/jobs/file-formats.ts'
import { square } from './geometry.ts'
import { FOREST_POINTS } from './sites.ts'

/** GeoJSON features for the job-file tests: geometries at the Coast Range point, feature builders, checks. */

const { coastRange } = FOREST_POINTS

/** A 0.01° square stand at the Coast Range point. */
export const POLYGON: Polygon = {
  type: 'Polygon',
  coordinates: [square(coastRange.longitude, coastRange.latitude)],
}
/** The Coast Range point. */
export const POINT = { type: 'Point', coordinates: [coastRange.longitude, coastRange.latitude] }

/** A Point geometry at a point. */
export const at = (point: { latitude: number; longitude: number }) => ({
  type: 'Point',
  coordinates: [point.longitude, point.latitude],
})

/** A Polygon geometry: a 0.01° square from its south-west corner. */
export const squarePolygon = (west: number, south: number) => ({
  type: 'Polygon',
  coordinates: [square(west, south)],
})

/** A polygon whose one ring intersects itself (a bow tie) in the Coast Range. */
export const BOWTIE = {
  type: 'Polygon',
  coordinates: [
    [
      [-123.6, 44.6],
      [-123.59, 44.61],
      [-123.59, 44.6],
      [-123.6, 44.61],
      [-123.6, 44.6],
    ],
  ],
}

export const feature = (
  geometry: unknown,
  properties: unknown = {},
  extra: Record<string, unknown> = {},
) => ({
  type: 'Feature',
  geometry,
  properties,
  ...extra,
})
/** A Point feature at the Coast Range point (Douglas-fir planted by hand unless told). */
export const point = (
  properties: unknown = { species_code: 'PSME', planting_method: 'manual' },
  extra = {},
) => feature(POINT, properties, extra)
/** A stand feature (Douglas-fir planted by hand at 400 trees per acre on POLYGON unless told). */
export const stand = (
  properties: unknown = { species_code: 'PSME', planting_method: 'manual', trees_per_acre: 400 },
  geometry: unknown = POLYGON,
  extra = {},
) => feature(geometry, properties, extra)

/** The failure of a row (fails the test when the row did not fail at upload). */
export function failed(row: InputRow): string {
  expect(row.e, JSON.stringify(row)).toBeDefined()
  expect(row.q).toBeUndefined()
  expect(row.p).toBeUndefined()
  expect(row.e?.code).toBe('invalid_request')
  return row.e?.message ?? ''
}
