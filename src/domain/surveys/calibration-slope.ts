import { sigmoid } from '../../stats/logistic.ts'
import { columnsOf, type PlotColumns } from './plot-columns.ts'
import {
  type Interval,
  intervalQuantile,
  type PlotObservation,
  pearsonDispersion,
  pearsonTerm,
  plotCorrelation,
  plotInflation,
} from './quasi-binomial.ts'

export interface CalibrationSlope {
  slope: number
  slopeInterval: Interval
  intercept: number
  dispersion: number
  plotCorrelation: number
}

const IRLS_MAX_STEPS = 50
const IRLS_TOLERANCE = 1e-10
const MAX_HALVINGS = 40

/** The binomial log-likelihood of logit q = α + β x (constant terms left out). */
function logLikelihood(
  { planted, alive, logits, length }: PlotColumns,
  intercept: number,
  slope: number,
): number {
  let sum = 0
  for (let i = 0; i < length; i++) {
    const eta = intercept + slope * (logits[i] as number)
    // log σ(η) = −log(1 + e^−η) and log(1 − σ(η)) = −log(1 + e^η), without overflow: both are
    // −log(1 + e^−|η|), less |η| on the side of η's sign opposite to the outcome's.
    let logAlive: number
    let logDead: number
    if (eta > 0) {
      const tail = Math.log1p(Math.exp(-eta))
      logAlive = -tail
      logDead = -(eta + tail)
    } else {
      const tail = Math.log1p(Math.exp(eta))
      logAlive = -(-eta + tail)
      logDead = -tail
    }
    const living = alive[i] as number
    sum += living * logAlive + ((planted[i] as number) - living) * logDead
  }
  return sum
}

export type SlopeFit = { fit: CalibrationSlope; note: null } | { fit: null; note: string }

const NOT_ESTIMABLE: SlopeFit = {
  fit: null,
  note: 'Calibration slope: not estimable, the fit runs off to infinity (survival all or nothing on one side of the predictions).',
}

/** The IRLS step's weights: Σ w, Σ w x, Σ w x² with w = n q (1 − q), and the score. */
function moments({ planted, alive, logits, length }: PlotColumns, intercept: number, slope: number) {
  let w = 0
  let wx = 0
  let wxx = 0
  let score0 = 0
  let score1 = 0
  for (let i = 0; i < length; i++) {
    const x = logits[i] as number
    const trees = planted[i] as number
    const share = sigmoid(intercept + slope * x)
    const weight = trees * share * (1 - share)
    w += weight
    wx += weight * x
    wxx += weight * x * x
    score0 += (alive[i] as number) - trees * share
    score1 += x * ((alive[i] as number) - trees * share)
  }
  return { w, wx, wxx, determinant: w * wxx - wx ** 2, score0, score1 }
}

/** logit q = α + β logit p by binomial maximum likelihood (IRLS, i.e. Newton for the canonical link). */
export function fitCalibrationSlope(plots: PlotColumns): SlopeFit {
  if (plots.length < 3)
    return { fit: null, note: 'Calibration slope: needs at least 3 plots (two parameters and a dispersion).' }
  let lowest = Number.POSITIVE_INFINITY
  let highest = Number.NEGATIVE_INFINITY
  for (const x of plots.logits) {
    lowest = Math.min(lowest, x)
    highest = Math.max(highest, x)
  }
  if (highest - lowest <= 1e-9)
    return { fit: null, note: 'Calibration slope: every plot has the same prediction, so there is no slope.' }
  let intercept = 0
  let slope = 1
  let converged = false
  let step = moments(plots, intercept, slope)
  // The log-likelihood where the fit stands: the accepted trial of the step before, else computed.
  let current: number | null = null
  for (let iteration = 0; iteration < IRLS_MAX_STEPS && !converged; iteration++) {
    if (iteration > 0) step = moments(plots, intercept, slope)
    const { w, wx, wxx, determinant, score0, score1 } = step
    let stepIntercept = (wxx * score0 - wx * score1) / determinant
    let stepSlope = (w * score1 - wx * score0) / determinant
    // Newton's full step can overshoot far from the optimum; the log-likelihood is concave, so halving
    // the step until it no longer falls always makes progress (step-halving).
    const before = current ?? logLikelihood(plots, intercept, slope)
    current = null
    for (let halvings = 0; halvings < MAX_HALVINGS; halvings++) {
      const trial = logLikelihood(plots, intercept + stepIntercept, slope + stepSlope)
      if (trial >= before - 1e-12) {
        current = trial
        break
      }
      stepIntercept /= 2
      stepSlope /= 2
    }
    intercept += stepIntercept
    slope += stepSlope
    converged = Math.max(Math.abs(stepIntercept), Math.abs(stepSlope)) < IRLS_TOLERANCE
  }
  if (!converged || !Number.isFinite(intercept) || !Number.isFinite(slope)) return NOT_ESTIMABLE
  const { dispersion, correlation } = scatterAround(plots, intercept, slope)
  const variance = slopeVariance(plots, intercept, slope, correlation)
  const half = intervalQuantile(plots.length - 2) * Math.sqrt(variance)
  // Weights that underflow stall the steps short of infinity: a converged fit without a finite interval.
  if (!(Number.isFinite(half) && half > 0)) return NOT_ESTIMABLE
  return {
    fit: {
      slope,
      slopeInterval: [slope - half, slope + half],
      intercept,
      dispersion,
      plotCorrelation: correlation,
    },
    note: null,
  }
}

/** Pearson's φ around the fitted line (two parameters), and the intra-plot correlation it implies. */
function scatterAround(plots: PlotColumns, intercept: number, slope: number) {
  let chiSquare = 0
  let trees = 0
  for (let i = 0; i < plots.length; i++) {
    const planted = plots.planted[i] as number
    const share = sigmoid(intercept + slope * (plots.logits[i] as number))
    chiSquare += pearsonTerm(planted, plots.alive[i] as number, share)
    trees += planted
  }
  const dispersion = pearsonDispersion(chiSquare, plots.length, 2)
  return { dispersion, correlation: plotCorrelation(dispersion, plots.length, trees) }
}

/**
 * Var(β̂) by the sandwich A⁻¹ B A⁻¹: A = Σ wᵢ (1, xᵢ)ᵀ(1, xᵢ) with wᵢ = nᵢ qᵢ (1 − qᵢ), and B the same
 * with wᵢ (1 + (nᵢ − 1)ρ̂), plot i's variance. Its β entry is Σ wᵢ (1 + (nᵢ − 1)ρ̂)(W xᵢ − Wₓ)² / det²
 * (W = Σ w, Wₓ = Σ w x); with equal plot sizes, φ W / det, the quasi-likelihood φ (XᵀWX)⁻¹.
 */
function slopeVariance(plots: PlotColumns, intercept: number, slope: number, correlation: number): number {
  const { w, wx, determinant } = moments(plots, intercept, slope)
  let meat = 0
  for (let i = 0; i < plots.length; i++) {
    const x = plots.logits[i] as number
    const trees = plots.planted[i] as number
    const share = sigmoid(intercept + slope * x)
    meat += trees * share * (1 - share) * plotInflation(trees, correlation) * (w * x - wx) ** 2
  }
  return meat / determinant ** 2
}

/** The calibration slope of plots in the order given. */
export function calibrationSlope(plots: readonly PlotObservation[]): SlopeFit {
  return fitCalibrationSlope(columnsOf(plots))
}
