import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { FactorContribution } from '../types.ts'
import { byMagnitudeThenKey, HorizonResult, type RankedDeviations } from './horizon-result.ts'

const TERMS = { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2 }

const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']

/** What the evaluator hands over: factors ranked by |deviation|, ties by key. */
function ranked(deviations: number[]): RankedDeviations {
  const order = deviations
    .map((deviation, i) => ({ deviation, key: KEYS[i] as string }))
    .sort((x, y) => Math.abs(y.deviation) - Math.abs(x.deviation) || (x.key < y.key ? -1 : 1))
  return {
    factors: order.map(({ key }) => ({ key, name: `factor ${key}` })),
    deviations: order.map(({ deviation }) => deviation),
  }
}

/** The straightforward answer: every contribution scaled, then one full sort. */
function fullySorted(deviations: number[], scale: number): FactorContribution[] {
  return deviations
    .map((deviation, i) => {
      const raw = scale * deviation
      const contribution = raw === 0 ? 0 : raw
      return {
        key: KEYS[i] as string,
        factor: `factor ${KEYS[i]}`,
        contribution,
        impact: contribution >= 0 ? ('positive' as const) : ('negative' as const),
        magnitude: Math.abs(contribution),
      }
    })
    .sort(byMagnitudeThenKey)
}

// Values close together, so that scaling often rounds two different magnitudes to one.
const nearValues = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }),
  fc.constantFrom(0, -0, 1, -1, 1 + Number.EPSILON, 1 - Number.EPSILON / 2, 3, 3 + 4 * Number.EPSILON),
)

describe('HorizonResult', () => {
  it('gives the full sort’s order and values, whole or cut at any count', () => {
    fc.assert(
      fc.property(
        fc.array(nearValues, { minLength: 1, maxLength: KEYS.length }),
        fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true, min: -5, max: 5 }),
          fc.constantFrom(1 / 3, 0.1, 0),
        ),
        fc.nat({ max: KEYS.length + 1 }),
        (deviations, scale, count) => {
          const expected = fullySorted(deviations, scale)
          const result = new HorizonResult(1, 0.5, 0, 0, ranked(deviations), scale, TERMS)
          expect(result.topContributions(count)).toEqual(expected.slice(0, count))
          expect(result.contributions).toEqual(expected)
          expect(result.topContributions(count)).toEqual(expected.slice(0, count))
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('puts equal magnitudes made by rounding into key order across the cut', () => {
    // 1 + ε and 1 differ, but scaled by the smallest double both round to it: the key decides, so 'a'
    // leads though 'b' ranked first.
    const deviations = [1 + Number.EPSILON, 1]
    const scale = Number.MIN_VALUE
    expect(scale * (deviations[0] as number)).toBe(scale * (deviations[1] as number))
    const order = {
      factors: [
        { key: 'b', name: 'B' },
        { key: 'a', name: 'A' },
      ],
      deviations,
    }
    const result = new HorizonResult(1, 0.5, 0, 0, order, scale, TERMS)
    expect(result.topContributions(1).map((c) => c.key)).toEqual(['a'])
    expect(result.contributions.map((c) => c.key)).toEqual(['a', 'b'])
  })
})
