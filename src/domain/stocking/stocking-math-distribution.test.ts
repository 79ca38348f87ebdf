import { describe, expect, it } from 'vitest'
import { member, STAND_LOG_ODDS, TERMS } from '../../../test/support/stocking-mixes.ts'
import { sigmoid } from '../../stats/logistic.ts'
import { normalNodes } from '../../stats/normal.ts'
import { survivalDistribution } from './stocking-math.ts'

describe('survivalDistribution', () => {
  it('gives the model’s own answer as the share-weighted mean over the sites of each species’ survival', () => {
    const members = [member([1, 2, -0.5], 0.6), member([0.3, 0.1, 2.2], 0.4, false)]
    const d = survivalDistribution(members, TERMS)
    const expected =
      (0.6 * (sigmoid(1) + sigmoid(2) + sigmoid(-0.5)) + 0.4 * (sigmoid(0.3) + sigmoid(0.1) + sigmoid(2.2))) /
      3
    expect(d.pointSurvival).toBeCloseTo(expected, 14)
    expect(d.clumpingDispersion).toBe(2)
  })

  it('splits each year node’s survival into what counts in full and what is capped', () => {
    const d = survivalDistribution([member([1.2], 0.7), member([0.4], 0.3, false)], TERMS)
    for (let y = 0; y < d.total.length; y++) {
      expect(d.total[y]).toBeCloseTo((d.full[y] as number) + (d.capped[y] as number), 14)
      expect(d.full[y]).toBeGreaterThan(0)
      expect(d.capped[y]).toBeGreaterThan(0)
      // Year nodes ascend, so the stand's survival rises with them.
      if (y > 0) expect(d.total[y]).toBeGreaterThan(d.total[y - 1] as number)
    }
  })

  it('averages over the year and site effects: E[sigmoid(x + Y + S)] to 1e-3', () => {
    const x = 1.3
    const d = survivalDistribution([member([x])], TERMS)
    const mean = d.total.reduce((a, b) => a + b, 0) / d.total.length
    // A fine reference: Y + S is normal with sd √(0.8² + 0.5²).
    const reference = normalNodes(4000, Math.hypot(0.8, 0.5)).reduce((s, z) => s + sigmoid(x + z), 0) / 4000
    expect(mean).toBeCloseTo(reference, 3)
  })

  it('gives no site variance without a site effect, and less of it over more (independent) sites', () => {
    const none = survivalDistribution([member([1, 1])], { ...TERMS, siteSd: 0 })
    for (const v of none.siteVariance) expect(v).toBeLessThan(1e-15)
    const two = survivalDistribution([member([1, 1])], TERMS)
    const eight = survivalDistribution([member(Array(8).fill(1))], TERMS)
    for (let y = 0; y < two.siteVariance.length; y++) {
      expect(two.siteVariance[y]).toBeGreaterThan(0)
      expect(eight.siteVariance[y]).toBeCloseTo((two.siteVariance[y] as number) / 4, 12)
    }
  })

  it('spreads a single site’s survival over both effects: wider across the year nodes than a stand’s', () => {
    // One site carries its own site effect fully; eight identical sites average theirs away.
    const one = survivalDistribution([member([1])], TERMS)
    const eight = survivalDistribution([member(Array(8).fill(1))], TERMS)
    const spread = (d: { total: Float64Array; siteVariance: Float64Array }) => {
      const mean = d.total.reduce((a, b) => a + b, 0) / d.total.length
      let variance = 0
      for (let y = 0; y < d.total.length; y++)
        variance += ((d.total[y] as number) - mean) ** 2 + (d.siteVariance[y] as number)
      return variance / d.total.length
    }
    expect(spread(one)).toBeGreaterThan(spread(eight))
    // The law of total variance: Var(sigmoid(1 + Y + S)) for Y + S normal with sd √(0.8² + 0.5²).
    const z = normalNodes(4000, Math.hypot(0.8, 0.5))
    const m = z.reduce((sum, x) => sum + sigmoid(1 + x), 0) / z.length
    const v = z.reduce((sum, x) => sum + (sigmoid(1 + x) - m) ** 2, 0) / z.length
    expect(spread(one)).toBeCloseTo(v, 3)
  })

  it('refuses a plan with no site or no species', () => {
    expect(() => survivalDistribution([], TERMS)).toThrow(RangeError)
    expect(() => survivalDistribution([member([])], TERMS)).toThrow(RangeError)
  })

  it('is deterministic', () => {
    const members = [
      member(STAND_LOG_ODDS, 0.5),
      member(
        STAND_LOG_ODDS.map((x) => x - 1),
        0.5,
        false,
      ),
    ]
    const a = survivalDistribution(members, TERMS)
    const b = survivalDistribution(members, TERMS)
    expect([...a.total]).toEqual([...b.total])
    expect([...a.siteVariance]).toEqual([...b.siteVariance])
    expect(a.pointSurvival).toBe(b.pointSurvival)
  })
})
