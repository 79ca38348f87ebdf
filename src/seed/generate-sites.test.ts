import { createHash } from 'node:crypto'
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon'
import { describe, expect, it } from 'vitest'
import { DEFAULT_SEARCH_RADIUS_KM } from '../config/config.ts'
import { isOnCoverageLand, stateAt } from '../geo/coverage.ts'
import { greatCircleKm } from '../geo/great-circle.ts'
import { approxKmToRingEdge } from '../geo/ring.ts'
import { FOREST_ZONES, type Site } from '../types.ts'
import { forestRegionsBBox, isInForestRegion } from './forest-region-lookup.ts'
import { generateSites } from './generate-sites.ts'
import {
  createZoneClearanceTest,
  kmOutsideZone,
  NO_DATA_ZONES,
  ZONE_SAFETY_MARGIN_KM,
} from './no-data-zones.ts'
import { createRandom } from './random.ts'
import { forestRegions } from './reference-data.ts'

/** SHA-256 of JSON.stringify(generateSites()); update deliberately when the generator changes. */
const SITES_FINGERPRINT = 'b93327937e721057f8f7d3628aa578da9a6ccfd21fd8a15e8736f3a33c948667'

const RADIUS_KM = DEFAULT_SEARCH_RADIUS_KM
const sites = generateSites()

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

function medianOf(zone: Site['zone'], pick: (site: Site) => number): number {
  return median(sites.filter((site) => site.zone === zone).map(pick))
}

function hasSiteWithin(latitude: number, longitude: number, radiusKm: number): boolean {
  return sites.some((site) => greatCircleKm(latitude, longitude, site.latitude, site.longitude) <= radiusKm)
}

const ATTRIBUTE_RANGES: Record<string, [number, number]> = {
  elevationM: [0, 2900],
  slopeDeg: [0, 50],
  aspectDeg: [0, 360],
  heatLoadIndex: [0, 1],
  soilDepthCm: [15, 200],
  rockFractionPct: [0, 80],
  vegetationCoverPct: [5, 100],
  annualPrecipMm: [250, 5000],
  summerWaterDeficitMm: [0, 600],
  growingSeasonFrostDays: [0, 45],
  browsePressureIndex: [0, 1],
}

const INTEGER_ATTRIBUTES = [
  'elevationM',
  'aspectDeg',
  'soilDepthCm',
  'rockFractionPct',
  'vegetationCoverPct',
  'annualPrecipMm',
  'summerWaterDeficitMm',
  'growingSeasonFrostDays',
] as const

