import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { UncertaintyTerms } from '../types.ts'
import { logit, sigmoid } from './logistic.ts'
import { INTERVAL_LEVEL_MAX, INTERVAL_LEVEL_MIN, survivalInterval } from './survival-interval.ts'

const TERMS: UncertaintyTerms = { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2 }

const logOdds = fc.double({ min: -8, max: 8, noNaN: true })
const level = fc.double({ min: INTERVAL_LEVEL_MIN, max: INTERVAL_LEVEL_MAX, noNaN: true })

describe('survivalInterval', () => {
  it('holds the prediction’s own probability, sigmoid(logOdds), and stays within (0, 1)', () => {
    fc.assert(
      fc.property(logOdds, level, (x, l) => {
        const interval = survivalInterval(x, TERMS, l)
        const p = sigmoid(x)
        expect(interval.lower).toBeLessThanOrEqual(p)
        expect(interval.upper).toBeGreaterThanOrEqual(p)
        expect(interval.lower).toBeGreaterThanOrEqual(0)
        expect(interval.upper).toBeLessThanOrEqual(1)
        expect(interval.level).toBe(l)
      }),
    )
  })

  it('widens with the level', () => {
    fc.assert(
      fc.property(logOdds, level, level, (x, a, b) => {
        fc.pre(Math.abs(a - b) > 1e-9) // not ULPs apart: the quantile is polished to ~1e-15, not exactly
        const [narrow, wide] = a < b ? [a, b] : [b, a]
        const inner = survivalInterval(x, TERMS, narrow)
        const outer = survivalInterval(x, TERMS, wide)
        expect(outer.lower).toBeLessThanOrEqual(inner.lower)
        expect(outer.upper).toBeGreaterThanOrEqual(inner.upper)
      }),
    )
  })

  it('is symmetric on the logit scale, with the half-width √(year² + site²) · z', () => {
    // z(0.95) = 1.6448536; √(0.8² + 0.5²) = 0.9433981
    const interval = survivalInterval(1.2, TERMS, 0.9)
    const half = Math.hypot(0.8, 0.5) * 1.6448536
    expect(logit(interval.lower)).toBeCloseTo(1.2 - half, 5)
    expect(logit(interval.upper)).toBeCloseTo(1.2 + half, 5)
    expect(interval).toEqual({ lower: interval.lower, upper: interval.upper, level: 0.9 })
  })

  it('widens with either uncertainty term and collapses to the point without them', () => {
    const base = survivalInterval(0.5, TERMS, 0.8)
    const wetter = survivalInterval(0.5, { ...TERMS, plantingYearSd: 1.2 }, 0.8)
    const patchier = survivalInterval(0.5, { ...TERMS, siteSd: 0.9 }, 0.8)
    for (const wider of [wetter, patchier]) {
      expect(wider.lower).toBeLessThan(base.lower)
      expect(wider.upper).toBeGreaterThan(base.upper)
    }
    const none = survivalInterval(0.5, { plantingYearSd: 0, siteSd: 0, clumpingDispersion: 1 }, 0.9)
    expect(none.lower).toBe(sigmoid(0.5))
    expect(none.upper).toBe(sigmoid(0.5))
  })

  it('holds its level of outcomes under the stated model (year and site effects on the logit scale)', () => {
    // P(sigmoid(x + Y + S) ≤ lower) = P(Y + S ≤ −half) = (1 − level) / 2, exactly, since both are normal.
    const interval = survivalInterval(0.7, TERMS, 0.9)
    const sd = Math.hypot(0.8, 0.5)
    const zLower = (logit(interval.lower) - 0.7) / sd
    const zUpper = (logit(interval.upper) - 0.7) / sd
    expect(zLower).toBeCloseTo(-1.6448536, 5)
    expect(zUpper).toBeCloseTo(1.6448536, 5)
  })

  it.each([0.49, 0.995, 0, 1, -0.9, Number.NaN])('refuses level %s with a RangeError', (bad) => {
    expect(() => survivalInterval(0, TERMS, bad)).toThrow(RangeError)
  })

  it('accepts the bounds themselves', () => {
    expect(survivalInterval(0, TERMS, INTERVAL_LEVEL_MIN).level).toBe(0.5)
    expect(survivalInterval(0, TERMS, INTERVAL_LEVEL_MAX).level).toBe(0.99)
  })
})
