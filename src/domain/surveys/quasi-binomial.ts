import { normalQuantile } from '../../stats/normal.ts'
import { studentTQuantile } from '../../stats/student-t.ts'
import type { PlantingMethod } from '../../types.ts'

/*
 * The overdispersion pieces every statistic of the survey report shares (./survey-statistics.ts
 * explains the method): what a plot brings, Pearson's dispersion, the intra-plot correlation it
 * implies, and the interval's multiplier.
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

/**
 * The beta-binomial intra-plot correlation ρ̂ that Pearson's φ implies: a plot of n trees has variance
 * n q (1 − q)(1 + (n − 1)ρ), so E[χ²] / (k − m) ≈ 1 + (n̄ − 1)ρ and ρ̂ = (φ − 1) / (n̄ − 1), n̄ the mean
 * plot size. 0 when every plot is a single tree (Bernoulli counts cannot clump).
 * Not capped at 1: more scatter than the beta-binomial allows is kept in the intervals, not dropped.
 */
export function plotCorrelation(dispersion: number, plots: number, trees: number): number {
  const extraTrees = trees - plots
  return extraTrees > 0 ? ((dispersion - 1) * plots) / extraTrees : 0
}

/** A plot's variance inflation over the binomial, 1 + (n − 1)ρ̂. */
export function plotInflation(planted: number, correlation: number): number {
  return 1 + (planted - 1) * correlation
}
