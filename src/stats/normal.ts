import { errorFunction, probit } from 'simple-statistics'

/** Beyond this many SDs the normal CDF is 0 or 1 to within 1e-15: no need to work it out. */
const SATURATED_Z = 8

/**
 * The library's erfc approximation (relative error < 1.2e-7) scaled so it is exactly 1 at 0: Φ is then
 * exactly 1/2 at 0 and never falls as z rises, which the bisections over it rely on.
 */
const ERFC_AT_ZERO = 1 - errorFunction(0)
function halfErfc(x: number): number {
  return (0.5 * (1 - errorFunction(x))) / ERFC_AT_ZERO
}

/** P(Z ≤ z) for a standard normal Z, to about 1e-7 (and to 1.2e-7 relative in the lower tail). */
export function normalCdf(z: number): number {
  if (z <= -SATURATED_Z) return 0
  if (z >= SATURATED_Z) return 1
  return z < 0 ? halfErfc(-z / Math.SQRT2) : 1 - halfErfc(z / Math.SQRT2)
}

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI)

/**
 * The z with P(Z ≤ z) = p, for 0 < p < 1: probit's estimate (good to ~1e-3) polished by Newton steps on
 * the accurate CDF, so a stated 90 % interval really uses z = 1.6449.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normal quantile of ${p}: p must lie strictly between 0 and 1`)
  let z = probit(p)
  for (let step = 0; step < 3; step++) {
    const density = INV_SQRT_2PI * Math.exp(-0.5 * z * z)
    if (density === 0) break
    z -= (normalCdf(z) - p) / density
  }
  return z
}

/**
 * n points standing for a normal(0, sd), each weighing 1/n: the midpoints of n equal-probability slices,
 * scaled so their variance is exactly sd² (midpoints alone fall short in the tails). Deterministic; an
 * average over them converges on the expectation as n grows.
 */
export function normalNodes(n: number, sd: number): Float64Array {
  const nodes = new Float64Array(n)
  let sumSquares = 0
  for (let i = 0; i < n; i++) {
    nodes[i] = normalQuantile((i + 0.5) / n)
    sumSquares += (nodes[i] as number) ** 2
  }
  const scale = sumSquares > 0 ? sd / Math.sqrt(sumSquares / n) : 0
  for (let i = 0; i < n; i++) nodes[i] = (nodes[i] as number) * scale
  return nodes
}
