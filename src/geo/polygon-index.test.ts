import { readFileSync } from 'node:fs'
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon'
import fc from 'fast-check'
import type { MultiPolygon, Polygon, Position } from 'geojson'
import { describe, expect, it } from 'vitest'
import { projectFile } from '../project-files.ts'
import type { CoverageCollection } from './coverage-types.ts'
import { createPointInPolygonsTest } from './polygon-index.ts'

/** The answer without any index: every polygon's rings walked. */
function oracle(geometries: readonly (Polygon | MultiPolygon)[]) {
  return (latitude: number, longitude: number) =>
    geometries.some((geometry) => booleanPointInPolygon([longitude, latitude], geometry))
}

const coverage = JSON.parse(
  readFileSync(projectFile('data/coverage-pnw.geojson'), 'utf8'),
) as CoverageCollection
const geometries = coverage.features.map((feature) => feature.geometry)
const vertices: Position[] = geometries.flatMap((geometry) =>
  (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates).flat(2),
)

/** A square ring, counter-clockwise. */
const square = (west: number, south: number, east: number, north: number): Position[] => [
  [west, south],
  [east, south],
  [east, north],
  [west, north],
  [west, south],
]

describe('createPointInPolygonsTest', () => {
  it('agrees with walking every ring, for points anywhere around the coverage', () => {
    const indexed = createPointInPolygonsTest(geometries)
    const exact = oracle(geometries)
    fc.assert(
      fc.property(
        fc.double({ min: 41.5, max: 49.5, noNaN: true }),
        fc.double({ min: -125.5, max: -116, noNaN: true }),
        (latitude, longitude) => {
          expect(indexed(latitude, longitude)).toBe(exact(latitude, longitude))
        },
      ),
      { numRuns: 20_000 },
    )
  })

  it('agrees on the boundaries: every vertex, points a hair beside it, and segment midpoints', () => {
    const indexed = createPointInPolygonsTest(geometries)
    const exact = oracle(geometries)
    for (let i = 0; i < vertices.length; i++) {
      const [longitude = 0, latitude = 0] = vertices[i] as Position
      const [nextLongitude = 0, nextLatitude = 0] = (vertices[i + 1] ?? vertices[i]) as Position
      const points = [
        [latitude, longitude],
        [latitude + 1e-9, longitude],
        [latitude, longitude - 1e-9],
        [(latitude + nextLatitude) / 2, (longitude + nextLongitude) / 2],
      ]
      for (const [lat = 0, lon = 0] of points)
        expect(indexed(lat, lon), `${lat},${lon}`).toBe(exact(lat, lon))
    }
  })

  it('holes and edges on the grid lines themselves', () => {
    // The grid starts at the shapes' south-west corner, so these edges lie exactly on cell borders.
    const withHole: Polygon = {
      type: 'Polygon',
      coordinates: [square(-120, 45, -119, 46), square(-119.8, 45.2, -119.2, 45.8).reverse()],
    }
    const indexed = createPointInPolygonsTest([withHole])
    const exact = oracle([withHole])
    fc.assert(
      fc.property(fc.integer({ min: -30, max: 1030 }), fc.integer({ min: -30, max: 1030 }), (i, j) => {
        const latitude = 45 + j / 1000
        const longitude = -120 + i / 1000
        expect(indexed(latitude, longitude)).toBe(exact(latitude, longitude))
      }),
      { numRuns: 20_000 },
    )
    expect(indexed(45.5, -119.5)).toBe(false)
    expect(indexed(45.1, -119.9)).toBe(true)
    expect(indexed(45, -120)).toBe(true)
  })

  it('refuses what is not a number, and answers false for no shapes at all', () => {
    const indexed = createPointInPolygonsTest(geometries)
    expect(indexed(Number.NaN, -122)).toBe(false)
    expect(indexed(45, Number.POSITIVE_INFINITY)).toBe(false)
    expect(createPointInPolygonsTest([])(45, -122)).toBe(false)
  })
})
