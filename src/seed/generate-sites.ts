import { DEFAULT_SEARCH_RADIUS_KM } from '../config/config.ts'
import { stateAt } from '../geo/coverage.ts'
import type { Site } from '../types.ts'
import { forestRegionAt, forestRegionsBBox } from './forest-region-lookup.ts'
import { createZoneClearanceTest, ZONE_SAFETY_MARGIN_KM } from './no-data-zones.ts'
import { createRandom, SITE_SEED } from './random.ts'
import { siteAttributes } from './site-attributes.ts'
import { jitteredGrid } from './site-grid.ts'

/** Grid spacing tuned so that about 18,000 sites survive the land and no-data-zone filters. */
export const SITE_SPACING_KM = 3.5
const COORDINATE_DECIMALS = 5

function roundCoordinate(value: number): number {
  const factor = 10 ** COORDINATE_DECIMALS
  return Math.round(value * factor) / factor
}

/**
 * The synthetic forest-site data set: deterministic (fixed seed), ids 1..N south to north, every site on
 * Oregon/Washington land inside a forest region and more than searchRadiusKm + 0.5 km from every no-data zone.
 */
export function generateSites(options: SiteOptions = {}): Site[] {
  return [...forestSites(options)]
}

export interface SiteOptions {
  searchRadiusKm?: number
  /** Grid spacing; the served data set uses SITE_SPACING_KM. Denser grids are for scaling benchmarks. */
  spacingKm?: number
}

/** The same sites one at a time, for data sets too large to hold (the scaling benchmark's millions). */
export function* forestSites(options: SiteOptions = {}): Generator<Site> {
  const searchRadiusKm = options.searchRadiusKm ?? DEFAULT_SEARCH_RADIUS_KM
  const isClearOfZones = createZoneClearanceTest(searchRadiusKm + ZONE_SAFETY_MARGIN_KM)
  let id = 0
  const grid = jitteredGrid(forestRegionsBBox, options.spacingKm ?? SITE_SPACING_KM, createRandom(SITE_SEED))
  for (const point of grid) {
    const latitude = roundCoordinate(point.latitude)
    const longitude = roundCoordinate(point.longitude)
    const region = forestRegionAt(latitude, longitude)
    if (!region) continue
    const state = stateAt(latitude, longitude)
    if (!state || !isClearOfZones(latitude, longitude)) continue
    id += 1
    yield {
      id,
      latitude,
      longitude,
      regionId: region.id,
      state,
      ...siteAttributes(latitude, longitude, region),
    }
  }
}
