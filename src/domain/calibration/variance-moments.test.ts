import { describe, expect, it } from 'vitest'
import { betaBinomialDraw, createRandom, normalDraw } from '../../seed/survey-simulation.ts'
import { normalQuadrature } from '../../stats/gauss-hermite.ts'
import { sigmoid } from '../../stats/logistic.ts'
import { dispersionTerms, type MomentDesign, plotMoments } from './variance-moments.ts'

/** One plot of `trees` at logit `eta` (its count is irrelevant to the variance parts). */
function onePlot(eta: number, trees = 50): MomentDesign {
  return {
    planted: Float64Array.of(trees),
    alive: Float64Array.of(Math.round(trees / 2)),
    logits: Float64Array.of(eta),
    groupOf: Int32Array.of(0),
    groups: 1,
    yearOf: Int32Array.of(0),
    years: 1,
  }
}

/** E[q], E[q(1 − q)] and Var(q) over u ~ N(0, s²), by a finer rule than the code's. */
function reference(eta: number, s2: number) {
  const { nodes, weights } = normalQuadrature(80)
  let mean = 0
  let spread = 0
  let square = 0
  nodes.forEach((z, k) => {
    const q = sigmoid(eta + Math.sqrt(s2) * z)
    const w = weights[k] as number
    mean += w * q
    spread += w * q * (1 - q)
    square += w * q * q
  })
  return { mean, spread, variance: square - mean * mean }
}

const at = (eta: number, s2: number, trees = 50) => {
  const m = plotMoments(onePlot(eta, trees), s2)
  return {
    residual: m.residual[0] as number,
    binomial: m.binomial[0] as number,
    site: m.site[0] as number,
    binomialSlope: m.binomialSlope[0] as number,
    siteSlope: m.siteSlope[0] as number,
    binomialDrift: m.binomialDrift[0] as number,
    siteDrift: m.siteDrift[0] as number,
  }
}

describe('plotMoments', () => {
  it.each([
    [-1.5, 0.25],
    [0.4, 0.25],
    [2.5, 0.8],
  ])('at η = %s, s² = %s: the mean, A = n E[q(1 − q)] and B = n² Var(q)/s²', (eta, s2) => {
    const n = 50
    const want = reference(eta, s2)
    const got = at(eta, s2, n)
    expect(got.residual).toBeCloseTo(25 - n * want.mean, 8)
    expect(got.binomial / (n * want.spread)).toBeCloseTo(1, 8)
    expect(got.site / ((n * n * want.variance) / s2)).toBeCloseTo(1, 6)
  })

  it.each([
    [-1.5, 0.25],
    [0.4, 0.25],
    [2.5, 0.8],
  ])('at η = %s, s² = %s: the slopes in η and the drifts in s² match finite differences', (eta, s2) => {
    const h = 1e-4
    const up = at(eta + h, s2)
    const down = at(eta - h, s2)
    const got = at(eta, s2)
    expect(got.binomialSlope / ((up.binomial - down.binomial) / (2 * h))).toBeCloseTo(1, 5)
    expect(got.siteSlope / ((up.site - down.site) / (2 * h))).toBeCloseTo(1, 4)
    // The drift holds the plot's mean: move s² and find the η with the same E[q] by Newton's method.
    const mean = reference(eta, s2).mean
    const heldAt = (variance: number) => {
      let e = eta
      for (let step = 0; step < 20; step++) {
        const r = reference(e, variance)
        e -= (r.mean - mean) / r.spread
      }
      return at(e, variance)
    }
    const later = heldAt(s2 + h)
    const earlier = heldAt(s2 - h)
    expect(got.binomialDrift / ((later.binomial - earlier.binomial) / (2 * h))).toBeCloseTo(1, 4)
    expect(got.siteDrift / ((later.site - earlier.site) / (2 * h))).toBeCloseTo(1, 3)
  })

  it('joins its limits as s² → 0: B is n² (q(1 − q))², and the derivatives carry on', () => {
    const zero = at(0.7, 0)
    const tiny = at(0.7, 1e-6)
    const q = sigmoid(0.7)
    expect(zero.site).toBeCloseTo((50 * q * (1 - q)) ** 2, 10)
    for (const key of ['binomial', 'site', 'binomialSlope', 'siteSlope', 'binomialDrift'] as const)
      expect(tiny[key] / zero[key]).toBeCloseTo(1, 4)
    expect(tiny.siteDrift / zero.siteDrift).toBeCloseTo(1, 2)
  })
})

