import { sigmoid } from '../../stats/logistic.ts'
import type {
  Horizon,
  HorizonPrediction,
  PlantingMethod,
  Site,
  Species,
  SurvivalModel,
  TreatmentEffect,
  UncertaintyTerms,
} from '../../types.ts'
import type { CheckedShare } from './plan-request.ts'
import type { StockingRule } from './standards.ts'
import { type MixMember, type SurvivalDistribution, survivalDistribution } from './stocking-math.ts'

/** One horizon's distribution of a mix's survival over the sites, and each species' own answer. */
export interface HorizonDistribution {
  distribution: SurvivalDistribution
  /** Each species' own survival (mean over the sites), in mix order. */
  speciesSurvival: number[]
  countsInFull: boolean[]
}

/** One species' predictions at every site, in site order, for the horizons asked (ascending). */
export type SpeciesPredictions = (species: Species) => readonly (readonly HorizonPrediction[])[]

/** The model's predictions of a species at every site (the plain path: no reuse between calls). */
export function predictionsAt(
  sites: readonly Site[],
  method: PlantingMethod,
  model: SurvivalModel,
  horizons: readonly Horizon[],
  treatments?: readonly TreatmentEffect[],
): SpeciesPredictions {
  return (species) => sites.map((site) => model.predict(site, species, method, horizons, treatments))
}

/**
 * Each horizon's distribution of the mix's survival over `siteCount` sites. `predictions` answers a
 * species' predictions at each site (the options search hands in a cache shared by its candidates).
 */
export function mixDistributions<H extends Horizon>(
  siteCount: number,
  mix: readonly CheckedShare[],
  rule: StockingRule,
  model: SurvivalModel,
  horizons: readonly H[],
  predictions: SpeciesPredictions,
): Record<H, HorizonDistribution> {
  const logOdds = {} as Record<Horizon, Float64Array[]>
  // A calibrated version's terms differ by species (each offset's own variance): the mix takes its
  // widest member's, so a plan never states less uncertainty than one of its species carries.
  const terms = {} as Record<Horizon, UncertaintyTerms>
  // Treatments: their effect's error is one for the whole stand (as a planting year's), its size
  // differs by site and species; the plan takes its share- and site-weighted mean.
  const effectSd = {} as Record<Horizon, number>
  for (const horizon of horizons) {
    logOdds[horizon] = []
    terms[horizon] = model.uncertainty
    effectSd[horizon] = 0
  }
  for (const { species, share } of mix) {
    const bySite = {} as Record<Horizon, Float64Array>
    for (const horizon of horizons) bySite[horizon] = new Float64Array(siteCount)
    predictions(species).forEach((atSite, j) => {
      for (const prediction of atSite) {
        const h = prediction.horizonYears
        ;(bySite[h] as Float64Array)[j] = prediction.logOdds
        const treated = prediction.treatment
        if (treated) effectSd[h] += (share * treated.effectSd) / siteCount
        const own = treated ? treated.untreatedUncertainty : prediction.uncertainty
        if (j === 0 && own !== terms[h]) terms[h] = wider(terms[h], own)
      }
    })
    for (const horizon of horizons) logOdds[horizon].push(bySite[horizon])
  }
  for (const horizon of horizons) {
    if (effectSd[horizon] > 0)
      terms[horizon] = {
        ...terms[horizon],
        plantingYearSd: Math.hypot(terms[horizon].plantingYearSd, effectSd[horizon]),
      }
  }
  const result = {} as Record<H, HorizonDistribution>
  for (const horizon of horizons) {
    const members: MixMember[] = mix.map((item, k) => ({
      share: item.share,
      countsInFull: rule.hardwoodShareCap === null || item.species.group !== 'hardwood',
      logOddsBySite: logOdds[horizon][k] as Float64Array,
    }))
    result[horizon] = {
      distribution: survivalDistribution(members, terms[horizon]),
      speciesSurvival: members.map((member) => meanSurvival(member.logOddsBySite)),
      countsInFull: members.map((member) => member.countsInFull),
    }
  }
  return result
}

/** The terms of the larger planting-year spread (the only term a calibration's offsets widen). */
function wider(a: UncertaintyTerms, b: UncertaintyTerms): UncertaintyTerms {
  return b.plantingYearSd > a.plantingYearSd ? b : a
}

function meanSurvival(logOddsBySite: ArrayLike<number>): number {
  let sum = 0
  for (let j = 0; j < logOddsBySite.length; j++) sum += sigmoid(logOddsBySite[j] as number)
  return sum / logOddsBySite.length
}
