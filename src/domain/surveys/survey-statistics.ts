import { logit, sigmoid } from '../../stats/logistic.ts'
import { PLANTING_METHODS, type PlantingMethod } from '../../types.ts'
import { type CalibrationSlope, calibrationSlope } from './calibration-slope.ts'
import {
  INTERVAL_LEVEL,
  type Interval,
  intervalQuantile,
  type PlotObservation,
  pearsonDispersion,
} from './quasi-binomial.ts'

export type { CalibrationSlope, Interval, PlotObservation }
export { calibrationSlope, INTERVAL_LEVEL, intervalQuantile }

/**
 * Observed survival on surveyed plots against the model's prediction at each plot's age.
 *
 * Trees on one plot share its soil, weather and crew, so counts vary more between plots than binomial
 * counts would: every interval is quasi-binomial (variance φ times the binomial one), with Pearson's φ:
 *   φ = max(1, Σᵢ (aᵢ − nᵢ qᵢ)² / (nᵢ qᵢ (1 − qᵢ)) / (k − m))
 * over the k plots, qᵢ a plot's fitted share and m the parameters fitted; φ = 1 when k − m < 1. It is
 * never below 1: less scatter than binomial is taken as chance, not as a tighter truth.
 *
 * Each group (and the whole survey) is fitted as the model shifted on the logit scale: qᵢ = expit(logit pᵢ
 * + δ), δ solving Σ nᵢ qᵢ = A = Σ aᵢ (Newton from 0), m = 1. The scatter is measured around qᵢ and not
 * around one share p̂ for every plot, because plots in a group differ by design (site, age): around p̂,
 * those known differences would count as overdispersion (in simulation a 10 % false-alarm rate became
 * 2 %). When every prediction in the group is the same, qᵢ = p̂ and this is the plain Pearson φ.
 *
 * Observed survival of a group: p̂ = A / N with N = Σ nᵢ; Var(p̂) = φ Σ nᵢ qᵢ (1 − qᵢ) / N², and the
 * 90 % interval, on the logit scale by the delta method, is
 *   expit(logit p̃ ± t · √(φ Σ nᵢ qᵢ (1 − qᵢ)) / (N p̃ (1 − p̃)))
 * — with equal predictions, expit(logit p̃ ± t · √(φ / (N p̃ (1 − p̃)))). p̃ = p̂, except p̃ = (A + ½)/(N + 1)
 * when A is 0 or N: the logit of 0 or 1 is infinite, so the corrected share sets the centre and width
 * (and δ is fitted to N p̃ instead of A), and the interval then ends at 0 or at 1 on that side.
 * t is the 95th percentile of Student's t with k − 1 degrees of freedom: φ is estimated from k − 1 of
 * them, so (estimate − truth) / standard error is about t, not normal; with 8 plots the normal's 1.645
 * instead of t₇'s 1.895 would cover well under 90 %. One plot (k = 1) gives no estimate of φ: it is taken
 * as 1 and t as the normal's 1.645, and a note says such intervals are likely too narrow.
 * The difference, observed − mean predicted (tree-weighted), treats the prediction as known: its
 * interval is the observed one shifted by the mean prediction, and it `differs` when that excludes 0.
 *
 * Calibration in the large is that δ over every plot, with the interval δ ± t · √(φ / Σ nᵢ qᵢ (1 − qᵢ)),
 * t with k − 1 degrees of freedom.
 * Calibration slope: β of logit(qᵢ) = α + β logit(pᵢ), binomial maximum likelihood by IRLS from
 * (α, β) = (0, 1); covariance φ (XᵀWX)⁻¹ with φ from the fitted qᵢ and m = 2, t with k − 2 degrees of
 * freedom. A perfectly calibrated model has δ = 0, α = 0, β = 1.
 */

export type AgeBand = 'under_2' | '2_to_4' | 'over_4'
export const AGE_BANDS: readonly AgeBand[] = ['under_2', '2_to_4', 'over_4']

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

