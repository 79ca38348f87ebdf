import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../../test/support/seeded-random.ts'
import { NearestSiteIndexBuilder } from '../../geo/nearest-site-index.ts'
import type { Coordinates } from '../../types.ts'
import { columnCentre, gridOverBox, type PixelGrid, rowCentre } from './pixel-grid.ts'
import { NO_SITE, PixelSiteFinder } from './pixel-sites.ts'

const everywhere = () => true
const noPause = () => Promise.resolve()

/** Sites on a jittered grid about 3.5 km apart over a box, with holes wider than the search radius. */
function jitteredSites(box: [number, number, number, number], seed: number): Coordinates[] {
  const next = seededRandom(seed)
  const [west, south, east, north] = box
  const sites: Coordinates[] = []
  for (let latitude = south; latitude < north; latitude += 0.032) {
    for (let longitude = west; longitude < east; longitude += 0.045) {
      const point = {
        latitude: Number((latitude + (next() - 0.5) * 0.03).toFixed(5)),
        longitude: Number((longitude + (next() - 0.5) * 0.04).toFixed(5)),
      }
      // Two "cities": nothing within about 15 km of their centres.
      const inHole = [
        [45.5, -122.6],
        [44.05, -123.1],
      ].some(
        ([lat, lon]) =>
          Math.hypot(point.latitude - (lat as number), (point.longitude - (lon as number)) * 0.7) < 0.14,
      )
      if (!inHole) sites.push(point)
    }
  }
  return sites
}

/** What POST /v1/predict does per point: the index's nearest site, kept within the radius and in coverage. */
function expected(
  sites: readonly Coordinates[],
  grid: PixelGrid,
  radiusKm: number,
  covers: (latitude: number, longitude: number) => boolean,
): Int32Array {
  const builder = new NearestSiteIndexBuilder(sites.length)
  sites.forEach((site, i) => {
    builder.add(i, site.latitude, site.longitude)
  })
  const index = builder.finish()
  const out = new Int32Array(grid.width * grid.height).fill(NO_SITE)
  for (let row = 0; row < grid.height; row++) {
    for (let column = 0; column < grid.width; column++) {
      const latitude = rowCentre(grid, row)
      const longitude = columnCentre(grid, column)
      if (!covers(latitude, longitude)) continue
      const found = index.nearest(latitude, longitude)
      if (found && found.distanceKm <= radiusKm) out[row * grid.width + column] = found.siteId
    }
  }
  return out
}

/** The pixels whose site differs, as `row,column: got/wanted` (empty when all agree). */
function differences(got: Int32Array, wanted: Int32Array, grid: PixelGrid): string[] {
  const found: string[] = []
  for (let pixel = 0; pixel < wanted.length && found.length < 10; pixel++)
    if (got[pixel] !== wanted[pixel])
      found.push(`${Math.floor(pixel / grid.width)},${pixel % grid.width}: ${got[pixel]}/${wanted[pixel]}`)
  return found
}

describe('PixelSiteFinder', () => {
  const box: [number, number, number, number] = [-123.6, 44.0, -121.6, 45.8]
  const sites = jitteredSites(box, 7)

  it('finds for every pixel the site the nearest-site index finds for its centre, at any resolution', async () => {
    const finder = new PixelSiteFinder(sites)
    // Coverage with a ragged edge: east of a slanted line is out.
    const covers = (latitude: number, longitude: number) => longitude < -121.9 + (latitude - 44) * 0.2
    for (const resolution of [0.005, 0.01, 0.013, 0.05, 0.2]) {
      const grid = gridOverBox([box[0] - 0.2, box[1] - 0.2, box[2] + 0.2, box[3] + 0.2], resolution)
      const got = await finder.find(grid, 10, covers, noPause)
      const wanted = expected(sites, grid, 10, covers)
      expect(differences(got, wanted, grid), String(resolution)).toEqual([])
      // Nodata in the holes and around the sites, sites elsewhere.
      expect(wanted.some((site) => site === NO_SITE)).toBe(true)
      expect(wanted.some((site) => site !== NO_SITE)).toBe(true)
    }
  })

  it('agrees with the index for any small set of sites, radius and resolution', async () => {
    const point = fc.record({
      latitude: fc.double({ min: 45, max: 45.6, noNaN: true }),
      longitude: fc.double({ min: -122.5, max: -121.7, noNaN: true }),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(point, {
          minLength: 0,
          maxLength: 40,
          selector: (p) => `${p.latitude},${p.longitude}`,
        }),
        fc.double({ min: 0.005, max: 0.08, noNaN: true }),
        fc.double({ min: 0.5, max: 25, noNaN: true }),
        async (points, resolution, radiusKm) => {
          const grid = gridOverBox([-122.6, 44.9, -121.6, 45.7], resolution)
          const got = await new PixelSiteFinder(points).find(grid, radiusKm, everywhere, noPause)
          expect(differences(got, expected(points, grid, radiusKm, everywhere), grid)).toEqual([])
        },
      ),
      { numRuns: 60 },
    )
  })

  it('answers no site anywhere when there are no sites, and only near a lone one', async () => {
    const grid = gridOverBox([-123, 44, -122, 45], 0.01)
    const none = await new PixelSiteFinder([]).find(grid, 10, everywhere, noPause)
    expect(none.every((site) => site === NO_SITE)).toBe(true)
    const lone = await new PixelSiteFinder([{ latitude: 44.5, longitude: -122.5 }]).find(
      grid,
      10,
      everywhere,
      noPause,
    )
    const near = lone.filter((site) => site === 0).length
    // About π·10² km² of 1.11 km × 0.79 km pixels.
    expect(near).toBeGreaterThan(330)
    expect(near).toBeLessThan(380)
  })

  it('yields to the event loop while it works through a large grid', async () => {
    let pauses = 0
    const grid = gridOverBox([box[0], box[1], box[2], box[3]], 0.002)
    await new PixelSiteFinder(sites).find(grid, 10, everywhere, async () => {
      pauses += 1
    })
    expect(pauses).toBeGreaterThan(0)
  })
})
