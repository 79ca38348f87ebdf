import { sigmoid } from '../../stats/logistic.ts'
import type { PlotColumns } from './plot-columns.ts'
import { pearsonDispersion, pearsonTerm, plotCorrelation } from './quasi-binomial.ts'

/*
 * A group's calibration shift: the model shifted on the logit scale, qᵢ = expit(logit pᵢ + δ), with δ
 * solving Σ nᵢ qᵢ = A, and how the plots scatter around the shifted model (./survey-statistics.ts
 * explains why the scatter is measured around qᵢ).
 */

export interface PlotTotals {
  planted: number
  alive: number
  /** Σ nᵢ pᵢ: the trees the model expected alive. */
  predictedTrees: number
  /** Every tree alive, or none: the logit of the observed share is infinite. */
  bounded: boolean
  /** The observed share, or (A + ½)/(N + 1) when bounded: the share that sets the centre and width. */
  varianceShare: number
}

export function plotTotals({ planted, alive, predicted, length }: PlotColumns): PlotTotals {
  let trees = 0
  let living = 0
  let predictedTrees = 0
  for (let i = 0; i < length; i++) {
    trees += planted[i] as number
    living += alive[i] as number
    predictedTrees += (planted[i] as number) * (predicted[i] as number)
  }
  const bounded = living === 0 || living === trees
  const varianceShare = bounded ? (living + 0.5) / (trees + 1) : living / trees
  return { planted: trees, alive: living, predictedTrees, bounded, varianceShare }
}

const NEWTON_MAX_STEPS = 100
/** Far from the root the logistic is flat and Newton overshoots: no step longer than this (logits). */
const NEWTON_MAX_STEP = 4

/** The δ with Σ n expit(logit p + δ) = target: Newton from 0, kept inside the bracket it has found. */
function solveShift({ planted, logits, length }: PlotColumns, target: number): number {
  let low = Number.NEGATIVE_INFINITY
  let high = Number.POSITIVE_INFINITY
  let shift = 0
  for (let iteration = 0; iteration < NEWTON_MAX_STEPS; iteration++) {
    let expected = 0
    let information = 0
    for (let i = 0; i < length; i++) {
      const share = sigmoid((logits[i] as number) + shift)
      const trees = planted[i] as number
      expected += trees * share
      information += trees * share * (1 - share)
    }
    const gap = target - expected
    if (gap > 0) low = shift
    else high = shift
    const newton = information > 0 ? gap / information : Math.sign(gap) * NEWTON_MAX_STEP
    const step = Math.max(-NEWTON_MAX_STEP, Math.min(NEWTON_MAX_STEP, newton))
    if (Math.abs(step) < 1e-13 * (1 + Math.abs(shift))) return shift + step
    // A step out of the bracket can only pass a finite end: bisect instead.
    const next = shift + step
    shift = next > low && next < high ? next : (low + high) / 2
  }
  return shift
}

export interface ShiftFit {
  shift: number
  /** Σ nᵢ qᵢ (1 − qᵢ) at the fitted shift. */
  information: number
  /** Pearson's φ around the shifted model, one parameter fitted. */
  dispersion: number
  /** The intra-plot correlation ρ̂ that φ implies (./quasi-binomial.ts). */
  correlation: number
  /** Var(A) around the shifted model: Σ nᵢ qᵢ (1 − qᵢ)(1 + (nᵢ − 1)ρ̂). */
  aliveVariance: number
}

/** The group's shift from the model, and how its plots scatter around the shifted model. */
export function fitShift(plots: PlotColumns, totals: PlotTotals = plotTotals(plots)): ShiftFit {
  const { planted, alive, bounded, varianceShare } = totals
  const shift = solveShift(plots, bounded ? planted * varianceShare : alive)
  let information = 0
  // Σ nᵢ qᵢ (1 − qᵢ)(nᵢ − 1): what ρ̂ multiplies in Var(A).
  let clumpable = 0
  let chiSquare = 0
  for (let i = 0; i < plots.length; i++) {
    const share = sigmoid((plots.logits[i] as number) + shift)
    const trees = plots.planted[i] as number
    const variance = trees * share * (1 - share)
    information += variance
    clumpable += variance * (trees - 1)
    chiSquare += pearsonTerm(trees, plots.alive[i] as number, share)
  }
  const dispersion = pearsonDispersion(chiSquare, plots.length, 1)
  const correlation = plotCorrelation(dispersion, plots.length, planted)
  return {
    shift,
    information,
    dispersion,
    correlation,
    aliveVariance: information + correlation * clumpable,
  }
}
