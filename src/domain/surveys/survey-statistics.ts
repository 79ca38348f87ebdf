import { logit, sigmoid } from '../../stats/logistic.ts'
import type { PlantingMethod } from '../../types.ts'
import { type CalibrationSlope, calibrationSlope, fitCalibrationSlope } from './calibration-slope.ts'
import {
  AGE_BANDS,
  type AgeBand,
  ageBand,
  type CanonicalPlots,
  canonicalPlots,
  type SpeciesMethodColumns,
} from './canonical-plots.ts'
import { fitShift, type PlotTotals, plotTotals, type ShiftFit } from './logit-shift.ts'
import { columnsOf, type PlotColumns, plotRange } from './plot-columns.ts'
import { INTERVAL_LEVEL, type Interval, intervalQuantile, type PlotObservation } from './quasi-binomial.ts'

export type { AgeBand, CalibrationSlope, Interval, PlotObservation, SpeciesMethodColumns }
export { AGE_BANDS, ageBand, calibrationSlope, INTERVAL_LEVEL, intervalQuantile }

/**
 * Observed survival on surveyed plots against the model's prediction at each plot's age.
 *
 * Trees on one plot share its soil, weather and crew, so counts vary more between plots than binomial
 * counts would, and the more so the larger the plot: the counts are taken as beta-binomial, a plot of n
 * trees varying 1 + (n − 1)ρ times as much as binomial counts, ρ the intra-plot correlation. ρ is
 * estimated by moments from Pearson's φ:
 *   φ = max(1, Σᵢ (aᵢ − nᵢ qᵢ)² / (nᵢ qᵢ (1 − qᵢ)) / (k − m)),   ρ̂ = (φ − 1) · k / Σᵢ (nᵢ − 1)
 * over the k plots, qᵢ a plot's fitted share and m the parameters fitted; φ = 1 when k − m < 1. It is
 * never below 1: less scatter than binomial is taken as chance, not as a tighter truth. With plots of one
 * size every plot's inflation is φ, the quasi-binomial model; with sizes from 10 to 500 trees one φ for
 * all would let the large plots (most of the trees) look as steady as the small ones, and the intervals
 * covered 84 % instead of 90 % in simulation.
 *
 * Each group (and the whole survey) is fitted as the model shifted on the logit scale: qᵢ = expit(logit pᵢ
 * + δ), δ solving Σ nᵢ qᵢ = A = Σ aᵢ (Newton from 0), m = 1. The scatter is measured around qᵢ and not
 * around one share p̂ for every plot, because plots in a group differ by design (site, age): around p̂,
 * those known differences would count as overdispersion (in simulation a 10 % false-alarm rate became
 * 2 %). When every prediction in the group is the same, qᵢ = p̂ and this is the plain Pearson φ.
 *
 * Observed survival of a group: p̂ = A / N with N = Σ nᵢ; Var(A) = Σ nᵢ qᵢ (1 − qᵢ)(1 + (nᵢ − 1)ρ̂),
 * Var(p̂) = Var(A) / N², and the 90 % interval, on the logit scale by the delta method, is
 *   expit(logit p̃ ± t · √Var(A) / (N p̃ (1 − p̃)))
 * — with plots of one size and one prediction, expit(logit p̃ ± t · √(φ / (N p̃ (1 − p̃)))). p̃ = p̂,
 * except p̃ = (A + ½)/(N + 1) when A is 0 or N: the logit of 0 or 1 is infinite, so the corrected share
 * sets the centre and width (and δ is fitted to N p̃ instead of A), and the interval then ends at 0 or at
 * 1 on that side.
 * t is the 95th percentile of Student's t with k − 1 degrees of freedom: φ is estimated from k − 1 of
 * them, so (estimate − truth) / standard error is about t, not normal; with 8 plots the normal's 1.645
 * instead of t₇'s 1.895 would cover well under 90 %. One plot (k = 1) gives no estimate of φ: it is taken
 * as 1 and t as the normal's 1.645, and a note says such intervals are likely too narrow.
 * The difference, observed − mean predicted (tree-weighted), treats the prediction as known: its
 * interval is the observed one shifted by the mean prediction, and it `differs` when that excludes 0.
 *
 * Calibration in the large is that δ over every plot, with the interval δ ± t · √Var(A) / Σ nᵢ qᵢ (1 − qᵢ),
 * t with k − 1 degrees of freedom.
 * Calibration slope: β of logit(qᵢ) = α + β logit(pᵢ), binomial maximum likelihood by IRLS from
 * (α, β) = (0, 1); covariance by the sandwich (XᵀWX)⁻¹ XᵀWDX (XᵀWX)⁻¹, D the plots' 1 + (nᵢ − 1)ρ̂ with
 * φ from the fitted qᵢ and m = 2 (φ (XᵀWX)⁻¹ with plots of one size), t with k − 2 degrees of freedom.
 * A perfectly calibrated model has δ = 0, α = 0, β = 1.
 *
 * The report first puts the plots in one fixed order (./canonical-plots.ts), so every floating-point sum
 * runs the same way and the same plots give the same numbers in any order and in either form (one object
 * per plot, or columns per species × method as the store reads them); each fit is then a loop over typed
 * columns (./plot-columns.ts), a group being a run of consecutive plots.
 */

