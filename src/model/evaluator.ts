import { sigmoid } from '../stats/logistic.ts'
import {
  HORIZONS,
  type Horizon,
  type HorizonPrediction,
  PLANTING_METHODS,
  type PlantingMethod,
  type SiteAttributes,
  type Species,
  type SurvivalModel,
  type TreatmentEffect,
  type UncertaintyTerms,
} from '../types.ts'
import type { FactorSpec, ModelArtifact } from './artifact.ts'
import { HorizonResult, type RankedDeviations } from './horizon-result.ts'
import { compileSeverity, type Severity } from './severity.ts'
import { clampSiteInto, ModelSite, referenceSiteFor } from './site-input.ts'
import { compileTreatments, treatedPredictions } from './treatments.ts'
import { factorWeight } from './weight.ts'

interface CompiledFactor {
  key: string
  name: string
  description: string
  spec: FactorSpec
  severity: Severity
}

interface HorizonPlan {
  intercept: number
  scale: number
  baselineLogOdds: number
}

/** Everything about one species × method that does not depend on the site. */
interface PredictionPlan {
  species: Species
  weights: Float64Array
  referencePenalties: Float64Array
  horizons: Record<Horizon, HorizonPlan>
}

type SpeciesPlans = Record<PlantingMethod, PredictionPlan>

/**
 * Prepares an artifact for prediction. `catalogue` is the species list served (the plans of those
 * species are computed once here); any other species object is planned when it is asked for.
 */
