import { describe, expect, it } from 'vitest'
import { EARTH_RADIUS_KM, greatCircleKm } from './great-circle.ts'

describe('greatCircleKm', () => {
  it('uses the earthdistance sphere radius', () => {
    expect(EARTH_RADIUS_KM).toBe(6378.168)
  })

  it('is zero for the same point and symmetric', () => {
    expect(greatCircleKm(45.5, -122.6, 45.5, -122.6)).toBe(0)
    expect(greatCircleKm(47.6, -122.3, 45.5, -122.7)).toBeCloseTo(
      greatCircleKm(45.5, -122.7, 47.6, -122.3),
      9,
    )
  })

  it('gives one degree of latitude as radius × π / 180', () => {
    expect(greatCircleKm(45, -120, 46, -120)).toBeCloseTo((EARTH_RADIUS_KM * Math.PI) / 180, 6)
  })

  it('measures Seattle to Portland at about 234 km', () => {
    expect(greatCircleKm(47.6062, -122.3321, 45.5152, -122.6784)).toBeGreaterThan(232)
    expect(greatCircleKm(47.6062, -122.3321, 45.5152, -122.6784)).toBeLessThan(236)
  })

  it('handles antipodes', () => {
    expect(greatCircleKm(0, 0, 0, 180)).toBeCloseTo(Math.PI * EARTH_RADIUS_KM, 6)
  })
})