export interface GroupStatistics {
  plots: number
  planted: number
  alive: number
  observed: number
  observedInterval: Interval
  meanPredicted: number
  difference: number
  differenceInterval: Interval
  differs: boolean
  dispersion: number
  /** The intra-plot correlation ρ̂ behind the intervals: trees of one plot living or dying together. */
  plotCorrelation: number
}

export interface SurveyGroup extends GroupStatistics {
  scope: 'overall' | 'species_method' | 'age_band'
  speciesCode: string | null
  plantingMethod: PlantingMethod | null
  ageBand: AgeBand | null
}

export interface CalibrationShift {
  estimate: number
  interval: Interval
  dispersion: number
}

export interface ReliabilityBin {
  from: number
  to: number
  plots: number
  trees: number
  alive: number
  meanPredicted: number | null
  observed: number | null
}

export interface SurveyReport {
  groups: SurveyGroup[]
  brier: number
  logLoss: number
  calibrationInTheLarge: CalibrationShift
  calibrationSlope: CalibrationSlope | null
  reliability: ReliabilityBin[]
  notes: string[]
}

const RELIABILITY_BINS = 10

/** A group's statistics from its totals and its shift fit. */
function statisticsOf(
  plots: PlotColumns,
  totals: PlotTotals,
  { aliveVariance, dispersion, correlation }: ShiftFit,
): GroupStatistics {
  const { planted, alive, predictedTrees, varianceShare } = totals
  const center = logit(varianceShare)
  // Var(p̂) = Var(A) / N², and d logit p / dp = 1 / (p (1 − p)).
  const standardError = Math.sqrt(aliveVariance) / (planted * varianceShare * (1 - varianceShare))
  const half = intervalQuantile(plots.length - 1) * standardError
  const observedInterval: Interval = [
    alive === 0 ? 0 : sigmoid(center - half),
    alive === planted ? 1 : sigmoid(center + half),
  ]
  const observed = alive / planted
  const meanPredicted = predictedTrees / planted
  const differenceInterval: Interval = [
    observedInterval[0] - meanPredicted,
    observedInterval[1] - meanPredicted,
  ]
  return {
    plots: plots.length,
    planted,
    alive,
    observed,
    observedInterval,
    meanPredicted,
    difference: observed - meanPredicted,
    differenceInterval,
    differs: differenceInterval[0] > 0 || differenceInterval[1] < 0,
    dispersion,
    plotCorrelation: correlation,
  }
}

function fittedGroup(plots: PlotColumns): { statistics: GroupStatistics; shift: ShiftFit } {
  const totals = plotTotals(plots)
  const shift = fitShift(plots, totals)
  return { statistics: statisticsOf(plots, totals, shift), shift }
}

/** The statistics of plots in the order given. */
export function groupStatistics(plots: readonly PlotObservation[]): GroupStatistics {
  return fittedGroup(columnsOf(plots)).statistics
}

function shiftOf(
  plots: PlotColumns,
  { shift, information, dispersion, aliveVariance }: ShiftFit,
): CalibrationShift {
  // dδ/dA = 1 / Σ nᵢ qᵢ (1 − qᵢ).
  const half = (intervalQuantile(plots.length - 1) * Math.sqrt(aliveVariance)) / information
  return { estimate: shift, interval: [shift - half, shift + half], dispersion }
}

/** Calibration in the large of plots in the order given. */
export function calibrationInTheLarge(plots: readonly PlotObservation[]): CalibrationShift {
  const columns = columnsOf(plots)
  return shiftOf(columns, fitShift(columns))
}