export function ageBand(ageYears: number): AgeBand {
  if (ageYears < 2) return 'under_2'
  return ageYears <= 4 ? '2_to_4' : 'over_4'
}

function checkPlot(plot: PlotObservation, index: number): void {
  const { planted, alive, predicted, ageYears, plantingMethod } = plot
  const problem =
    !Number.isInteger(planted) || planted < 1
      ? `planted must be a whole number ≥ 1, got ${planted}`
      : !Number.isInteger(alive) || alive < 0 || alive > planted
        ? `alive must be a whole number from 0 to planted (${planted}), got ${alive}`
        : !(predicted > 0 && predicted < 1)
          ? `predicted must lie strictly between 0 and 1, got ${predicted}`
          : !(ageYears > 0 && Number.isFinite(ageYears))
            ? `age must be a positive number of years, got ${ageYears}`
            : !PLANTING_METHODS.includes(plantingMethod)
              ? `unknown planting method ${plantingMethod}`
              : null
  if (problem) throw new RangeError(`plot ${index}: ${problem}`)
}

/** A fixed order of the plots, so every floating-point sum, and so the report, ignores the input order. */
function canonicalOrder(plots: readonly PlotObservation[]): PlotObservation[] {
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return [...plots].sort(
    (a, b) =>
      byText(a.speciesCode, b.speciesCode) ||
      PLANTING_METHODS.indexOf(a.plantingMethod) - PLANTING_METHODS.indexOf(b.plantingMethod) ||
      a.ageYears - b.ageYears ||
      a.predicted - b.predicted ||
      a.planted - b.planted ||
      a.alive - b.alive,
  )
}

function totals(plots: readonly PlotObservation[]) {
  let planted = 0
  let alive = 0
  let predictedTrees = 0
  for (const plot of plots) {
    planted += plot.planted
    alive += plot.alive
    predictedTrees += plot.planted * plot.predicted
  }
  const bounded = alive === 0 || alive === planted
  const varianceShare = bounded ? (alive + 0.5) / (planted + 1) : alive / planted
  return { planted, alive, predictedTrees, bounded, varianceShare }
}

const NEWTON_MAX_STEPS = 100
/** Far from the root the logistic is flat and Newton overshoots: no step longer than this (logits). */
const NEWTON_MAX_STEP = 4

