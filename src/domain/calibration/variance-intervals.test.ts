import { describe, expect, it } from 'vitest'
import { createRandom, normalDraw } from '../../seed/survey-simulation.ts'
import { chiSquareQuantile } from '../../stats/chi-square.ts'
import { generalisedQ, qProfileInterval } from './variance-intervals.ts'

describe('qProfileInterval', () => {
  it('with equal sampling variances v is the chi-square interval S/χ² − v, clipped at 0', () => {
    // Q(τ²) = S/(v + τ²), S the effects' sum of squares about their mean.
    const effects = [0.9, -0.4, 0.1, 1.3, -1.1, 0.2]
    const v = 0.05
    const mean = effects.reduce((sum, y) => sum + y, 0) / effects.length
    const squares = effects.reduce((sum, y) => sum + (y - mean) ** 2, 0)
    const [low, high] = qProfileInterval(
      effects,
      effects.map(() => v),
      0.9,
    )
    expect(low).toBeCloseTo(squares / chiSquareQuantile(0.95, 5) - v, 10)
    expect(high).toBeCloseTo(squares / chiSquareQuantile(0.05, 5) - v, 10)
  })

  it('has Q at its ends equal to the chi-square quantiles, for unequal sampling variances', () => {
    const effects = [0.5, -0.7, 0.05, 1.1, -0.9]
    const variances = [0.01, 0.2, 0.05, 0.02, 0.4]
    const [low, high] = qProfileInterval(effects, variances, 0.8)
    expect(low).toBeGreaterThan(0)
    expect(generalisedQ(effects, variances, low)).toBeCloseTo(chiSquareQuantile(0.9, 4), 8)
    expect(generalisedQ(effects, variances, high)).toBeCloseTo(chiSquareQuantile(0.1, 4), 8)
    const [wideLow, wideHigh] = qProfileInterval(effects, variances, 0.95)
    expect(wideLow).toBeLessThan(low)
    expect(wideHigh).toBeGreaterThan(high)
  })

  it('ends at 0 when the effects scatter no more than their sampling variances say', () => {
    expect(qProfileInterval([0.1, 0.1, 0.1], [0.2, 0.2, 0.2], 0.9)).toEqual([0, 0])
    const [low, high] = qProfileInterval([0.1, -0.1, 0.05, 0], [0.04, 0.04, 0.04, 0.04], 0.9)
    expect(low).toBe(0)
    expect(high).toBeGreaterThan(0)
  })

  it('holds the true τ² in about 90 % of 4,000 draws of 6 effects with unequal known variances', () => {
    const random = createRandom(0x9_9f11e)
    const tau2 = 0.64
    const variances = [0.01, 0.02, 0.05, 0.1, 0.3, 0.6]
    const draws = 4000
    let held = 0
    for (let draw = 0; draw < draws; draw++) {
      const effects = variances.map((v) => Math.sqrt(tau2 + v) * normalDraw(random))
      const [low, high] = qProfileInterval(effects, variances, 0.9)
      if (low <= tau2 && tau2 <= high) held++
    }
    // Exact under this model: the binomial's SD over 4,000 draws is 0.5 percentage points.
    expect(held / draws).toBeGreaterThan(0.885)
    expect(held / draws).toBeLessThan(0.915)
  })

  it('refuses fewer than two effects or mismatched variances', () => {
    expect(() => qProfileInterval([0.3], [0.1], 0.9)).toThrow(RangeError)
    expect(() => qProfileInterval([0.3, 0.1], [0.1], 0.9)).toThrow(RangeError)
  })
})
