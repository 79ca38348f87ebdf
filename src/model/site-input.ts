import { NUMERIC_SITE_ATTRIBUTES, type SiteAttributes, type Species } from '../types.ts'
import type { InputRanges, ReferenceSiteSpec } from './artifact.ts'

// Every numeric site attribute must have an input range in the artifact.
const NUMERIC_ATTRIBUTES = NUMERIC_SITE_ATTRIBUTES satisfies readonly (keyof InputRanges)[]

/**
 * Clamps every numeric attribute into the artifact's input ranges; NaN is rejected, ±Infinity clamps.
 * A site already in range is returned as it is (no copy per prediction).
 */
export function clampSite(site: SiteAttributes, ranges: InputRanges): SiteAttributes {
  let clamped: SiteAttributes | undefined
  for (const attribute of NUMERIC_ATTRIBUTES) {
    const value = site[attribute]
    if (typeof value !== 'number' || Number.isNaN(value)) {
      throw new RangeError(`site attribute ${attribute} must be a number, got ${String(value)}`)
    }
    const [min, max] = ranges[attribute]
    const bounded = Math.min(max, Math.max(min, value))
    if (!Object.is(bounded, value)) {
      clamped ??= { ...site }
      clamped[attribute] = bounded
    }
  }
  return clamped ?? site
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
