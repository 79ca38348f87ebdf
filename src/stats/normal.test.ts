import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalCdf, normalNodes, normalQuantile } from './normal.ts'

/** Reference values of the standard normal (R's qnorm / pnorm to 10 digits). */
const QUANTILES: readonly [p: number, z: number][] = [
  [0.5, 0],
  [0.8, 0.8416212336],
  [0.9, 1.2815515655],
  [0.95, 1.644853627],
  [0.975, 1.9599639845],
  [0.99, 2.326347874],
  [0.995, 2.5758293035],
  [0.999, 3.0902323062],
  [0.05, -1.644853627],
  [0.001, -3.0902323062],
  [1e-6, -4.7534243088],
]

const CDF: readonly [z: number, p: number][] = [
  [0, 0.5],
  [1, 0.8413447461],
  [-1, 0.1586552539],
  [1.96, 0.9750021049],
  [2.5758293035, 0.995],
  [-3, 0.001349898],
]

describe('normalQuantile', () => {
  it.each(QUANTILES)('answers the quantile of %s to better than 1e-6 (%s)', (p, z) => {
    expect(Math.abs(normalQuantile(p) - z)).toBeLessThan(1e-6)
  })

  it('is far more accurate than probit alone: the 90 % interval really uses z = 1.6449', () => {
    expect(normalQuantile(0.95)).toBeCloseTo(1.6448536, 6)
    expect(normalQuantile(0.995)).toBeCloseTo(2.5758293, 6)
  })

  it('is odd about 1/2: q(1 − p) = −q(p)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-9, max: 0.5, noNaN: true }), (p) => {
        expect(normalQuantile(1 - p) + normalQuantile(p)).toBeCloseTo(0, 6)
      }),
    )
  })

  it('rises strictly with p', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-9, max: 1 - 1e-9, noNaN: true }),
        fc.double({ min: 1e-9, max: 1 - 1e-9, noNaN: true }),
        (a, b) => {
          fc.pre(Math.abs(a - b) > 1e-9)
          const [low, high] = a < b ? [a, b] : [b, a]
          expect(normalQuantile(low)).toBeLessThan(normalQuantile(high))
        },
      ),
    )
  })

  it('round-trips through the CDF: Φ(q(p)) = p', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-8, max: 1 - 1e-8, noNaN: true }), (p) => {
        expect(Math.abs(normalCdf(normalQuantile(p)) - p)).toBeLessThan(1e-12)
      }),
      { numRuns: 500 },
    )
  })

  it('round-trips the other way: q(Φ(z)) = z within the body of the distribution', () => {
    fc.assert(
      fc.property(fc.double({ min: -5, max: 5, noNaN: true }), (z) => {
        expect(Math.abs(normalQuantile(normalCdf(z)) - z)).toBeLessThan(1e-6)
      }),
      { numRuns: 500 },
    )
  })

  it.each([0, 1, -0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'refuses p = %s with a RangeError',
    (p) => {
      expect(() => normalQuantile(p)).toThrow(RangeError)
      expect(() => normalQuantile(p)).toThrow(/strictly between 0 and 1/)
    },
  )
})

