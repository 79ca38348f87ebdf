import type { Species } from '../types.ts'
import type { FactorSpec } from './artifact.ts'
import { isInNativeRange } from './native-range.ts'
import type { ModelSite } from './site-input.ts'

/** How badly a (clamped) site stresses a species on one factor: 0 = not at all, capped at maxSeverity. */
export type Severity = (site: ModelSite, species: Species) => number

const positivePart = (x: number): number => Math.max(0, x)

export function compileSeverity(spec: FactorSpec): Severity {
  const raw = rawSeverity(spec)
  const cap = spec.maxSeverity
  return (site, species) => Math.min(cap, positivePart(raw(site, species)))
}

function rawSeverity(spec: FactorSpec): Severity {
  switch (spec.key) {
    case 'summer_water_deficit': {
      const { onsetMmByDroughtTolerance: onset, unitMm } = spec.params
      return (site, species) => (site.summerWaterDeficitMm - onset[species.droughtTolerance]) / unitMm
    }
    case 'precipitation_range': {
      const { belowRangePerLogRatio: below, aboveRangePerLogRatio: above } = spec.params
      // Log ratios: half the minimum rainfall is as bad wherever the range sits.
      return (site, species) =>
        below * positivePart(Math.log(species.precipMinMm / site.annualPrecipMm)) +
        above * positivePart(Math.log(site.annualPrecipMm / species.precipMaxMm))
    }
    case 'elevation_range': {
      const { belowRangePer100m: below, aboveRangePer100m: above } = spec.params
      return (site, species) =>
        (below * positivePart(species.elevMinM - site.elevationM) +
          above * positivePart(site.elevationM - species.elevMaxM)) /
        100
    }
    case 'frost_exposure': {
      const { unitDays } = spec.params
      return (site) => site.growingSeasonFrostDays / unitDays
    }
    case 'heat_load': {
      const { onsetIndex, dryFloor, fullDryDeficitMm } = spec.params
      // Hot aspects matter most where summers are dry (heat girdling needs a dry soil surface).
      return (site) => {
        const exposure = positivePart(site.heatLoadIndex - onsetIndex) / (1 - onsetIndex)
        const dryness = Math.min(1, site.summerWaterDeficitMm / fullDryDeficitMm)
        return exposure * (dryFloor + (1 - dryFloor) * dryness)
      }
    }
    case 'competing_vegetation': {
      const { controlledCoverPct } = spec.params
      return (site) => (site.vegetationCoverPct - controlledCoverPct) / (100 - controlledCoverPct)
    }
    case 'browse_predation':
      return (site) => site.browsePressureIndex
    case 'shallow_soil': {
      const { adequateDepthCm, shallowestDepthCm } = spec.params
      return (site) => (adequateDepthCm - site.soilDepthCm) / (adequateDepthCm - shallowestDepthCm)
    }
    case 'rock_fraction': {
      const { fullEffectPct } = spec.params
      return (site) => site.rockFractionPct / fullEffectPct
    }
    case 'slope': {
      const { onsetDeg, unitDeg } = spec.params
      return (site) => (site.slopeDeg - onsetDeg) / unitDeg
    }
    case 'native_range':
      return (site, species) => (isInNativeRange(species, site) ? 0 : 1)
  }
}
