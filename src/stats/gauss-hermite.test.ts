import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalQuadrature } from './gauss-hermite.ts'
import { sigmoid } from './logistic.ts'

const expectation = (points: number, f: (z: number) => number) => {
  const { nodes, weights } = normalQuadrature(points)
  let sum = 0
  for (let k = 0; k < nodes.length; k++) sum += (weights[k] as number) * f(nodes[k] as number)
  return sum
}

describe('Gauss–Hermite quadrature over a standard normal', () => {
  it('integrates the normal’s moments exactly: 1, 0, 1, 0, 3, 0, 15, 105 (E[Z⁸])', () => {
    for (const points of [5, 12, 20, 40]) {
      expect(expectation(points, () => 1)).toBeCloseTo(1, 13)
      expect(expectation(points, (z) => z)).toBeCloseTo(0, 13)
      expect(expectation(points, (z) => z * z)).toBeCloseTo(1, 12)
      expect(expectation(points, (z) => z ** 3)).toBeCloseTo(0, 12)
      expect(expectation(points, (z) => z ** 4)).toBeCloseTo(3, 11)
      expect(expectation(points, (z) => z ** 6)).toBeCloseTo(15, 10)
    }
    expect(expectation(5, (z) => z ** 8)).toBeCloseTo(105, 9)
  })

  it('gives E[exp(tZ)] = exp(t²/2) and the logistic-normal mean to many digits', () => {
    fc.assert(
      fc.property(fc.double({ min: -2, max: 2, noNaN: true }), (t) => {
        expect(expectation(30, (z) => Math.exp(t * z)) / Math.exp((t * t) / 2)).toBeCloseTo(1, 12)
      }),
    )
    // By symmetry E[expit(σZ)] = ½ exactly, for any σ.
    expect(expectation(20, (z) => sigmoid(1.3 * z))).toBeCloseTo(0.5, 14)
    // 20 points agree with 60 on a shifted logistic-normal mean to 1e-9.
    const shifted = (z: number) => sigmoid(1.2 + 0.9 * z)
    expect(Math.abs(expectation(20, shifted) - expectation(60, shifted))).toBeLessThan(1e-9)
  })

  it('has nodes in ascending order, symmetric, with positive weights summing to 1', () => {
    const { nodes, weights } = normalQuadrature(9)
    for (let k = 1; k < nodes.length; k++) expect(nodes[k] as number).toBeGreaterThan(nodes[k - 1] as number)
    for (let k = 0; k < nodes.length; k++) {
      expect(nodes[k] as number).toBeCloseTo(-(nodes[nodes.length - 1 - k] as number), 13)
      expect(weights[k] as number).toBeGreaterThan(0)
    }
    expect(nodes[4]).toBe(0)
    expect(() => normalQuadrature(1)).toThrow(RangeError)
  })
})
