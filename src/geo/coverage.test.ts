import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import type { Position } from 'geojson'
import { describe, expect, it } from 'vitest'
import { buildCoverage, serializeCoverage } from '../seed/coverage-shapes.ts'
import { coverageGeoJson, isInCoverage, isOnCoverageLand } from './coverage.ts'
import { ringSignedArea } from './ring.ts'

const LAND: Record<string, [number, number]> = {
  Bend: [44.058, -121.315],
  Yakima: [46.602, -120.505],
  Forks: [47.95, -124.385],
  Medford: [42.327, -122.873],
  Colville: [48.546, -117.905],
  Pendleton: [45.672, -118.788],
  Astoria: [46.188, -123.831],
  Spokane: [47.659, -117.426],
}

const ADDED_WATER: Record<string, [number, number]> = {
  'mid Puget Sound': [47.6, -122.43],
  'South Sound inlets': [47.2, -122.8],
  'Hood Canal': [47.6, -122.96],
  'Willapa Bay': [46.55, -123.97],
  'Grays Harbor': [46.93, -123.95],
  'Columbia estuary': [46.24, -123.85],
}

const LAKES_IN_CENSUS_SHAPES: Record<string, [number, number]> = {
  'Lake Washington': [47.62, -122.26],
  'Lake Roosevelt': [48.1, -118.2],
  'Lake Chelan': [48.1, -120.55],
  'Upper Klamath Lake': [42.4, -121.9],
}

const OUTSIDE: Record<string, [number, number]> = {
  'Pacific off Willapa': [46.5, -125.0],
  'Pacific off Newport': [44.0, -125.5],
  Boise: [43.615, -116.202],
  "Coeur d'Alene": [47.677, -116.78],
  Redding: [40.59, -122.39],
  Reno: [39.53, -119.81],
  'Nevada desert': [41.9, -118.0],
  Vancouver_BC: [49.28, -123.12],
  Victoria: [48.43, -123.37],
  'Strait of Juan de Fuca': [48.25, -123.5],
  'Null Island': [0, 0],
}

function allRings(): { exterior: boolean; ring: Position[] }[] {
  return coverageGeoJson().features.flatMap((feature) => {
    const polygons =
      feature.geometry.type === 'Polygon' ? [feature.geometry.coordinates] : feature.geometry.coordinates
    return polygons.flatMap((rings) => rings.map((ring, index) => ({ exterior: index === 0, ring })))
  })
}

describe('coverage region pnw', () => {
  it.each(Object.entries(LAND))('contains %s on land', (_name, [latitude, longitude]) => {
    expect(isInCoverage(latitude, longitude)).toBe(true)
    expect(isOnCoverageLand(latitude, longitude)).toBe(true)
  })

  it.each(Object.entries(ADDED_WATER))(
    'contains %s as added water, not land',
    (_name, [latitude, longitude]) => {
      expect(isInCoverage(latitude, longitude)).toBe(true)
      expect(isOnCoverageLand(latitude, longitude)).toBe(false)
    },
  )

  it.each(Object.entries(LAKES_IN_CENSUS_SHAPES))(
    'has %s inside the Census shapes',
    (_name, [latitude, longitude]) => {
      expect(isOnCoverageLand(latitude, longitude)).toBe(true)
    },
  )

  it.each(Object.entries(OUTSIDE))('excludes %s', (_name, [latitude, longitude]) => {
    expect(isInCoverage(latitude, longitude)).toBe(false)
  })

  it('never throws for any coordinate on the globe', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        (latitude, longitude) => typeof isInCoverage(latitude, longitude) === 'boolean',
      ),
      { numRuns: 2000 },
    )
  })

  it('answers false for non-finite input', () => {
    expect(isInCoverage(Number.NaN, -122)).toBe(false)
    expect(isInCoverage(45, Number.POSITIVE_INFINITY)).toBe(false)
  })

  it('is the committed file, identical to a fresh build from us-atlas and the reference shapes', () => {
    const committed = readFileSync(new URL('../../data/coverage-pnw.geojson', import.meta.url), 'utf8')
    expect(committed).toBe(serializeCoverage(buildCoverage()))
  })

  it('follows RFC 7946: counter-clockwise exteriors, clockwise holes, closed rings, 5 decimals', () => {
    const rings = allRings()
    expect(rings.length).toBeGreaterThan(0)
    for (const { exterior, ring } of rings) {
      expect(ring.length).toBeGreaterThanOrEqual(4)
      expect(ring[0]).toEqual(ring[ring.length - 1])
      expect(ringSignedArea(ring) > 0).toBe(exterior)
      for (const position of ring) {
        for (const value of position) expect(Math.round(value * 1e5) / 1e5).toBe(value)
      }
    }
  })

  it('labels every feature with region pnw, a name, a kind and a source', () => {
    const collection = coverageGeoJson()
    expect(collection.type).toBe('FeatureCollection')
    expect(collection.features.map((feature) => feature.properties.name)).toEqual(
      expect.arrayContaining(['Oregon', 'Washington', 'Willapa Bay', 'Grays Harbor', 'Hood Canal']),
    )
    for (const feature of collection.features) {
      expect(feature.properties.region).toBe('pnw')
      expect(['land', 'water']).toContain(feature.properties.kind)
      expect(feature.properties.source.length).toBeGreaterThan(10)
    }
  })
})
