import type { SiteAttributes } from '../domain/site.ts'
import type { Species } from '../domain/species.ts'

export type PlantingMethod = 'manual' | 'drone_seeded'
export const PLANTING_METHODS: readonly PlantingMethod[] = Object.freeze(['manual', 'drone_seeded'] as const)

export type Horizon = 1 | 3 | 5
export const HORIZONS: readonly Horizon[] = Object.freeze([1, 3, 5] as const)

export interface FactorContribution {
  key: string
  /** Human-readable factor name. */
  factor: string
  /** Change in log-odds of survival relative to the reference site. */
  contribution: number
  /** 'positive' when the contribution is ≥ 0 (exact zeros included), else 'negative'. */
  impact: 'positive' | 'negative'
  magnitude: number
}

export interface HorizonPrediction {
  horizonYears: Horizon
  survivalProbability: number
  baselineLogOdds: number
  logOdds: number
  /** All factors, sorted by magnitude descending, ties by key. */
  contributions: FactorContribution[]
}

export interface FactorDescription {
  key: string
  name: string
  description: string
}

export interface SurvivalModel {
  series: string
  version: string
  codename: string
  factors: readonly FactorDescription[]
  /** Predictions in ascending horizon order; default horizons are [1, 3, 5]. */
  predict(
    site: SiteAttributes,
    species: Species,
    method: PlantingMethod,
    horizons?: readonly Horizon[],
  ): HorizonPrediction[]
}
