import { normalQuantile } from '../../stats/normal.ts'
import { studentTQuantile } from '../../stats/student-t.ts'
import type { PlantingMethod } from '../../types.ts'

/*
 * The quasi-binomial pieces every statistic of the survey report shares (./survey-statistics.ts
 * explains the method): what a plot brings, Pearson's dispersion, and the interval's multiplier.
 */

/** What the report needs of one plot (a stored SurveyPlot has all of it). */
export interface PlotObservation {
  planted: number
  alive: number
  /** The model's survival at the plot's age, in (0, 1). */
  predicted: number
  ageYears: number
  speciesCode: string
  plantingMethod: PlantingMethod
}

export type Interval = [low: number, high: number]

export const INTERVAL_LEVEL = 0.9
const UPPER_PROBABILITY = (1 + INTERVAL_LEVEL) / 2

const quantileByDegrees = new Map<number, number>()

/** The multiplier of a 90 % interval whose dispersion has these degrees of freedom (normal below 1). */
export function intervalQuantile(degreesOfFreedom: number): number {
  if (degreesOfFreedom < 1) return normalQuantile(UPPER_PROBABILITY)
  let quantile = quantileByDegrees.get(degreesOfFreedom)
  if (quantile === undefined) {
    quantile = studentTQuantile(UPPER_PROBABILITY, degreesOfFreedom)
    quantileByDegrees.set(degreesOfFreedom, quantile)
  }
  return quantile
}

/** A plot's term of Pearson's χ² around its fitted share: (a − n q)² / (n q (1 − q)). */
export function pearsonTerm(planted: number, alive: number, share: number): number {
  return (alive - planted * share) ** 2 / (planted * share * (1 - share))
}

/** Pearson's φ from the χ² of `plots` plots with `parameters` fitted; 1 when no degree of freedom is left. */
export function pearsonDispersion(chiSquare: number, plots: number, parameters: number): number {
  const degreesOfFreedom = plots - parameters
  if (degreesOfFreedom < 1) return 1
  return Math.max(1, chiSquare / degreesOfFreedom)
}
