/**
 * Gauss–Hermite quadrature for expectations over a standard normal: E[f(Z)] ≈ Σ wₖ f(zₖ), exact for
 * polynomials of degree < 2m. The nodes are the roots of the Hermite polynomial Hₘ, found by Newton's
 * method from the usual asymptotic starting points (Numerical Recipes' gauher), then rescaled from the
 * weight e^(−x²) to the standard normal's density: z = √2 x, w = w_H / √π.
 */

export interface NormalQuadrature {
  nodes: Float64Array
  weights: Float64Array
}

const MAX_NEWTON_STEPS = 100
const TOLERANCE = 1e-14

const cache = new Map<number, NormalQuadrature>()

/** The m-point rule (m from 2 to 100), computed once per m. */
export function normalQuadrature(points: number): NormalQuadrature {
  if (!(Number.isInteger(points) && points >= 2 && points <= 100))
    throw new RangeError(`Gauss–Hermite points must be a whole number from 2 to 100, got ${points}`)
  let rule = cache.get(points)
  if (!rule) {
    rule = computeRule(points)
    cache.set(points, rule)
  }
  return rule
}

function computeRule(m: number): NormalQuadrature {
  const x = new Float64Array(m)
  const w = new Float64Array(m)
  const pim4 = Math.PI ** -0.25
  const half = Math.floor((m + 1) / 2)
  let z = 0
  for (let i = 0; i < half; i++) {
    if (i === 0) z = Math.sqrt(2 * m + 1) - 1.85575 * (2 * m + 1) ** -0.16667
    else if (i === 1) z -= (1.14 * m ** 0.426) / z
    else if (i === 2) z = 1.86 * z - 0.86 * (x[0] as number)
    else if (i === 3) z = 1.91 * z - 0.91 * (x[1] as number)
    else z = 2 * z - (x[i - 2] as number)
    let derivative = 0
    for (let step = 0; step < MAX_NEWTON_STEPS; step++) {
      // The orthonormal Hermite recurrence, evaluated at z.
      let p1 = pim4
      let p2 = 0
      for (let j = 1; j <= m; j++) {
        const p3 = p2
        p2 = p1
        p1 = z * Math.sqrt(2 / j) * p2 - Math.sqrt((j - 1) / j) * p3
      }
      derivative = Math.sqrt(2 * m) * p2
      const previous = z
      z = previous - p1 / derivative
      if (Math.abs(z - previous) <= TOLERANCE) break
    }
    x[i] = z
    x[m - 1 - i] = -z
    w[i] = 2 / (derivative * derivative)
    w[m - 1 - i] = w[i] as number
  }
  // The middle root of an odd rule is 0 by symmetry; Newton leaves it within rounding of 0.
  if (m % 2 === 1) x[(m - 1) / 2] = 0
  const nodes = new Float64Array(m)
  const weights = new Float64Array(m)
  for (let k = 0; k < m; k++) {
    // Ascending order, for the reader's sake.
    nodes[k] = Math.SQRT2 * (x[m - 1 - k] as number)
    weights[k] = (w[m - 1 - k] as number) / Math.sqrt(Math.PI)
  }
  return { nodes, weights }
}