/** Each species × method, then its age bands; the overall group is the caller's. */
function speciesMethodGroups({ columns, speciesMethods }: CanonicalPlots): SurveyGroup[] {
  const groups: SurveyGroup[] = []
  for (const { speciesCode, plantingMethod, start, end, bands } of speciesMethods) {
    const cell = fittedGroup(plotRange(columns, start, end)).statistics
    groups.push({ scope: 'species_method', speciesCode, plantingMethod, ageBand: null, ...cell })
    for (const band of bands) {
      const inBand = fittedGroup(plotRange(columns, band.start, band.end)).statistics
      groups.push({ scope: 'age_band', speciesCode, plantingMethod, ageBand: band.ageBand, ...inBand })
    }
  }
  return groups
}

function brierScore({ planted, alive, predicted, length }: PlotColumns, trees: number): number {
  let sum = 0
  for (let i = 0; i < length; i++) {
    const living = alive[i] as number
    const p = predicted[i] as number
    sum += living * (1 - p) ** 2 + ((planted[i] as number) - living) * p ** 2
  }
  return sum / trees
}

function logLoss({ planted, alive, predicted, length }: PlotColumns, trees: number): number {
  let sum = 0
  for (let i = 0; i < length; i++) {
    const living = alive[i] as number
    const p = predicted[i] as number
    sum -= living * Math.log(p) + ((planted[i] as number) - living) * Math.log1p(-p)
  }
  return sum / trees
}

function binOf(predicted: number): number {
  let bin = Math.min(RELIABILITY_BINS - 1, Math.floor(predicted * RELIABILITY_BINS))
  if (predicted < bin / RELIABILITY_BINS) bin -= 1
  else if (bin < RELIABILITY_BINS - 1 && predicted >= (bin + 1) / RELIABILITY_BINS) bin += 1
  return bin
}

function reliabilityOf({ planted, alive, predicted, length }: PlotColumns): ReliabilityBin[] {
  const plots = new Float64Array(RELIABILITY_BINS)
  const trees = new Float64Array(RELIABILITY_BINS)
  const living = new Float64Array(RELIABILITY_BINS)
  const predictedTrees = new Float64Array(RELIABILITY_BINS)
  for (let i = 0; i < length; i++) {
    const p = predicted[i] as number
    const bin = binOf(p)
    plots[bin] = (plots[bin] as number) + 1
    trees[bin] = (trees[bin] as number) + (planted[i] as number)
    living[bin] = (living[bin] as number) + (alive[i] as number)
    predictedTrees[bin] = (predictedTrees[bin] as number) + (planted[i] as number) * p
  }
  return Array.from({ length: RELIABILITY_BINS }, (_, bin) => {
    const count = plots[bin] as number
    const treesIn = trees[bin] as number
    const aliveIn = living[bin] as number
    return {
      from: bin / RELIABILITY_BINS,
      to: (bin + 1) / RELIABILITY_BINS,
      plots: count,
      trees: treesIn,
      alive: aliveIn,
      meanPredicted: count > 0 ? (predictedTrees[bin] as number) / treesIn : null,
      observed: count > 0 ? aliveIn / treesIn : null,
    }
  })
}

/** The reliability table of plots in the order given. */
export function reliability(plots: readonly PlotObservation[]): ReliabilityBin[] {
  return reliabilityOf(columnsOf(plots))
}

/**
 * The survey report over every plot, given one by one or as a store reads them (columns per species ×
 * method); the same plots in any order, and in either form, give the same numbers.
 */
export function surveyStatistics(
  input: readonly PlotObservation[] | readonly SpeciesMethodColumns[],
): SurveyReport {
  const canonical = canonicalPlots(input)
  const plots = canonical.columns
  if (plots.length === 0) throw new RangeError('a survey report needs at least one plot')
  const overall = fittedGroup(plots)
  const groups: SurveyGroup[] = [
    { scope: 'overall', speciesCode: null, plantingMethod: null, ageBand: null, ...overall.statistics },
    ...speciesMethodGroups(canonical),
  ]
  const trees = overall.statistics.planted
  const slope = fitCalibrationSlope(plots)
  const notes = slope.note ? [slope.note] : []
  if (groups.some((group) => group.plots === 1))
    notes.push(
      'Groups of one plot: the spread between plots cannot be estimated there, so their intervals assume ' +
        'binomial counts (dispersion 1) and are likely too narrow.',
    )
  return {
    groups,
    brier: brierScore(plots, trees),
    logLoss: logLoss(plots, trees),
    calibrationInTheLarge: shiftOf(plots, overall.shift),
    calibrationSlope: slope.fit,
    reliability: reliabilityOf(plots),
    notes,
  }
}
