import type { MultiPolygon, Polygon, Position } from 'geojson'
import { describe, expect, it } from 'vitest'
import { polygon, rectangle } from '../../../test/support/geometry.ts'
import { ApiError } from '../errors.ts'
import type { StandInput } from '../input-rules.ts'
import { checkedStand, STAND_MAX_HECTARES, STAND_MAX_VERTICES } from './stand.ts'

/** A closed ring of `count` distinct positions (plus the closing one) around a centre. */
function circle(lon: number, lat: number, radiusDeg: number, count: number): Position[] {
  const ring: Position[] = []
  for (let i = 0; i < count; i++) {
    const angle = (2 * Math.PI * i) / count
    ring.push([lon + radiusDeg * Math.cos(angle), lat + radiusDeg * Math.sin(angle)])
  }
  ring.push([...(ring[0] as Position)])
  return ring
}

const multiPolygon = (...polygons: Position[][][]): MultiPolygon => ({
  type: 'MultiPolygon',
  coordinates: polygons,
})
const feature = (geometry: Polygon | MultiPolygon): StandInput => ({ type: 'Feature', geometry })

/**
 * The area of a lon/lat rectangle on the WGS84 ellipsoid, ha: (b²·Δλ/2)·[q(φ)] between the parallels,
 * q(φ) = sin φ/(1 − e² sin² φ) + ln((1 + e sin φ)/(1 − e sin φ))/(2e).
 */
function ellipsoidalRectangleHa(west: number, south: number, east: number, north: number): number {
  const a = 6_378_137
  const f = 1 / 298.257223563
  const b = a * (1 - f)
  const e = Math.sqrt(f * (2 - f))
  const q = (latDeg: number) => {
    const s = Math.sin((latDeg * Math.PI) / 180)
    return s / (1 - e * e * s * s) + Math.log((1 + e * s) / (1 - e * s)) / (2 * e)
  }
  const dLon = ((east - west) * Math.PI) / 180
  return (((b * b * dLon) / 2) * (q(north) - q(south))) / 10_000
}