/** The δ with Σ n expit(logit p + δ) = target: Newton from 0, kept inside the bracket it has found. */
function solveShift(plots: readonly PlotObservation[], logits: readonly number[], target: number): number {
  let low = Number.NEGATIVE_INFINITY
  let high = Number.POSITIVE_INFINITY
  let shift = 0
  for (let iteration = 0; iteration < NEWTON_MAX_STEPS; iteration++) {
    let expected = 0
    let information = 0
    plots.forEach(({ planted }, index) => {
      const share = sigmoid((logits[index] as number) + shift)
      expected += planted * share
      information += planted * share * (1 - share)
    })
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

/** The group's shift from the model, and how its plots scatter around the shifted model. */
function fitShift(plots: readonly PlotObservation[]) {
  const { planted, alive, bounded, varianceShare } = totals(plots)
  const logits = plots.map((plot) => logit(plot.predicted))
  const shift = solveShift(plots, logits, bounded ? planted * varianceShare : alive)
  const fitted = logits.map((x) => sigmoid(x + shift))
  let information = 0
  plots.forEach((plot, index) => {
    const share = fitted[index] as number
    information += plot.planted * share * (1 - share)
  })
  return { shift, information, dispersion: pearsonDispersion(plots, fitted, 1) }
}

export function groupStatistics(plots: readonly PlotObservation[]): GroupStatistics {
  const { planted, alive, predictedTrees, varianceShare } = totals(plots)
  const { information, dispersion } = fitShift(plots)
  const center = logit(varianceShare)
  // Var(p̂) = φ Σ n q (1 − q) / N², and d logit p / dp = 1 / (p (1 − p)).
  const standardError = Math.sqrt(dispersion * information) / (planted * varianceShare * (1 - varianceShare))
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
  }
}

function surveyGroups(plots: readonly PlotObservation[]): SurveyGroup[] {
  const overall: SurveyGroup = {
    scope: 'overall',
    speciesCode: null,
    plantingMethod: null,
    ageBand: null,
    ...groupStatistics(plots),
  }
  const groups = [overall]
  const species = [...new Set(plots.map((plot) => plot.speciesCode))]
  for (const speciesCode of species)
    for (const plantingMethod of PLANTING_METHODS) {
      const cell = plots.filter((p) => p.speciesCode === speciesCode && p.plantingMethod === plantingMethod)
      if (cell.length === 0) continue
      groups.push({
        scope: 'species_method',
        speciesCode,
        plantingMethod,
        ageBand: null,
        ...groupStatistics(cell),
      })
      for (const band of AGE_BANDS) {
        const inBand = cell.filter((plot) => ageBand(plot.ageYears) === band)
        if (inBand.length > 0)
          groups.push({
            scope: 'age_band',
            speciesCode,
            plantingMethod,
            ageBand: band,
            ...groupStatistics(inBand),
          })
      }
    }
  return groups
}

function brierScore(plots: readonly PlotObservation[], trees: number): number {
  let sum = 0
  for (const { planted, alive, predicted } of plots)
    sum += alive * (1 - predicted) ** 2 + (planted - alive) * predicted ** 2
  return sum / trees
}

function logLoss(plots: readonly PlotObservation[], trees: number): number {
  let sum = 0
  for (const { planted, alive, predicted } of plots)
    sum -= alive * Math.log(predicted) + (planted - alive) * Math.log1p(-predicted)
  return sum / trees
}

export function calibrationInTheLarge(plots: readonly PlotObservation[]): CalibrationShift {
  const { shift, information, dispersion } = fitShift(plots)
  const half = intervalQuantile(plots.length - 1) * Math.sqrt(dispersion / information)
  return { estimate: shift, interval: [shift - half, shift + half], dispersion }
}

function binOf(predicted: number): number {
  let bin = Math.min(RELIABILITY_BINS - 1, Math.floor(predicted * RELIABILITY_BINS))
  if (predicted < bin / RELIABILITY_BINS) bin -= 1
  else if (bin < RELIABILITY_BINS - 1 && predicted >= (bin + 1) / RELIABILITY_BINS) bin += 1
  return bin
}

export function reliability(plots: readonly PlotObservation[]): ReliabilityBin[] {
  const bins = Array.from({ length: RELIABILITY_BINS }, () => ({
    plots: 0,
    trees: 0,
    alive: 0,
    predictedTrees: 0,
  }))
  for (const { planted, alive, predicted } of plots) {
    const bin = bins[binOf(predicted)] as (typeof bins)[number]
    bin.plots += 1
    bin.trees += planted
    bin.alive += alive
    bin.predictedTrees += planted * predicted
  }
  return bins.map(({ plots: count, trees, alive, predictedTrees }, index) => ({
    from: index / RELIABILITY_BINS,
    to: (index + 1) / RELIABILITY_BINS,
    plots: count,
    trees,
    alive,
    meanPredicted: count > 0 ? predictedTrees / trees : null,
    observed: count > 0 ? alive / trees : null,
  }))
}

/** The survey report over every plot; the same plots in any order give the same numbers. */
export function surveyStatistics(input: readonly PlotObservation[]): SurveyReport {
  if (input.length === 0) throw new RangeError('a survey report needs at least one plot')
  input.forEach(checkPlot)
  const plots = canonicalOrder(input)
  const groups = surveyGroups(plots)
  const trees = (groups[0] as SurveyGroup).planted
  const slope = calibrationSlope(plots)
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
    calibrationInTheLarge: calibrationInTheLarge(plots),
    calibrationSlope: slope.fit,
    reliability: reliability(plots),
    notes,
  }
}
