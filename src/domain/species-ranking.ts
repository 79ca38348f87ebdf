import { isInNativeRange } from '../model/native-range.ts'
import type {
  FactorContribution,
  Horizon,
  PlantingMethod,
  SiteAttributes,
  Species,
  SurvivalModel,
  TreatmentEffect,
} from '../types.ts'
import type { RankedSpecies } from './prediction-types.ts'

function byCode(a: Species, b: Species): number {
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0
}

/**
 * Every species at one site, planted one way, at one horizon: by survival probability descending, ties
 * by species code, ranks from 1. Each carries its largest contribution (the model sorts contributions
 * by magnitude, ties by key) and whether the site is in its native range.
 */
export function rankSpecies(
  model: SurvivalModel,
  site: SiteAttributes,
  method: PlantingMethod,
  horizon: Horizon,
  species: readonly Species[],
  treatments?: readonly TreatmentEffect[],
): RankedSpecies[] {
  const evaluated = species.map((candidate) => {
    const [prediction] = model.predict(site, candidate, method, [horizon], treatments)
    const topFactor = prediction?.topContributions(1)[0] as FactorContribution | undefined
    if (!prediction || !topFactor) throw new Error(`the model gave no prediction for ${candidate.code}`)
    return {
      species: candidate,
      survivalProbability: prediction.survivalProbability,
      topFactor,
      calibration: prediction.calibration,
      untreated: prediction.treatment?.untreatedSurvivalProbability,
    }
  })
  evaluated.sort((a, b) => b.survivalProbability - a.survivalProbability || byCode(a.species, b.species))
  return evaluated.map((entry, index) => ({
    rank: index + 1,
    species: entry.species,
    survivalProbability: entry.survivalProbability,
    nativeRange: isInNativeRange(entry.species, site),
    topFactor: entry.topFactor,
    ...(entry.calibration ? { calibration: entry.calibration } : {}),
    ...(entry.untreated !== undefined ? { untreatedSurvivalProbability: entry.untreated } : {}),
  }))
}
