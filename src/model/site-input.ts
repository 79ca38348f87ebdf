import { NUMERIC_SITE_ATTRIBUTES, type SiteAttributes, type Species } from '../types.ts'
import type { InputRanges, ReferenceSiteSpec } from './artifact.ts'
import { SiteAttributeFields } from './site-attribute-fields.ts'

// Every numeric site attribute must have an input range in the artifact.
NUMERIC_SITE_ATTRIBUTES satisfies readonly (keyof InputRanges)[]

/**
 * A site as the factors read it: its attributes clamped into the artifact's input ranges, in an object
 * of one class. Sites reach the model in several shapes (sites read from the table, sites projected
 * into a future climate, a request's own); reading them all through one class keeps the factors'
 * property reads monomorphic, so a site of a new shape does not deoptimize the model.
 */
export class ModelSite extends SiteAttributeFields {}

type NumericAttribute = (typeof NUMERIC_SITE_ATTRIBUTES)[number]

/** One attribute clamped into its range; NaN and non-numbers are refused, ±Infinity clamps. */
function clamped(site: SiteAttributes, attribute: NumericAttribute, ranges: InputRanges): number {
  const value = site[attribute]
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new RangeError(`site attribute ${attribute} must be a number, got ${String(value)}`)
  }
  const [min, max] = ranges[attribute]
  return Math.min(max, Math.max(min, value))
}

/**
 * Writes `site` into `into`, every numeric attribute clamped into the artifact's input ranges, and
 * returns `into`. The site itself is left as it is.
 */
export function clampSiteInto(site: SiteAttributes, ranges: InputRanges, into: ModelSite): ModelSite {
  // Spelled out, one named read per attribute: a loop over the names would make each read a keyed one.
  into.zone = site.zone
  into.state = site.state
  into.elevationM = clamped(site, 'elevationM', ranges)
  into.slopeDeg = clamped(site, 'slopeDeg', ranges)
  into.aspectDeg = clamped(site, 'aspectDeg', ranges)
  into.heatLoadIndex = clamped(site, 'heatLoadIndex', ranges)
  into.soilDepthCm = clamped(site, 'soilDepthCm', ranges)
  into.rockFractionPct = clamped(site, 'rockFractionPct', ranges)
  into.vegetationCoverPct = clamped(site, 'vegetationCoverPct', ranges)
  into.annualPrecipMm = clamped(site, 'annualPrecipMm', ranges)
  into.summerWaterDeficitMm = clamped(site, 'summerWaterDeficitMm', ranges)
  into.growingSeasonFrostDays = clamped(site, 'growingSeasonFrostDays', ranges)
  into.browsePressureIndex = clamped(site, 'browsePressureIndex', ranges)
  return into
}

/** The artifact's reference site made concrete for one species (its niche centre for the range factors). */
export function referenceSiteFor(spec: ReferenceSiteSpec, species: Species): SiteAttributes {
  const nativeZone = species.rangeZones[0]
  if (nativeZone === undefined) throw new Error(`species ${species.code} has no range zones`)
  return {
    zone: nativeZone,
    state: species.rangeStates[0],
    elevationM: (species.elevMinM + species.elevMaxM) / 2,
    annualPrecipMm: (species.precipMinMm + species.precipMaxMm) / 2,
    slopeDeg: spec.slopeDeg,
    aspectDeg: spec.aspectDeg,
    heatLoadIndex: spec.heatLoadIndex,
    soilDepthCm: spec.soilDepthCm,
    rockFractionPct: spec.rockFractionPct,
    vegetationCoverPct: spec.vegetationCoverPct,
    summerWaterDeficitMm: spec.summerWaterDeficitMm,
    growingSeasonFrostDays: spec.growingSeasonFrostDays,
    browsePressureIndex: spec.browsePressureIndex,
  }
}