describe('normalCdf', () => {
  it.each(CDF)('Φ(%s) = %s to 1e-7', (z, p) => {
    expect(Math.abs(normalCdf(z) - p)).toBeLessThan(1e-7)
  })

  it('is symmetric, Φ(−z) = 1 − Φ(z), and non-decreasing (to 1e-7)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -8, max: 8, noNaN: true }),
        fc.double({ min: 0, max: 4, noNaN: true }),
        (z, step) => {
          expect(normalCdf(-z)).toBeCloseTo(1 - normalCdf(z), 7)
          expect(normalCdf(z + step)).toBeGreaterThanOrEqual(normalCdf(z) - 1e-7)
        },
      ),
    )
  })

  it('is non-decreasing away from the origin, exactly', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 8, noNaN: true }),
        fc.double({ min: 0, max: 4, noNaN: true }),
        fc.boolean(),
        (z, step, negative) => {
          const from = negative ? -z - step : z
          expect(normalCdf(from + step)).toBeGreaterThanOrEqual(normalCdf(from))
        },
      ),
    )
  })

  // simple-statistics' errorFunction (the Numerical Recipes erfc fit) is not exactly 1 at 0; scaled there,
  // Φ is exactly 1/2 at 0 and does not jump (the bisections over Φ need it never to fall).
  it('is exactly 1/2 at the origin, with no jump across 0', () => {
    expect(normalCdf(0)).toBe(0.5)
    expect(normalCdf(0)).toBeGreaterThanOrEqual(normalCdf(-Number.MIN_VALUE))
    expect(Math.abs(normalQuantile(0.5))).toBeLessThan(1e-9)
  })

  it('stays within [0, 1] and reaches its limits far out', () => {
    expect(normalCdf(-40)).toBeGreaterThanOrEqual(0)
    expect(normalCdf(-40)).toBeLessThan(1e-12)
    expect(normalCdf(40)).toBeLessThanOrEqual(1)
    expect(normalCdf(40)).toBeGreaterThan(1 - 1e-12)
  })
})

describe('normalNodes', () => {
  const moments = (nodes: Float64Array) => {
    let sum = 0
    let squares = 0
    for (const x of nodes) {
      sum += x
      squares += x * x
    }
    return { mean: sum / nodes.length, variance: squares / nodes.length }
  }

  it('gives n nodes with mean 0 and variance exactly sd²', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 200 }),
        fc.double({ min: 0.01, max: 5, noNaN: true }),
        (n, sd) => {
          const nodes = normalNodes(n, sd)
          expect(nodes).toHaveLength(n)
          const { mean, variance } = moments(nodes)
          expect(Math.abs(mean)).toBeLessThan(1e-7 * sd)
          expect(variance / (sd * sd)).toBeCloseTo(1, 12)
        },
      ),
    )
  })

  it('is the equal-probability midpoints, sorted, symmetric, and only rescaled', () => {
    const n = 16
    const nodes = normalNodes(n, 0.5)
    const scale = (nodes[n - 1] as number) / normalQuantile((n - 0.5) / n)
    for (let i = 0; i < n; i++) {
      expect(nodes[i]).toBeCloseTo(normalQuantile((i + 0.5) / n) * scale, 12)
      expect((nodes[i] as number) + (nodes[n - 1 - i] as number)).toBeCloseTo(0, 12)
      if (i > 0) expect(nodes[i]).toBeGreaterThan(nodes[i - 1] as number)
    }
    // Midpoints fall short of the tails, so the scale stretches them a little, never shrinks them.
    expect(scale / 0.5).toBeGreaterThan(1)
    expect(scale / 0.5).toBeLessThan(1.1)
  })

  it('is deterministic', () => {
    expect([...normalNodes(64, 0.8)]).toEqual([...normalNodes(64, 0.8)])
  })

  it('makes averages converge on the expectation: E[exp(X)] = exp(sd²/2)', () => {
    const sd = 0.8
    const average = (n: number) => normalNodes(n, sd).reduce((sum, x) => sum + Math.exp(x), 0) / n
    const exact = Math.exp((sd * sd) / 2)
    const errors = [8, 64, 1024].map((n) => Math.abs(average(n) - exact))
    expect(errors[1]).toBeLessThan(errors[0] as number)
    expect(errors[2]).toBeLessThan(errors[1] as number)
    expect(errors[2]).toBeLessThan(1e-3 * exact)
  })

  it('collapses to zeros for sd = 0', () => {
    const nodes = [...normalNodes(5, 0)]
    expect(nodes).toHaveLength(5)
    for (const x of nodes) expect(x === 0).toBe(true)
  })
})