/** The invalid_request a stand is refused with (fails the test if it is accepted). */
function refusal(input: unknown, field?: string): { field: string; reason: string; error: ApiError } {
  let caught: unknown
  try {
    checkedStand(input as StandInput, field)
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(ApiError)
  const error = caught as ApiError
  expect(error.code).toBe('invalid_request')
  expect(error.status).toBe(400)
  const details = error.details as { field: string; reason: string }
  expect(error.message).toBe(`${details.field} ${details.reason}`)
  return { ...details, error }
}

// A stand in the Oregon Coast Range, 0.05° on a side (about 2,200 ha).
const W = -123.65
const S = 44.55
const E = -123.6
const N = 44.6
const SQUARE = rectangle(W, S, E, N)
const HOLE = rectangle(-123.64, 44.56, -123.62, 44.58).reverse()

describe('checkedStand: stands of every shape', () => {
  it('takes a Polygon: its area, bounding box, centroid and what it contains', () => {
    const stand = checkedStand(polygon(SQUARE))
    expect(stand.geometry).toEqual(polygon(SQUARE))
    expect(stand.bbox).toEqual([W, S, E, N])
    expect(stand.centroid.latitude).toBeCloseTo((S + N) / 2, 6)
    expect(stand.centroid.longitude).toBeCloseTo((W + E) / 2, 6)
    expect(stand.contains({ latitude: 44.57, longitude: -123.63 })).toBe(true)
    expect(stand.contains({ latitude: 44.61, longitude: -123.63 })).toBe(false)
    expect(stand.contains({ latitude: 44.57, longitude: -123.5 })).toBe(false)
  })

  it('measures a rectangle close to its area on the ellipsoid (within 0.5 %)', () => {
    const expected = ellipsoidalRectangleHa(W, S, E, N)
    expect(expected).toBeGreaterThan(2000)
    expect(expected).toBeLessThan(2400)
    const { areaHa } = checkedStand(polygon(SQUARE))
    expect(Math.abs(areaHa / expected - 1)).toBeLessThan(0.005)
  })

  it('measures the same whichever way the ring winds', () => {
    const clockwise = checkedStand(polygon([...SQUARE].reverse()))
    const counter = checkedStand(polygon(SQUARE))
    expect(clockwise.areaHa).toBeCloseTo(counter.areaHa, 6)
    expect(clockwise.centroid.latitude).toBeCloseTo(counter.centroid.latitude, 6)
    expect(clockwise.centroid.longitude).toBeCloseTo(counter.centroid.longitude, 6)
  })

  it('takes a Polygon with a hole: a site in the hole is not contained, the hole’s area is not counted', () => {
    const stand = checkedStand(polygon(SQUARE, HOLE))
    expect(stand.contains({ latitude: 44.57, longitude: -123.63 })).toBe(false) // in the hole
    expect(stand.contains({ latitude: 44.59, longitude: -123.61 })).toBe(true) // in the ring around it
    const whole = checkedStand(polygon(SQUARE)).areaHa
    const hole = ellipsoidalRectangleHa(-123.64, 44.56, -123.62, 44.58)
    expect(Math.abs((whole - stand.areaHa) / hole - 1)).toBeLessThan(0.005)
  })

  it('takes a MultiPolygon: a site in any part is contained, the box spans them all', () => {
    const second = rectangle(-123.5, 44.7, -123.45, 44.75)
    const stand = checkedStand(multiPolygon([SQUARE], [second]))
    expect(stand.contains({ latitude: 44.57, longitude: -123.63 })).toBe(true)
    expect(stand.contains({ latitude: 44.72, longitude: -123.47 })).toBe(true)
    expect(stand.contains({ latitude: 44.65, longitude: -123.55 })).toBe(false) // between them, in the box
    expect(stand.bbox).toEqual([W, S, -123.45, 44.75])
    const single = checkedStand(polygon(SQUARE)).areaHa + checkedStand(polygon(second)).areaHa
    expect(stand.areaHa).toBeCloseTo(single, 6)
  })

  it('centres a MultiPolygon on its parts weighted by their areas', () => {
    // Two equal squares: the midpoint. A square four times the size of another: 4/5 of the way to it.
    const a = rectangle(-123, 44, -122.98, 44.02)
    const b = rectangle(-122.5, 44, -122.48, 44.02)
    const equal = checkedStand(multiPolygon([a], [b])).centroid
    expect(equal.longitude).toBeCloseTo(-122.74, 6)
    expect(equal.latitude).toBeCloseTo(44.01, 6)
    const big = rectangle(-122.52, 44, -122.48, 44.04)
    const weighted = checkedStand(multiPolygon([a], [big])).centroid
    expect(weighted.longitude).toBeCloseTo((-122.99 + 4 * -122.5) / 5, 6)
    expect(weighted.latitude).toBeCloseTo((44.01 + 4 * 44.02) / 5, 6)
  })

  it('takes a Feature holding a Polygon or a MultiPolygon, as the geometry itself', () => {
    const fromFeature = checkedStand(feature(polygon(SQUARE, HOLE)))
    const direct = checkedStand(polygon(SQUARE, HOLE))
    expect(fromFeature.geometry).toEqual(direct.geometry)
    expect(fromFeature.areaHa).toBe(direct.areaHa)
    expect(fromFeature.contains({ latitude: 44.57, longitude: -123.63 })).toBe(false)
    const multi = checkedStand(feature(multiPolygon([SQUARE], [rectangle(-123.5, 44.7, -123.45, 44.75)])))
    expect(multi.geometry.type).toBe('MultiPolygon')
    expect(multi.contains({ latitude: 44.72, longitude: -123.47 })).toBe(true)
  })

  it('takes a triangle: a site in its box but outside it is not contained', () => {
    const triangle = [
      [W, S],
      [E, S],
      [W, N],
      [W, S],
    ]
    const stand = checkedStand(polygon(triangle))
    expect(stand.contains({ latitude: 44.555, longitude: -123.645 })).toBe(true)
    expect(stand.contains({ latitude: 44.595, longitude: -123.605 })).toBe(false)
    expect(stand.centroid.longitude).toBeCloseTo((2 * W + E) / 3, 6)
    expect(stand.centroid.latitude).toBeCloseTo((2 * S + N) / 3, 6)
  })
})

describe('checkedStand: limits', () => {
  it(`takes ${STAND_MAX_VERTICES} positions and refuses one more, naming the stand`, () => {
    // 100 small rings of 100 positions each (99 distinct + the closing one).
    const rings = Array.from({ length: 100 }, (_, i) => [
      circle(-123.9 + (i % 10) * 0.02, 44.1 + Math.floor(i / 10) * 0.02, 0.005, 99),
    ])
    expect(rings.flat(2)).toHaveLength(STAND_MAX_VERTICES)
    expect(checkedStand(multiPolygon(...rings)).areaHa).toBeGreaterThan(0)

    const one = rings.map((polygonRings) => polygonRings.map((ring) => [...ring]))
    const first = (one[0] as Position[][])[0] as Position[]
    first.splice(1, 0, [-123.9 + 0.005, 44.1 + 0.0001])
    const { field, reason } = refusal(multiPolygon(...one))
    expect(field).toBe('stand')
    expect(reason).toBe('has 10001 positions; a stand may have at most 10000')
  })

  it('refuses a huge ring before looking at its crossings', () => {
    const started = performance.now()
    const { field, reason } = refusal(polygon(circle(-122, 45, 0.01, 40_000)))
    expect(field).toBe('stand')
    expect(reason).toMatch(/^has 40001 positions/)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it(`refuses more than ${STAND_MAX_HECTARES} ha: a 0.3° square near 45° N covers about 78,000`, () => {
    const big = rectangle(-122.3, 44.85, -122, 45.15)
    const expected = ellipsoidalRectangleHa(-122.3, 44.85, -122, 45.15)
    expect(expected).toBeGreaterThan(77_000)
    expect(expected).toBeLessThan(80_000)
    const { field, reason } = refusal(polygon(big))
    expect(field).toBe('stand')
    const covered = Number(/^covers (\d+) ha; a stand may cover at most 20000 ha$/.exec(reason)?.[1])
    expect(Math.abs(covered / expected - 1)).toBeLessThan(0.005)
  })

  it('draws the area line at 20,000 ha (within 1 % either side)', () => {
    // Rectangles 0.1° tall at 45° N, their width chosen for 19,800 and 20,200 ha.
    const widthFor = (ha: number) => (0.1 * ha) / ellipsoidalRectangleHa(-122.1, 45, -122, 45.1)
    const under = rectangle(-122, 45, -122 + widthFor(19_800), 45.1)
    const over = rectangle(-122, 45, -122 + widthFor(20_200), 45.1)
    expect(checkedStand(polygon(under)).areaHa).toBeLessThan(STAND_MAX_HECTARES)
    expect(refusal(polygon(over)).reason).toMatch(/^covers 20\d{3} ha/)
  })
})

describe('checkedStand: rings refused, with the path of the offence', () => {
  const BOW_TIE = [
    [-123, 44],
    [-122.9, 44.1],
    [-122.9, 44],
    [-123, 44.1],
    [-123, 44],
  ]
  const OPEN = [
    [W, S],
    [E, S],
    [E, N],
    [W, N],
  ]
  const SHORT = [
    [W, S],
    [E, S],
    [W, S],
  ]
  const CROSSING_HOLE = rectangle(-123.63, 44.56, -123.58, 44.58).reverse() // reaches past the east edge
  const OUTSIDE_HOLE = rectangle(-123.55, 44.56, -123.53, 44.58).reverse() // wholly east of the stand
  // Two holes inside the exterior that cross each other.
  const HOLE_A = rectangle(-123.64, 44.56, -123.62, 44.58).reverse()
  const HOLE_B = rectangle(-123.63, 44.57, -123.61, 44.59).reverse()
  // A U-shaped exterior (a notch from the north edge down to 44.57 between −123.63 and −123.62), and a
  // hole whose corners all lie in its arms but whose edges run across the notch.
  const U_SHAPE = [
    [W, S],
    [E, S],
    [E, N],
    [-123.62, N],
    [-123.62, 44.57],
    [-123.63, 44.57],
    [-123.63, N],
    [W, N],
    [W, S],
  ]
  const ACROSS_THE_NOTCH = rectangle(-123.645, 44.58, -123.605, 44.59).reverse()

  it('a ring that is not closed', () => {
    const { field, reason } = refusal(polygon(OPEN))
    expect(field).toBe('stand.coordinates[0]')
    expect(reason).toBe('is not closed: its last position must repeat its first')
  })

  it('a ring of fewer than four positions', () => {
    const { field, reason } = refusal(polygon(SHORT))
    expect(field).toBe('stand.coordinates[0]')
    expect(reason).toBe('must hold at least four positions (a closed ring)')
    expect(refusal(polygon([[W, S]])).field).toBe('stand.coordinates[0]')
  })

  it('a self-intersecting bow-tie, with where it crosses', () => {
    const { field, reason } = refusal(polygon(BOW_TIE))
    expect(field).toBe('stand.coordinates[0]')
    expect(reason).toContain('intersects itself')
    expect(reason).toBe('intersects itself at [-122.95, 44.05]')
  })

  it('a ring that folds back on itself and encloses no area', () => {
    const flat = [
      [W, S],
      [E, S],
      [W, S],
      [E, S],
      [W, S],
    ]
    const { field, reason } = refusal(polygon(flat))
    expect(field).toBe('stand.coordinates[0]')
    expect(reason).toMatch(/encloses no area|intersects itself/)
  })

  it('a hole with a bad ring, by its index', () => {
    expect(refusal(polygon(SQUARE, OPEN)).field).toBe('stand.coordinates[1]')
    expect(refusal(polygon(SQUARE, SQUARE, BOW_TIE)).field).toBe('stand.coordinates[2]')
  })

  it('a hole reaching outside the exterior, or lying wholly outside it', () => {
    for (const hole of [CROSSING_HOLE, OUTSIDE_HOLE]) {
      const { field, reason } = refusal(polygon(SQUARE, hole))
      expect(field).toBe('stand.coordinates[1]')
      expect(reason).toBe('is a hole that does not lie inside its exterior ring (the first ring)')
    }
    expect(refusal(polygon(SQUARE, HOLE, OUTSIDE_HOLE)).field).toBe('stand.coordinates[2]')
  })

  it('rings that cross: two holes, or a hole across a notch of the exterior', () => {
    const holes = refusal(polygon(SQUARE, HOLE_A, HOLE_B))
    expect(holes.field).toBe('stand.coordinates')
    expect(holes.reason).toMatch(/^has rings that cross at \[-123\.6[23], 44\.5[78]\]$/)
    expect(checkedStand(polygon(U_SHAPE)).areaHa).toBeGreaterThan(0)
    const notch = refusal(polygon(U_SHAPE, ACROSS_THE_NOTCH))
    expect(notch.field).toBe('stand.coordinates')
    expect(notch.reason).toMatch(/^has rings that cross at \[-123\.6[23], 44\.5[89]\]$/)
  })

  it('MultiPolygon paths name the polygon, then the ring', () => {
    const good = [SQUARE]
    expect(refusal(multiPolygon(good, [OPEN])).field).toBe('stand.coordinates[1][0]')
    expect(refusal(multiPolygon([OPEN], good)).field).toBe('stand.coordinates[0][0]')
    expect(refusal(multiPolygon(good, good, [SQUARE, SHORT])).field).toBe('stand.coordinates[2][1]')
    const bowTie = refusal(multiPolygon(good, [BOW_TIE]))
    expect(bowTie.field).toBe('stand.coordinates[1][0]')
    expect(bowTie.reason).toContain('intersects itself')
    const crossing = refusal(multiPolygon(good, [SQUARE, HOLE_A, HOLE_B]))
    expect(crossing.field).toBe('stand.coordinates[1]')
    expect(crossing.reason).toContain('rings that cross')
    const outside = refusal(multiPolygon(good, [SQUARE, CROSSING_HOLE]))
    expect(outside.field).toBe('stand.coordinates[1][1]')
    expect(outside.reason).toContain('does not lie inside its exterior')
  })

  it('Feature paths go through its geometry', () => {
    expect(refusal(feature(polygon(OPEN))).field).toBe('stand.geometry.coordinates[0]')
    expect(refusal(feature(polygon(SQUARE, BOW_TIE))).field).toBe('stand.geometry.coordinates[1]')
    expect(refusal(feature(polygon(SQUARE, HOLE_A, HOLE_B))).field).toBe('stand.geometry.coordinates')
    expect(refusal(feature(polygon(SQUARE, CROSSING_HOLE))).field).toBe('stand.geometry.coordinates[1]')
    expect(refusal(feature(multiPolygon([SQUARE], [SQUARE, HOLE_A, HOLE_B]))).field).toBe(
      'stand.geometry.coordinates[1]',
    )
    expect(refusal(feature(multiPolygon([SQUARE], [SHORT]))).field).toBe('stand.geometry.coordinates[1][0]')
  })

  it('paths start from the field name given', () => {
    expect(refusal(polygon(OPEN), 'stands[3]').field).toBe('stands[3].coordinates[0]')
    expect(refusal(feature(polygon(OPEN)), 'plan.stand').field).toBe('plan.stand.geometry.coordinates[0]')
    expect(refusal(polygon(circle(-122, 45, 0.01, 10_001)), 'plan.stand').field).toBe('plan.stand')
  })

  it('reports the first offence in order: polygons, then rings', () => {
    expect(refusal(multiPolygon([SQUARE, OPEN], [BOW_TIE])).field).toBe('stand.coordinates[0][1]')
  })
})
