import { chiSquareQuantile } from '../../stats/chi-square.ts'

/*
 * The interval of the calibration's planting-year variance σ_y² (./offset-fit.ts; the clumping and
 * site terms' are in ./variance-moments.ts): the Q-profile interval (Viechtbauer 2007, Stat Med 26:37).
 *
 * With weights wᵢ(τ²) = 1/(vᵢ + τ²), the generalised Q(τ²) = Σ wᵢ (yᵢ − ȳ_w)² is chi-square on k − 1
 * degrees of freedom at the true τ² when the effects are normal and their sampling variances vᵢ known,
 * and it falls as τ² rises: the τ² where it crosses the chi-square's upper and lower quantiles bound
 * the interval, an end at 0 when Q(0) is already below its quantile. It is exact under those
 * assumptions however few the effects: here the planting years, often 3 to 10, where a Wald interval
 * around the moment estimate (whose sampling distribution is a skewed, scaled chi-square) would be
 * far off. The vᵢ are the fit's own estimates, taken as known.
 */

const BISECTION_STEPS = 200

/** Q(τ²): the weighted squares of the effects about their weighted mean, weights 1/(vᵢ + τ²). */
export function generalisedQ(effects: ArrayLike<number>, variances: ArrayLike<number>, tau2: number): number {
  let total = 0
  let weighted = 0
  for (let i = 0; i < effects.length; i++) {
    const w = 1 / ((variances[i] as number) + tau2)
    total += w
    weighted += w * (effects[i] as number)
  }
  const mean = weighted / total
  let q = 0
  for (let i = 0; i < effects.length; i++)
    q += ((effects[i] as number) - mean) ** 2 / ((variances[i] as number) + tau2)
  return q
}

/** The τ² ≥ 0 where Q(τ²) = target (Q falls as τ² rises); 0 when Q(0) is already at or below it. */
function solveQ(effects: ArrayLike<number>, variances: ArrayLike<number>, target: number): number {
  const q = (tau2: number) => generalisedQ(effects, variances, tau2)
  if (q(0) <= target) return 0
  let low = 0
  let high = 1
  while (q(high) > target) {
    low = high
    high *= 2
  }
  for (let step = 0; step < BISECTION_STEPS && high - low > 1e-12 * high; step++) {
    const middle = (low + high) / 2
    if (q(middle) > target) low = middle
    else high = middle
  }
  return (low + high) / 2
}

/**
 * The Q-profile interval for the between-effects variance τ² of `effects` with sampling `variances`
 * (all > 0), at the central `level`: [0, 0] when Q(0) is below even the lower chi-square quantile.
 */
export function qProfileInterval(
  effects: ArrayLike<number>,
  variances: ArrayLike<number>,
  level: number,
): [low: number, high: number] {
  if (effects.length < 2 || variances.length !== effects.length)
    throw new RangeError('the Q-profile needs two or more effects, each with its sampling variance')
  const degrees = effects.length - 1
  const tail = (1 - level) / 2
  return [
    solveQ(effects, variances, chiSquareQuantile(1 - tail, degrees)),
    solveQ(effects, variances, chiSquareQuantile(tail, degrees)),
  ]
}