export function createSurvivalModel(
  artifact: ModelArtifact,
  catalogue: readonly Species[] = [],
): SurvivalModel {
  const factors: CompiledFactor[] = artifact.factors.map((spec) => ({
    key: spec.key,
    name: spec.name,
    description: spec.description,
    spec,
    severity: compileSeverity(spec),
  }))

  const penaltiesAt = (
    site: ModelSite,
    species: Species,
    weights: Float64Array,
    penalties = new Float64Array(factors.length),
  ): Float64Array => {
    for (let i = 0; i < factors.length; i++) {
      penalties[i] = -(weights[i] as number) * (factors[i] as CompiledFactor).severity(site, species)
    }
    return penalties
  }

  const planFor = (species: Species, method: PlantingMethod): PredictionPlan => {
    const weights = Float64Array.from(factors, (factor) => factorWeight(factor.spec, species, method))
    const reference = clampSiteInto(
      referenceSiteFor(artifact.referenceSite, species),
      artifact.inputRanges,
      new ModelSite(),
    )
    const referencePenalties = penaltiesAt(reference, species, weights)
    const referenceTotal = sum(referencePenalties)
    const horizonPlan = (horizon: Horizon): HorizonPlan => {
      const { intercept, scale } = artifact.horizons[method][horizon]
      return { intercept, scale, baselineLogOdds: intercept + scale * referenceTotal }
    }
    return {
      species,
      weights,
      referencePenalties,
      horizons: { 1: horizonPlan(1), 3: horizonPlan(3), 5: horizonPlan(5) },
    }
  }

  const plansFor = (species: Species): SpeciesPlans => ({
    manual: planFor(species, 'manual'),
    drone_seeded: planFor(species, 'drone_seeded'),
  })

  // Each factor's place in key order, the tie-break of equal magnitudes.
  const keyRank = new Int32Array(factors.length)
  factors
    .map((factor, i) => ({ key: factor.key, i }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .forEach(({ i }, rank) => {
      keyRank[i] = rank
    })

  const precomputed = new Map(catalogue.map((species) => [species.code, plansFor(species)]))
  const uncertainty: UncertaintyTerms = Object.freeze({
    plantingYearSd: artifact.uncertainty.plantingYearSd,
    siteSd: artifact.uncertainty.siteSd,
    clumpingDispersion: artifact.uncertainty.clumpingDispersion,
  })

  /** Writes the factor indices into `ranking` by |deviation|, largest first, ties by key (insertion sort). */
  const rankByMagnitude = (deviations: Float64Array, ranking: Int32Array): void => {
    for (let i = 0; i < deviations.length; i++) {
      const magnitude = Math.abs(deviations[i] as number)
      let at = i
      while (at > 0) {
        const before = ranking[at - 1] as number
        const other = Math.abs(deviations[before] as number)
        if (
          other > magnitude ||
          (other === magnitude && (keyRank[before] as number) < (keyRank[i] as number))
        )
          break
        ranking[at] = before
        at--
      }
      ranking[at] = i
    }
  }

  // predict's working arrays: it runs to completion synchronously, so one set serves every call.
  const scratch = {
    site: new ModelSite(),
    penalties: new Float64Array(factors.length),
    deviations: new Float64Array(factors.length),
    ranking: new Int32Array(factors.length),
  }

  const lookupPlan = (species: Species, method: PlantingMethod): PredictionPlan => {
    if (!PLANTING_METHODS.includes(method)) throw new RangeError(`unknown planting method ${String(method)}`)
    const plans = precomputed.get(species.code)
    // A species object other than the catalogue's own is planned on the fly (never cached).
    return plans !== undefined && plans[method].species === species ? plans[method] : planFor(species, method)
  }

  /** A prediction with treatments (src/model/treatments.ts): its own path, so the untreated one keeps its pace. */
  const predictTreated = (
    site: SiteAttributes,
    species: Species,
    method: PlantingMethod,
    horizons: readonly Horizon[],
    treatments: readonly TreatmentEffect[],
  ): HorizonPrediction[] => {
    const plan = lookupPlan(species, method)
    const manual = method === 'manual' ? plan : lookupPlan(species, 'manual')
    const requested = distinctAscending(horizons)
    // Synchronous to the end, as predict is: the scratch site serves.
    const clamped = clampSiteInto(site, artifact.inputRanges, scratch.site)
    const severities = new Array<number>(factors.length)
    for (let i = 0; i < factors.length; i++)
      severities[i] = (factors[i] as CompiledFactor).severity(clamped, species)
    return treatedPredictions(
      {
        factors,
        severities,
        weights: plan.weights,
        manualWeights: manual.weights,
        referencePenalties: plan.referencePenalties,
        horizons: plan.horizons,
        manualHorizons: manual.horizons,
        uncertainty,
      },
      compileTreatments(treatments, factors),
      requested,
    )
  }

  const predict = (
    site: SiteAttributes,
    species: Species,
    method: PlantingMethod,
    horizons: readonly Horizon[] = HORIZONS,
    treatments?: readonly TreatmentEffect[],
  ): HorizonPrediction[] => {
    if (treatments !== undefined && treatments.length > 0)
      return predictTreated(site, species, method, horizons, treatments)
    const plan = lookupPlan(species, method)
    const requested = distinctAscending(horizons)
    const penalties = penaltiesAt(
      clampSiteInto(site, artifact.inputRanges, scratch.site),
      species,
      plan.weights,
      scratch.penalties,
    )
    const total = sum(penalties)
    const { deviations, ranking } = scratch
    for (let i = 0; i < factors.length; i++) {
      deviations[i] = (penalties[i] as number) - (plan.referencePenalties[i] as number)
    }
    // A horizon scales every deviation by the same factor, so one ranking serves all the horizons.
    rankByMagnitude(deviations, ranking)

    const ranked: RankedDeviations = {
      factors: new Array(factors.length),
      deviations: new Array(factors.length),
    }
    for (let r = 0; r < ranking.length; r++) {
      const i = ranking[r] as number
      ranked.factors[r] = factors[i] as CompiledFactor
      ranked.deviations[r] = deviations[i] as number
    }
    return requested.map((horizon) => {
      const { intercept, scale, baselineLogOdds } = plan.horizons[horizon]
      const logOdds = intercept + scale * total
      return new HorizonResult(
        horizon,
        sigmoid(logOdds),
        baselineLogOdds,
        logOdds,
        ranked,
        scale,
        uncertainty,
      )
    })
  }

  return {
    series: artifact.series,
    version: artifact.version,
    codename: artifact.codename,
    uncertainty,
    factors: Object.freeze(
      factors.map(({ key, name, description }) => Object.freeze({ key, name, description })),
    ),
    predict,
  }
}

function sum(values: Float64Array): number {
  let total = 0
  for (const value of values) total += value
  return total
}

function distinctAscending(horizons: readonly Horizon[]): readonly Horizon[] {
  // What nearly every request asks for: all of them (the list itself, shared and frozen).
  if (horizons === HORIZONS) return HORIZONS
  let inOrder = true
  for (let i = 0; i < horizons.length; i++) {
    const horizon = horizons[i] as Horizon
    if (!HORIZONS.includes(horizon)) throw new RangeError(`unknown horizon ${String(horizon)}`)
    if (i > 0 && horizon <= (horizons[i - 1] as Horizon)) inOrder = false
  }
  // A list already distinct and ascending (a survival map's one horizon, say) serves as it is.
  return inOrder ? horizons : HORIZONS.filter((horizon) => horizons.includes(horizon))
}
