import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalQuantile } from './normal.ts'
import { regularizedIncompleteBeta, studentTCdf, studentTQuantile } from './student-t.ts'

/** Reference values (R's qt to 7 significant digits). */
const QUANTILES: readonly [p: number, df: number, t: number][] = [
  [0.95, 1, 6.313752],
  [0.95, 2, 2.919986],
  [0.95, 5, 2.015048],
  [0.95, 7, 1.894579],
  [0.95, 29, 1.699127],
  [0.95, 30, 1.697261],
  [0.975, 10, 2.228139],
  [0.9995, 1, 636.6192],
  [0.05, 5, -2.015048],
]

describe('studentTQuantile', () => {
  it.each(QUANTILES)('answers the quantile %s with %s df to 1e-6 relative (%s)', (p, df, t) => {
    expect(Math.abs(studentTQuantile(p, df) / t - 1)).toBeLessThan(1e-6)
  })

  it('matches the closed forms for 1 df, tan(π(p − ½)), and 2 df, (2p − 1)/√(2p(1 − p))', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 0.999, noNaN: true }), (p) => {
        expect(studentTQuantile(p, 1)).toBeCloseTo(Math.tan(Math.PI * (p - 0.5)), 8)
        expect(studentTQuantile(p, 2)).toBeCloseTo((2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 8)
      }),
    )
  })

  it('approaches the normal quantile as the degrees of freedom grow', () => {
    expect(studentTQuantile(0.95, 1e6)).toBeCloseTo(normalQuantile(0.95), 5)
    expect(studentTQuantile(0.95, 200)).toBeGreaterThan(normalQuantile(0.95))
  })

  it('round-trips through the CDF and is odd about ½', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 1 - 1e-6, noNaN: true }),
        fc.double({ min: 0.5, max: 500, noNaN: true }),
        (p, df) => {
          expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 10)
          expect(studentTQuantile(1 - p, df) + studentTQuantile(p, df)).toBeCloseTo(0, 8)
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
    expect(() => studentTQuantile(p, df)).toThrow(RangeError)
  })
})

describe('studentTCdf', () => {
  it('is ½ at 0 and matches R’s pt(−2, 3) = 0.06966298', () => {
    expect(studentTCdf(0, 4)).toBe(0.5)
    expect(studentTCdf(-2, 3)).toBeCloseTo(0.06966298, 8)
    expect(studentTCdf(2, 3)).toBeCloseTo(1 - 0.06966298, 8)
  })
})

describe('regularizedIncompleteBeta', () => {
  it('is x^a for b = 1 and 1 − (1 − x)^b for a = 1', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.1, max: 20, noNaN: true }),
        (x, shape) => {
          expect(regularizedIncompleteBeta(x, shape, 1)).toBeCloseTo(x ** shape, 10)
          expect(regularizedIncompleteBeta(x, 1, shape)).toBeCloseTo(1 - (1 - x) ** shape, 10)
        },
      ),
    )
  })
})
