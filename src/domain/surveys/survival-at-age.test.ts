import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { logit, sigmoid } from '../../stats/logistic.ts'
import { ageInYears, logitSlopeAtAge, survivalAtAge } from './survival-at-age.ts'

const AT = { 1: 0.9, 3: 0.8, 5: 0.7 }

describe('survival at a plot’s age', () => {
  it('is the model’s own value at 1, 3 and 5 years', () => {
    expect(survivalAtAge(AT, 1)).toBeCloseTo(0.9, 12)
    expect(survivalAtAge(AT, 3)).toBeCloseTo(0.8, 12)
    expect(survivalAtAge(AT, 5)).toBeCloseTo(0.7, 12)
  })

  it('between horizons, lies on the straight line in the logit (worked by hand at 2 and 4 years)', () => {
    // logit 0.9 = 2.197225, logit 0.8 = 1.386294: halfway 1.791759 → 0.857143 (= 6/7).
    expect(survivalAtAge(AT, 2)).toBeCloseTo(6 / 7, 6)
    // logit 0.8 = 1.386294, logit 0.7 = 0.847298: halfway 1.116796 → 0.753394.
    expect(survivalAtAge(AT, 4)).toBeCloseTo(sigmoid((logit(0.8) + logit(0.7)) / 2), 12)
    expect(survivalAtAge(AT, 4)).toBeCloseTo(0.753394, 6)
  })

  it('past 5 years carries on the 3→5 decline at its rate in the logit', () => {
    const step = (logit(0.7) - logit(0.8)) / 2
    expect(survivalAtAge(AT, 7)).toBeCloseTo(sigmoid(logit(0.7) + 2 * step), 12)
    expect(survivalAtAge(AT, 10)).toBeCloseTo(sigmoid(logit(0.7) + 5 * step), 12)
  })

  it('before 1 year, is S₁ to the power of the age: 1 at planting, S₁ at one year', () => {
    expect(survivalAtAge(AT, 0.25)).toBeCloseTo(0.9 ** 0.25, 12)
    expect(survivalAtAge(AT, 0.5)).toBeCloseTo(Math.sqrt(0.9), 12)
  })

  it('is continuous and, for a declining model, never rises with age', () => {
    const declining = fc
      .tuple(
        fc.double({ min: 0.02, max: 0.98, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
      )
      .map(([s1, f3, f5]) => {
        const s3 = s1 * (0.2 + 0.8 * f3)
        return { 1: s1, 3: s3, 5: s3 * (0.2 + 0.8 * f5) }
      })
    fc.assert(
      fc.property(declining, fc.double({ min: 0.25, max: 9.9, noNaN: true }), (survival, age) => {
        const here = survivalAtAge(survival, age)
        const later = survivalAtAge(survival, age + 0.1)
        expect(here).toBeGreaterThan(0)
        expect(here).toBeLessThan(1)
        expect(later).toBeLessThanOrEqual(here + 1e-12)
        // No jump at the horizons.
        for (const h of [1, 3, 5])
          expect(
            Math.abs(survivalAtAge(survival, h - 1e-9) - survivalAtAge(survival, h + 1e-9)),
          ).toBeLessThan(1e-6)
      }),
    )
  })

  it('refuses an age that is not positive', () => {
    expect(() => survivalAtAge(AT, 0)).toThrow(RangeError)
    expect(() => survivalAtAge(AT, Number.NaN)).toThrow(RangeError)
  })
})

describe('age in years', () => {
  it('counts whole days in years of 365.25 days', () => {
    expect(ageInYears(new Date('2020-03-01'), new Date('2025-03-01'))).toBeCloseTo(1826 / 365.25, 12)
    expect(ageInYears(new Date('2024-03-01'), new Date('2024-06-01'))).toBeCloseTo(92 / 365.25, 12)
  })
})

describe('logitSlopeAtAge', () => {
  it('is the derivative of logit(survivalAtAge) when the horizons’ logits move by their slopes', () => {
    const ages = [0.25, 0.5, 0.99, 1, 1.7, 3, 4.2, 5, 7.5, 10]
    const survival = { 1: 0.9, 3: 0.78, 5: 0.7 }
    const slopes = { 1: 0.4, 3: 0.9, 5: 1.3 }
    const moved = (theta: number) => ({
      1: sigmoid(logit(survival[1]) + theta * slopes[1]),
      3: sigmoid(logit(survival[3]) + theta * slopes[3]),
      5: sigmoid(logit(survival[5]) + theta * slopes[5]),
    })
    const h = 1e-6
    for (const age of ages) {
      const numeric = (logit(survivalAtAge(moved(h), age)) - logit(survivalAtAge(moved(-h), age))) / (2 * h)
      expect(logitSlopeAtAge(survival, slopes, age)).toBeCloseTo(numeric, 6)
    }
  })
})
