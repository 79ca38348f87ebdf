import { gammaln } from 'simple-statistics'

/**
 * The chi-square distribution, dependency-free beyond simple-statistics' log-gamma (the library has only
 * a table of a few quantiles): the regularized lower incomplete gamma P(a, x) by its series below
 * x = a + 1 and by Lentz's continued fraction for the upper tail above (Numerical Recipes' gser/gcf), the
 * quantile by bisection on the CDF. Callers import only `chiSquareCdf` and `chiSquareQuantile`.
 */

const TINY = 1e-300
const EPSILON = 1e-15
const MAX_TERMS = 1000

/** P(a, x) by its power series; converges fast for x < a + 1. */
function lowerSeries(a: number, x: number): number {
  let term = 1 / a
  let sum = term
  for (let n = 1; n <= MAX_TERMS; n++) {
    term *= x / (a + n)
    sum += term
    if (Math.abs(term) < Math.abs(sum) * EPSILON) break
  }
  return sum * Math.exp(-x + a * Math.log(x) - gammaln(a))
}

/** Q(a, x) = 1 − P(a, x) by its continued fraction; converges fast for x > a + 1. */
function upperFraction(a: number, x: number): number {
  const guard = (value: number) => (Math.abs(value) < TINY ? TINY : value)
  let b = x + 1 - a
  let c = 1 / TINY
  let d = 1 / guard(b)
  let fraction = d
  for (let n = 1; n <= MAX_TERMS; n++) {
    const an = -n * (n - a)
    b += 2
    d = 1 / guard(an * d + b)
    c = guard(b + an / c)
    const step = d * c
    fraction *= step
    if (Math.abs(step - 1) < EPSILON) break
  }
  return Math.exp(-x + a * Math.log(x) - gammaln(a)) * fraction
}

/** P(a, x), the regularized lower incomplete gamma function, for a > 0 and x ≥ 0. */
export function regularizedLowerGamma(a: number, x: number): number {
  if (x <= 0) return 0
  if (x === Number.POSITIVE_INFINITY) return 1
  return x < a + 1 ? lowerSeries(a, x) : 1 - upperFraction(a, x)
}

/** Q(a, x) = 1 − P(a, x), without the cancellation of 1 − P far in the upper tail. */
function regularizedUpperGamma(a: number, x: number): number {
  if (x <= 0) return 1
  if (x === Number.POSITIVE_INFINITY) return 0
  return x < a + 1 ? 1 - lowerSeries(a, x) : upperFraction(a, x)
}

function checkDegreesOfFreedom(degreesOfFreedom: number): void {
  if (!(degreesOfFreedom > 0 && Number.isFinite(degreesOfFreedom)))
    throw new RangeError(`chi-square needs positive, finite degrees of freedom, got ${degreesOfFreedom}`)
}

/** P(X ≤ x) for a chi-square X with the given (positive, not necessarily whole) degrees of freedom. */
export function chiSquareCdf(x: number, degreesOfFreedom: number): number {
  checkDegreesOfFreedom(degreesOfFreedom)
  if (Number.isNaN(x)) return Number.NaN
  return regularizedLowerGamma(degreesOfFreedom / 2, Math.max(0, x) / 2)
}

const BISECTION_STEPS = 200

/** The x with P(X ≤ x) = p, for 0 < p < 1, to about 1e-12 relative. */
export function chiSquareQuantile(p: number, degreesOfFreedom: number): number {
  if (!(p > 0 && p < 1))
    throw new RangeError(`chi-square quantile of ${p}: p must lie strictly between 0 and 1`)
  checkDegreesOfFreedom(degreesOfFreedom)
  const a = degreesOfFreedom / 2
  // Bisect on whichever tail is the smaller probability, so neither end loses digits to 1 − p.
  const upper = p > 0.5
  const target = upper ? 1 - p : p
  const beyond = (x: number) =>
    upper ? regularizedUpperGamma(a, x / 2) > target : regularizedLowerGamma(a, x / 2) < target
  // Bracket by doubling up or halving down (a small p with few df lies far below 1, e.g. 1e-60).
  let high = Math.max(1, degreesOfFreedom)
  let low = high / 2
  while (beyond(high)) {
    low = high
    high *= 2
  }
  while (low > 0 && !beyond(low)) {
    high = low
    low /= 2
  }
  for (let step = 0; step < BISECTION_STEPS && high - low > 1e-13 * high; step++) {
    const middle = (low + high) / 2
    if (beyond(middle)) low = middle
    else high = middle
  }
  return (low + high) / 2
}
