import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type GroupEstimate, poolOffsets } from './offset-pooling.ts'

const group = (speciesCode: string, estimate: number, variance: number): GroupEstimate => ({
  speciesCode,
  plantingMethod: 'manual',
  estimate,
  variance,
})
const want = (...codes: string[]) =>
  codes.map((speciesCode) => ({ speciesCode, plantingMethod: 'manual' as const }))

describe('poolOffsets worked by hand', () => {
  // A: 0.5 ± 0.2, B: −0.1 ± 0.2, C: 0.2 ± 0.4 (estimate ± SD), all hand planting; D has no plots.
  const pooled = poolOffsets(
    [group('A', 0.5, 0.04), group('B', -0.1, 0.04), group('C', 0.2, 0.16)],
    want('A', 'B', 'C', 'D'),
    0.9,
  )

  it('τ² by DerSimonian and Laird: Q = 4.5 on 2 degrees of freedom, scale 33.33 → 0.075', () => {
    // Weights 25, 25, 6.25 (sum 56.25) around their mean 0.2: Q = 25·0.09·2 = 4.5;
    // scale = 56.25 − (625 + 625 + 39.0625)/56.25 = 33.3333; τ² = (4.5 − 2)/33.3333.
    expect(pooled.betweenSpeciesVariance).toBeCloseTo(0.075, 12)
  })

  it('the method’s mean: 0.2 from the weights 1/(V + τ²), held towards 0 by its N(0, 1) prior', () => {
    // Precision Σ 1/(V + τ²) = 21.6466; mean 0.2·21.6466/22.6466 = 0.191169, variance 1/22.6466 = 0.044157.
    const [manual] = pooled.methods
    expect(manual?.mean).toBeCloseTo(0.191169, 6)
    expect(manual?.variance).toBeCloseTo(0.044157, 6)
  })

  it('a group moves from its estimate towards the mean by B = V/(V + τ²); one without plots takes the mean', () => {
    // A: B = 0.04/0.115 = 0.347826; 0.652174·0.5 + 0.347826·0.191169 = 0.392580;
    // variance 0.652174·0.04 + 0.347826²·0.044157 = 0.031429, plus Morris's 2/max(1, 3 − 1 − 2) · B² ·
    // (0.5 − 0.191169)² = 0.023078: 0.054507; 90 %: ± 1.644854·√0.054507 = ± 0.384020.
    const [a, , , d] = pooled.offsets
    expect(a?.shrinkage).toBeCloseTo(0.347826, 6)
    expect(a?.offset).toBeCloseTo(0.39258, 5)
    expect(a?.variance).toBeCloseTo(0.054507, 6)
    expect((a?.interval[1] as number) - (a?.offset as number)).toBeCloseTo(0.38402, 5)
    expect(d).toMatchObject({ estimate: null, shrinkage: 1 })
    expect(d?.offset).toBeCloseTo(0.191169, 6)
    expect(d?.variance).toBeCloseTo(0.075 + 0.044157, 6)
  })
})

describe('poolOffsets, properties', () => {
  const estimates = fc.array(
    fc.record({
      estimate: fc.double({ min: -2, max: 2, noNaN: true }),
      variance: fc.double({ min: 1e-4, max: 4, noNaN: true }),
    }),
    { minLength: 1, maxLength: 12 },
  )

  it('each offset lies between its estimate and its method’s mean, and its interval holds it', () => {
    fc.assert(
      fc.property(estimates, (list) => {
        const groups = list.map((g, i) => group(`S${i}`, g.estimate, g.variance))
        const { offsets, methods } = poolOffsets(groups, want(...groups.map((g) => g.speciesCode)), 0.9)
        const mean = methods[0]?.mean as number
        for (const [i, pooledOffset] of offsets.entries()) {
          const own = list[i]?.estimate as number
          expect(pooledOffset.offset).toBeGreaterThanOrEqual(Math.min(own, mean) - 1e-12)
          expect(pooledOffset.offset).toBeLessThanOrEqual(Math.max(own, mean) + 1e-12)
          expect(pooledOffset.interval[0]).toBeLessThanOrEqual(pooledOffset.offset)
          expect(pooledOffset.interval[1]).toBeGreaterThanOrEqual(pooledOffset.offset)
          expect(pooledOffset.shrinkage).toBeGreaterThanOrEqual(0)
          expect(pooledOffset.shrinkage).toBeLessThanOrEqual(1)
        }
      }),
    )
  })

  it('a precise group keeps its own estimate; with no plots anywhere every offset is 0 ± the prior', () => {
    const sharp = poolOffsets(
      [group('A', 0.7, 1e-8), group('B', -0.5, 0.5), group('C', 0.1, 0.5)],
      want('A'),
      0.9,
    )
    expect(sharp.offsets[0]?.offset).toBeCloseTo(0.7, 5)
    const none = poolOffsets([], want('A'), 0.9)
    expect(none.offsets[0]).toMatchObject({ offset: 0, estimate: null })
    expect(none.offsets[0]?.variance).toBeCloseTo(1, 12)
    expect(() => poolOffsets([group('A', 0.1, 0)], want('A'), 0.9)).toThrow(RangeError)
  })
})
