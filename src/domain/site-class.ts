import type { SiteAttributes } from '../types.ts'

/** Oregon's cubic-foot site classes as the reforestation rule groups them (OAR 629-610-0020). */
export const SITE_CLASSES = ['I-III', 'IV-V', 'VI'] as const
export type SiteClass = (typeof SITE_CLASSES)[number]

/**
 * A modelled productivity in cubic feet per acre per year: synthetic, like the sites it is computed
 * from (docs/data-dictionary.md → site class). Wet, deep-soiled, low and frost-free sites grow most.
 */
export function modelledProductivity(site: SiteAttributes): number {
  return (
    80 +
    0.05 * Math.min(site.annualPrecipMm, 2500) -
    0.08 * site.summerWaterDeficitMm +
    0.5 * (site.soilDepthCm - 60) -
    0.1 * Math.max(0, site.elevationM - 1000) -
    0.8 * site.growingSeasonFrostDays
  )
}

/** The rule's class for a productivity: I–III from 120, IV–V from 50 (to 119), VI below. */
export function siteClassOf(site: SiteAttributes): SiteClass {
  const productivity = modelledProductivity(site)
  return productivity >= 120 ? 'I-III' : productivity >= 50 ? 'IV-V' : 'VI'
}
