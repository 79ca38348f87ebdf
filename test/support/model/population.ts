import { generateSites } from '../../../src/seed/generate-sites.ts'
import type { SiteAttributes, Species } from '../../../src/types.ts'

/** The real synthetic data set (~18,000 sites), as served by the API. */
export const TEST_POPULATION: readonly SiteAttributes[] = generateSites()

/** Native zone only (the spec's "native species"). */
export function isNative(site: SiteAttributes, species: Species): boolean {
  return species.rangeZones.includes(site.zone)
}

/** Native zone and inside the species' elevation and precipitation ranges. */
export function isInNiche(site: SiteAttributes, species: Species): boolean {
  return (
    isNative(site, species) &&
    site.elevationM >= species.elevMinM &&
    site.elevationM <= species.elevMaxM &&
    site.annualPrecipMm >= species.precipMinMm &&
    site.annualPrecipMm <= species.precipMaxMm
  )
}
