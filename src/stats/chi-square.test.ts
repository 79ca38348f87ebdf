import fc from 'fast-check'
import { chiSquaredDistributionTable } from 'simple-statistics'
import { describe, expect, it } from 'vitest'
import { chiSquareCdf, chiSquareQuantile, regularizedLowerGamma } from './chi-square.ts'
import { normalQuantile } from './normal.ts'

/** Reference values (R's qchisq and SciPy's chi2.ppf, to 7 significant digits). */
const QUANTILES: readonly [p: number, df: number, x: number][] = [
  [0.95, 1, 3.841459],
  [0.05, 1, 0.00393214],
  [0.05, 3, 0.3518463],
  [0.95, 3, 7.814728],
  [0.05, 5, 1.145476],
  [0.95, 5, 11.0705],
  [0.95, 10, 18.30704],
  [0.99, 10, 23.20925],
  [0.025, 100, 74.22193],
  [0.975, 100, 129.5612],
  [0.999, 0.5, 8.752889],
  [0.001, 7, 0.5984938],
]

describe('chiSquareQuantile', () => {
  it.each(QUANTILES)('answers the quantile %s with %s df to 1e-6 relative (%s)', (p, df, x) => {
    expect(Math.abs(chiSquareQuantile(p, df) / x - 1)).toBeLessThan(1e-6)
  })

  it('agrees with simple-statistics’ two-decimal table for 1 to 100 df (some entries are a hundredth off)', () => {
    for (const [df, row] of Object.entries(chiSquaredDistributionTable))
      for (const [upper, x] of Object.entries(row as unknown as Record<string, number>))
        expect(Math.abs(chiSquareQuantile(1 - Number(upper), Number(df)) - x)).toBeLessThanOrEqual(0.01)
  })

  it('matches the closed forms for 1 df, z²_{(1+p)/2}, and 2 df, −2 ln(1 − p)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 0.999, noNaN: true }), (p) => {
        expect(chiSquareQuantile(p, 2)).toBeCloseTo(-2 * Math.log1p(-p), 9)
        // The normal quantile is good to ~1e-7 absolute: relative to z², only away from p = 0.
        if (p < 0.05) return
        const z = normalQuantile((1 + p) / 2)
        expect(Math.abs(chiSquareQuantile(p, 1) / (z * z) - 1)).toBeLessThan(1e-5)
      }),
    )
  })

  it('round-trips through the CDF', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 1 - 1e-6, noNaN: true }),
        fc.double({ min: 0.2, max: 1000, noNaN: true }),
        (p, df) => {
          expect(chiSquareCdf(chiSquareQuantile(p, df), df)).toBeCloseTo(p, 10)
        },
      ),
      { numRuns: 200 },
    )
  })

  it.each([
    [0, 3],
    [1, 3],
    [0.9, 0],
    [0.9, -1],
    [0.9, Number.NaN],
    [0.9, Number.POSITIVE_INFINITY],
  ])('refuses p = %s with %s df', (p, df) => {
    expect(() => chiSquareQuantile(p, df)).toThrow(RangeError)
  })
})

describe('chiSquareCdf', () => {
  it('is the exponential CDF for 2 df and 0 at or below 0', () => {
    for (const x of [0.01, 0.5, 2, 10, 60]) expect(chiSquareCdf(x, 2)).toBeCloseTo(1 - Math.exp(-x / 2), 14)
    expect(chiSquareCdf(0, 4)).toBe(0)
    expect(chiSquareCdf(-1, 4)).toBe(0)
  })

  it('has mean df: P(a, a) is near ½ for large a, and P is 1 − e^{−x}(1 + x) at a = 2', () => {
    expect(regularizedLowerGamma(5000, 5000)).toBeCloseTo(0.5, 2)
    for (const x of [0.1, 1, 3, 8, 30])
      expect(regularizedLowerGamma(2, x)).toBeCloseTo(1 - Math.exp(-x) * (1 + x), 13)
  })
})
