import {
  type FactorContribution,
  HORIZONS,
  type Horizon,
  type HorizonPrediction,
  PLANTING_METHODS,
  type PlantingMethod,
  type SiteAttributes,
  type Species,
  type SurvivalModel,
} from '../types.ts'
import type { FactorSpec, ModelArtifact } from './artifact.ts'
import { sigmoid } from './logistic.ts'
import { compileSeverity, type Severity } from './severity.ts'
import { clampSite, referenceSiteFor } from './site-input.ts'
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

  const penaltiesAt = (site: SiteAttributes, species: Species, weights: Float64Array): Float64Array => {
    const penalties = new Float64Array(factors.length)
    factors.forEach((factor, i) => {
      penalties[i] = -(weights[i] ?? 0) * factor.severity(site, species)
    })
    return penalties
  }

  const planFor = (species: Species, method: PlantingMethod): PredictionPlan => {
    const weights = Float64Array.from(factors, (factor) => factorWeight(factor.spec, species, method))
    const reference = clampSite(referenceSiteFor(artifact.referenceSite, species), artifact.inputRanges)
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

  const precomputed = new Map(catalogue.map((species) => [species.code, plansFor(species)]))

  const lookupPlan = (species: Species, method: PlantingMethod): PredictionPlan => {
    if (!PLANTING_METHODS.includes(method)) throw new RangeError(`unknown planting method ${String(method)}`)
    const plans = precomputed.get(species.code)
    // A species object other than the catalogue's own is planned on the fly (never cached).
    return plans !== undefined && plans[method].species === species ? plans[method] : planFor(species, method)
  }

  const predict = (
    site: SiteAttributes,
    species: Species,
    method: PlantingMethod,
    horizons: readonly Horizon[] = HORIZONS,
  ): HorizonPrediction[] => {
    const plan = lookupPlan(species, method)
    const requested = distinctAscending(horizons)
    const penalties = penaltiesAt(clampSite(site, artifact.inputRanges), species, plan.weights)
    const total = sum(penalties)

    return requested.map((horizon) => {
      const { intercept, scale, baselineLogOdds } = plan.horizons[horizon]
      const logOdds = intercept + scale * total
      const contributions = factors.map((factor, i) =>
        contributionOf(factor, scale * ((penalties[i] ?? 0) - (plan.referencePenalties[i] ?? 0))),
      )
      contributions.sort(byMagnitudeThenKey)
      return {
        horizonYears: horizon,
        survivalProbability: sigmoid(logOdds),
        baselineLogOdds,
        logOdds,
        contributions,
      }
    })
  }

  return {
    series: artifact.series,
    version: artifact.version,
    codename: artifact.codename,
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

function contributionOf(factor: CompiledFactor, rawContribution: number): FactorContribution {
  // Normalise −0 so a factor that matches the reference serialises as 0 and reads as 'positive'.
  const contribution = rawContribution === 0 ? 0 : rawContribution
  return {
    key: factor.key,
    factor: factor.name,
    contribution,
    impact: contribution >= 0 ? 'positive' : 'negative',
    magnitude: Math.abs(contribution),
  }
}

function byMagnitudeThenKey(a: FactorContribution, b: FactorContribution): number {
  return b.magnitude - a.magnitude || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
}

function distinctAscending(horizons: readonly Horizon[]): Horizon[] {
  for (const horizon of horizons) {
    if (!HORIZONS.includes(horizon)) throw new RangeError(`unknown horizon ${String(horizon)}`)
  }
  return HORIZONS.filter((horizon) => horizons.includes(horizon))
}
