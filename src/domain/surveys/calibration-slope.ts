import { logit, sigmoid } from '../../stats/logistic.ts'
import { type Interval, intervalQuantile, type PlotObservation, pearsonDispersion } from './quasi-binomial.ts'

export interface CalibrationSlope {
  slope: number
  slopeInterval: Interval
  intercept: number
  dispersion: number
}

const IRLS_MAX_STEPS = 50
const IRLS_TOLERANCE = 1e-10
const MAX_HALVINGS = 40

/** The binomial log-likelihood of logit q = α + β x (constant terms left out). */
function logLikelihood(
  plots: readonly PlotObservation[],
  logits: readonly number[],
  intercept: number,
  slope: number,
): number {
  let sum = 0
  plots.forEach(({ planted, alive }, index) => {
    const eta = intercept + slope * (logits[index] as number)
    // log σ(η) = −log(1 + e^−η) and log(1 − σ(η)) = −log(1 + e^η), each computed without overflow.
    const logAlive = -softplus(-eta)
    const logDead = -softplus(eta)
    sum += alive * logAlive + (planted - alive) * logDead
  })
  return sum
}

function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x))
}

export type SlopeFit = { fit: CalibrationSlope; note: null } | { fit: null; note: string }

/** logit q = α + β logit p by binomial maximum likelihood (IRLS, i.e. Newton for the canonical link). */
export function calibrationSlope(plots: readonly PlotObservation[]): SlopeFit {
  if (plots.length < 3)
    return { fit: null, note: 'Calibration slope: needs at least 3 plots (two parameters and a dispersion).' }
  const logits = plots.map((plot) => logit(plot.predicted))
  let lowest = Number.POSITIVE_INFINITY
  let highest = Number.NEGATIVE_INFINITY
  for (const x of logits) {
    lowest = Math.min(lowest, x)
    highest = Math.max(highest, x)
  }
  if (highest - lowest <= 1e-9)
    return { fit: null, note: 'Calibration slope: every plot has the same prediction, so there is no slope.' }
  let intercept = 0
  let slope = 1
  let converged = false
  let moments = { w: 0, wx: 0, wxx: 0, determinant: 0 }
  for (let step = 0; step < IRLS_MAX_STEPS && !converged; step++) {
    moments = { w: 0, wx: 0, wxx: 0, determinant: 0 }
    let score0 = 0
    let score1 = 0
    plots.forEach(({ planted, alive }, index) => {
      const x = logits[index] as number
      const share = sigmoid(intercept + slope * x)
      const weight = planted * share * (1 - share)
      moments.w += weight
      moments.wx += weight * x
      moments.wxx += weight * x * x
      score0 += alive - planted * share
      score1 += x * (alive - planted * share)
    })
    moments.determinant = moments.w * moments.wxx - moments.wx ** 2
    let stepIntercept = (moments.wxx * score0 - moments.wx * score1) / moments.determinant
    let stepSlope = (moments.w * score1 - moments.wx * score0) / moments.determinant
    // Newton's full step can overshoot far from the optimum; the log-likelihood is concave, so halving
    // the step until it no longer falls always makes progress (step-halving).
    const before = logLikelihood(plots, logits, intercept, slope)
    for (
      let halvings = 0;
      halvings < MAX_HALVINGS &&
      !(logLikelihood(plots, logits, intercept + stepIntercept, slope + stepSlope) >= before - 1e-12);
      halvings++
    ) {
      stepIntercept /= 2
      stepSlope /= 2
    }
    intercept += stepIntercept
    slope += stepSlope
    converged = Math.max(Math.abs(stepIntercept), Math.abs(stepSlope)) < IRLS_TOLERANCE
  }
  const notEstimable = {
    fit: null,
    note: 'Calibration slope: not estimable, the fit runs off to infinity (survival all or nothing on one side of the predictions).',
  }
  if (!converged || !Number.isFinite(intercept) || !Number.isFinite(slope)) return notEstimable
  const fitted = logits.map((x) => sigmoid(intercept + slope * x))
  const dispersion = pearsonDispersion(plots, fitted, 2)
  // Information at the last step is that of the converged estimate to within IRLS_TOLERANCE.
  const half = intervalQuantile(plots.length - 2) * Math.sqrt((dispersion * moments.w) / moments.determinant)
  // Weights that underflow stall the steps short of infinity: a converged fit without a finite interval.
  if (!(Number.isFinite(half) && half > 0)) return notEstimable
  return { fit: { slope, slopeInterval: [slope - half, slope + half], intercept, dispersion }, note: null }
}