describe('generateSites', () => {
  it('is deterministic: equal on every call and pinned by a fingerprint', () => {
    expect(generateSites()).toEqual(sites)
    const fingerprint = createHash('sha256').update(JSON.stringify(sites)).digest('hex')
    expect(fingerprint).toBe(SITES_FINGERPRINT)
  })

  it('produces 17,000–19,000 sites with ids 1..N', () => {
    expect(sites.length).toBeGreaterThanOrEqual(17_000)
    expect(sites.length).toBeLessThanOrEqual(19_000)
    expect(sites.every((site, index) => site.id === index + 1)).toBe(true)
  })

  it('has unique coordinates rounded to 5 decimals', () => {
    const keys = new Set(sites.map((site) => `${site.latitude},${site.longitude}`))
    expect(keys.size).toBe(sites.length)
    const isRounded = (value: number) => Math.round(value * 1e5) / 1e5 === value
    expect(sites.filter((site) => !isRounded(site.latitude) || !isRounded(site.longitude))).toEqual([])
  })

  it('keeps every attribute finite and in range, integers where the unit is whole', () => {
    const problems: string[] = []
    for (const site of sites) {
      for (const [name, [low, high]] of Object.entries(ATTRIBUTE_RANGES)) {
        const value = site[name as keyof Site] as number
        if (!(Number.isFinite(value) && value >= low && value <= high))
          problems.push(`site ${site.id} ${name}=${value}`)
      }
      if (site.aspectDeg >= 360) problems.push(`site ${site.id} aspectDeg=${site.aspectDeg}`)
      for (const name of INTEGER_ATTRIBUTES) {
        if (!Number.isInteger(site[name])) problems.push(`site ${site.id} ${name}=${site[name]} is not whole`)
      }
      if (!FOREST_ZONES.includes(site.zone)) problems.push(`site ${site.id} zone=${site.zone}`)
    }
    expect(problems).toEqual([])
  })

  it('keeps every site inside its forest region ranges, on land and in a forest region', () => {
    const regionsById = new Map(forestRegions.map((region) => [region.id, region]))
    const problems: string[] = []
    for (const site of sites) {
      const region = regionsById.get(site.regionId)
      if (!region) {
        problems.push(`site ${site.id} has unknown region ${site.regionId}`)
        continue
      }
      if (site.elevationM < region.elev_min_m || site.elevationM > region.elev_max_m) {
        problems.push(`site ${site.id} elevation ${site.elevationM} outside ${region.id}`)
      }
      if (site.annualPrecipMm < region.precip_min_mm || site.annualPrecipMm > region.precip_max_mm) {
        problems.push(`site ${site.id} precipitation ${site.annualPrecipMm} outside ${region.id}`)
      }
      if (!isOnCoverageLand(site.latitude, site.longitude)) problems.push(`site ${site.id} is not on land`)
      if (!isInForestRegion(site.latitude, site.longitude))
        problems.push(`site ${site.id} is in no forest region`)
    }
    expect(problems).toEqual([])
    expect(new Set(sites.map((site) => site.regionId)).size).toBe(forestRegions.length)
  })

  it('gives every site the state whose land it stands on', () => {
    const wrong = sites.filter((site) => site.state !== stateAt(site.latitude, site.longitude))
    expect(wrong.map((site) => site.id)).toEqual([])
    // Far from the border the state is plain; regions wholly in one state have only that state.
    expect(sites.filter((s) => s.latitude > 46.3 && s.state !== 'WA')).toEqual([])
    expect(sites.filter((s) => s.latitude < 45.5 && s.state !== 'OR')).toEqual([])
    const statesOf = (regionId: string) =>
      new Set(sites.filter((s) => s.regionId === regionId).map((s) => s.state))
    expect(statesOf('klamath_siskiyou')).toEqual(new Set(['OR']))
    expect(statesOf('olympic_mountains')).toEqual(new Set(['WA']))
    expect(statesOf('okanogan_selkirk')).toEqual(new Set(['WA']))
    expect(statesOf('east_cascades')).toEqual(new Set(['OR', 'WA']))
  })

  it('follows the geography: wet coast, dry eastside, cold high ground', () => {
    expect(medianOf('coast', (site) => site.annualPrecipMm)).toBeGreaterThan(
      medianOf('eastside_cascades', (site) => site.annualPrecipMm),
    )
    expect(medianOf('eastside_cascades', (site) => site.summerWaterDeficitMm)).toBeGreaterThan(
      medianOf('westside_cascades', (site) => site.summerWaterDeficitMm),
    )
    expect(medianOf('coast', (site) => site.summerWaterDeficitMm)).toBeLessThan(100)
    const frostBelow500 = median(
      sites.filter((site) => site.elevationM < 500).map((site) => site.growingSeasonFrostDays),
    )
    const frostAbove1500 = median(
      sites.filter((site) => site.elevationM > 1500).map((site) => site.growingSeasonFrostDays),
    )
    expect(frostAbove1500).toBeGreaterThan(frostBelow500 + 5)
    const subalpine = sites.filter((site) => site.zone === 'subalpine')
    expect(subalpine.length).toBeGreaterThan(0)
    for (const site of subalpine) expect(site.elevationM).toBeGreaterThanOrEqual(1200)
    for (const zone of FOREST_ZONES)
      expect(
        sites.some((site) => site.zone === zone),
        zone,
      ).toBe(true)
  })

  it('keeps every site farther than radius + 0.5 km from every no-data zone', () => {
    const limitKm = RADIUS_KM + ZONE_SAFETY_MARGIN_KM
    const violations: string[] = []
    for (const zone of NO_DATA_ZONES) {
      for (const site of sites) {
        // The planar distance is within ~1 km of the geodesic one; a 5 km band leaves the decision to turf.
        if (zone.kind !== 'urban') {
          const inside = booleanPointInPolygon([site.longitude, site.latitude], zone.polygon)
          const approxKm = approxKmToRingEdge(
            zone.polygon.coordinates[0] ?? [],
            site.latitude,
            site.longitude,
          )
          if (!inside && approxKm > limitKm + 5) continue
        }
        const outsideKm = kmOutsideZone(zone, site.latitude, site.longitude)
        if (!(outsideKm > limitKm))
          violations.push(`site ${site.id} is ${outsideKm.toFixed(2)} km from ${zone.name}`)
      }
    }
    expect(violations).toEqual([])
  })

  it.each([
    ['downtown Seattle', 47.6062, -122.3321],
    ['Portland', 45.5152, -122.6784],
    ['Spokane', 47.6588, -117.426],
    ['the Columbia Basin', 47.0, -119.3],
    ['the Willamette Valley floor', 44.9, -123.05],
    ['open Puget Sound', 47.62, -122.43],
    ['Willapa Bay', 46.55, -123.97],
  ])('has no site within the search radius of %s', (_name, latitude, longitude) => {
    expect(hasSiteWithin(latitude, longitude, RADIUS_KM)).toBe(false)
  })

  it('has a site within the search radius of forest land well away from every zone', () => {
    const random = createRandom(7)
    const isFarFromZones = createZoneClearanceTest(2 * RADIUS_KM + 5)
    const [minLon, minLat, maxLon, maxLat] = forestRegionsBBox
    const misses: string[] = []
    let sampled = 0
    while (sampled < 1000) {
      const latitude = minLat + random() * (maxLat - minLat)
      const longitude = minLon + random() * (maxLon - minLon)
      if (!isInForestRegion(latitude, longitude) || !isOnCoverageLand(latitude, longitude)) continue
      if (!isFarFromZones(latitude, longitude)) continue
      sampled++
      if (!hasSiteWithin(latitude, longitude, RADIUS_KM)) misses.push(`${latitude},${longitude}`)
    }
    expect(misses).toEqual([])
  })

  it('honours a custom search radius', () => {
    const wider = generateSites({ searchRadiusKm: 15 })
    expect(wider.length).toBeLessThan(sites.length)
    const tooClose = wider
      .filter((_, index) => index % 25 === 0)
      .flatMap((site) =>
        NO_DATA_ZONES.filter((zone) => !(kmOutsideZone(zone, site.latitude, site.longitude) > 15.5)),
      )
    expect(tooClose).toEqual([])
  })
})