describe('dispersionTerms', () => {
  const termsOf = (design: MomentDesign, s2: number, level: number) => {
    const terms = dispersionTerms(design, plotMoments(design, s2), level, 30)
    if (!terms) throw new Error('expected terms')
    return terms
  }
  /** Plots at known logits (nothing fitted: one group, one year, so the leverage is tiny). */
  function simulated(seed: number, count: number, phi: number, s2: number): MomentDesign {
    const random = createRandom(seed)
    const planted = new Float64Array(count)
    const alive = new Float64Array(count)
    const logits = new Float64Array(count)
    for (let i = 0; i < count; i++) {
      planted[i] = 20 + Math.floor(random() * 101)
      logits[i] = -1 + 3 * random()
      const p = sigmoid((logits[i] as number) + Math.sqrt(s2) * normalDraw(random))
      alive[i] = betaBinomialDraw(random, planted[i] as number, p, (phi - 1) / ((planted[i] as number) - 1))
    }
    return {
      planted,
      alive,
      logits,
      groupOf: new Int32Array(count),
      groups: 1,
      yearOf: new Int32Array(count),
      years: 1,
    }
  }

  it('finds φ and s² of 4,000 clumped plots, each inside its 90 % interval', () => {
    const design = simulated(0xd15, 4000, 2, 0.25)
    const terms = termsOf(design, 0.25, 0.9)
    expect(terms.plots).toBe(4000)
    expect(terms.clumping.value).toBeGreaterThan(1.6)
    expect(terms.clumping.value).toBeLessThan(2.4)
    expect(terms.site.value).toBeGreaterThan(0.21)
    expect(terms.site.value).toBeLessThan(0.29)
    const [low, high] = terms.site.interval
    expect(low).toBeLessThan(0.25)
    expect(high).toBeGreaterThan(0.25)
    expect(terms.clumping.interval[0]).toBeLessThan(2)
    expect(terms.clumping.interval[1]).toBeGreaterThan(2)
    // A lower level, a narrower interval around the same value.
    const half = termsOf(design, 0.25, 0.5)
    expect(half.site.value).toBe(terms.site.value)
    expect(half.site.interval[0]).toBeGreaterThan(low)
    expect(half.site.interval[1]).toBeLessThan(high)
  })

  it('clips to φ ≥ 1 and s² ≥ 0, the values and both ends', () => {
    const design = simulated(0xb1e, 400, 1, 0)
    const terms = termsOf(design, 0, 0.9)
    expect(terms.clumping.interval[0]).toBeGreaterThanOrEqual(1)
    expect(terms.site.interval[0]).toBeGreaterThanOrEqual(0)
    expect(terms.clumping.value).toBeGreaterThanOrEqual(1)
    expect(terms.site.value).toBeGreaterThanOrEqual(0)
  })

  it('answers null under the fewest plots it is given, or when every plot is alike', () => {
    const design = simulated(0x5, 29, 2, 0.25)
    expect(dispersionTerms(design, plotMoments(design, 0.25), 0.9, 30)).toBeNull()
    const alike: MomentDesign = {
      ...design,
      planted: design.planted.map(() => 50),
      logits: design.logits.map(() => 0.5),
    }
    expect(dispersionTerms(alike, plotMoments(alike, 0.25), 0.9, 3)).toBeNull()
  })
})
