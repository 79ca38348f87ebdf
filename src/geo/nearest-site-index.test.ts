import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { greatCircleKm } from './great-circle.ts'
import { chordDistanceKm, NearestSiteIndexBuilder } from './nearest-site-index.ts'

const latitude = fc.double({ min: 41.9, max: 49.1, noNaN: true })
const longitude = fc.double({ min: -124.8, max: -116.4, noNaN: true })
const point = fc.record({ latitude, longitude })

function indexOf(sites: readonly { latitude: number; longitude: number }[]) {
  const builder = new NearestSiteIndexBuilder(sites.length)
  for (const [i, site] of sites.entries()) builder.add(1000 + i, site.latitude, site.longitude)
  return builder.finish()
}

describe('NearestSiteIndex', () => {
  it('finds the nearest of sites packed close together, and from points far outside them, across the antimeridian too', () => {
    const cluster = fc.record({
      latitude: fc.double({ min: 45, max: 45.01, noNaN: true }),
      longitude: fc.double({ min: -122.01, max: -122, noNaN: true }),
    })
    const anywhere = fc.record({
      latitude: fc.double({ min: -89, max: 89, noNaN: true }),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }),
    })
    fc.assert(
      fc.property(
        fc.array(cluster, { minLength: 1, maxLength: 200 }),
        fc.array(fc.oneof(cluster, anywhere, point)),
        (sites, queries) => {
          const index = indexOf(sites)
          for (const query of queries) {
            const found = index.nearest(query.latitude, query.longitude)
            const least = Math.min(
              ...sites.map((site) =>
                chordDistanceKm(query.latitude, query.longitude, site.latitude, site.longitude),
              ),
            )
            expect(found?.distanceKm).toBeLessThanOrEqual(least * (1 + 1e-9) + 1e-12)
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('within a radius: the nearest site when one lies inside it, else none', () => {
    fc.assert(
      fc.property(
        fc.array(point, { minLength: 1, maxLength: 300 }),
        fc.array(point, { maxLength: 20 }),
        fc.double({ min: 0.01, max: 200, noNaN: true }),
        (sites, queries, radiusKm) => {
          const index = indexOf(sites)
          for (const query of queries) {
            const least = Math.min(
              ...sites.map((site) =>
                chordDistanceKm(query.latitude, query.longitude, site.latitude, site.longitude),
              ),
            )
            const found = index.nearest(query.latitude, query.longitude, radiusKm)
            if (least <= radiusKm) expect(found?.distanceKm).toBeCloseTo(least, 9)
            else if (least > radiusKm * (1 + 1e-6)) expect(found).toBeNull()
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('finds the site nearest by great circle, with the distance the database gives', () => {
    fc.assert(
      fc.property(
        fc.array(point, { minLength: 1, maxLength: 300 }),
        fc.array(point, { maxLength: 20 }),
        (sites, queries) => {
          const index = indexOf(sites)
          for (const query of queries) {
            const found = index.nearest(query.latitude, query.longitude)
            const distances = sites.map((site) =>
              chordDistanceKm(query.latitude, query.longitude, site.latitude, site.longitude),
            )
            const least = Math.min(...distances)
            expect(found).not.toBeNull()
            const site = sites[(found?.siteId as number) - 1000] as (typeof sites)[number]
            expect(found?.distanceKm).toBe(
              chordDistanceKm(query.latitude, query.longitude, site.latitude, site.longitude),
            )
            expect(found?.distanceKm).toBeLessThanOrEqual(least * (1 + 1e-12) + 1e-12)
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('gives the great-circle distance on the database sphere (haversine agrees)', () => {
    fc.assert(
      fc.property(point, point, (a, b) => {
        const chord = chordDistanceKm(a.latitude, a.longitude, b.latitude, b.longitude)
        expect(
          Math.abs(chord - greatCircleKm(a.latitude, a.longitude, b.latitude, b.longitude)),
        ).toBeLessThan(1e-6)
      }),
    )
    expect(chordDistanceKm(45, -122, 45, -122)).toBe(0)
  })

  it('answers null with no sites, and refuses more or fewer sites than it was made for', () => {
    expect(indexOf([]).nearest(45, -122)).toBeNull()
    expect(indexOf([]).size).toBe(0)
    const builder = new NearestSiteIndexBuilder(1)
    expect(() => builder.finish()).toThrow(/made for 1 sites and 0 were added/)
    builder.add(1, 45, -122)
    expect(() => builder.add(2, 45, -121)).toThrow(/made for 1 sites/)
  })
})
