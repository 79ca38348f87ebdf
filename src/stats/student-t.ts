import { gammaln } from 'simple-statistics'

/**
 * Student's t distribution, dependency-free: the regularized incomplete beta by Lentz's continued
 * fraction (Numerical Recipes' betai/betacf), the quantile by bisection on the CDF. Callers import
 * only `studentTQuantile` and `studentTCdf`, so a library (e.g. @stdlib/stats-base-dists-t-quantile)
 * can replace the insides without touching them.
 */

const TINY = 1e-300
const CONTINUED_FRACTION_EPSILON = 1e-15
const CONTINUED_FRACTION_MAX_TERMS = 500

/** The continued fraction of I_x(a, b); converges fast for x < (a + 1) / (a + b + 2). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const guard = (value: number) => (Math.abs(value) < TINY ? TINY : value)
  let c = 1
  let d = 1 / guard(1 - ((a + b) * x) / (a + 1))
  let fraction = d
  for (let m = 1; m <= CONTINUED_FRACTION_MAX_TERMS; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m))
    d = 1 / guard(1 + even * d)
    c = guard(1 + even / c)
    fraction *= d * c
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
    d = 1 / guard(1 + odd * d)
    c = guard(1 + odd / c)
    const step = d * c
    fraction *= step
    if (Math.abs(step - 1) < CONTINUED_FRACTION_EPSILON) break
  }
  return fraction
}

/** I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 ≤ x ≤ 1. */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(gammaln(a + b) - gammaln(a) - gammaln(b) + a * Math.log(x) + b * Math.log1p(-x))
  // The fraction converges only on one side of the mean: use the symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b
}

function checkDegreesOfFreedom(degreesOfFreedom: number): void {
  if (!(degreesOfFreedom > 0 && Number.isFinite(degreesOfFreedom)))
    throw new RangeError(`Student's t needs positive, finite degrees of freedom, got ${degreesOfFreedom}`)
}

/** P(T > t) for t ≥ 0, without the cancellation of 1 − CDF far out. */
function upperTail(t: number, degreesOfFreedom: number): number {
  const x = degreesOfFreedom / (degreesOfFreedom + t * t)
  return 0.5 * regularizedIncompleteBeta(x, degreesOfFreedom / 2, 0.5)
}

/** P(T ≤ t) for Student's t with the given (positive, not necessarily whole) degrees of freedom. */
export function studentTCdf(t: number, degreesOfFreedom: number): number {
  checkDegreesOfFreedom(degreesOfFreedom)
  if (Number.isNaN(t)) return Number.NaN
  const tail = upperTail(Math.abs(t), degreesOfFreedom)
  return t >= 0 ? 1 - tail : tail
}

const BISECTION_STEPS = 200

/** The t with P(T ≤ t) = p, for 0 < p < 1, to about 1e-12 relative. */
export function studentTQuantile(p: number, degreesOfFreedom: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`t quantile of ${p}: p must lie strictly between 0 and 1`)
  checkDegreesOfFreedom(degreesOfFreedom)
  if (p === 0.5) return 0
  if (p < 0.5) return -studentTQuantile(1 - p, degreesOfFreedom)
  const tail = 1 - p
  let low = 0
  let high = 1
  while (upperTail(high, degreesOfFreedom) > tail) {
    low = high
    high *= 2
  }
  for (let step = 0; step < BISECTION_STEPS && high - low > 1e-13 * high; step++) {
    const middle = (low + high) / 2
    if (upperTail(middle, degreesOfFreedom) > tail) low = middle
    else high = middle
  }
  return (low + high) / 2
}
