import { normalQuadrature } from '../../stats/gauss-hermite.ts'
import { sigmoid } from '../../stats/logistic.ts'
import { studentTQuantile } from '../../stats/student-t.ts'

/*
 * The clumping dispersion φ and the site variance s² of a calibration (./offset-fit.ts), by moments of
 * the plots' residuals, each with an interval.
 *
 * A plot of nᵢ trees at fitted logit ηᵢ, site effect u ~ N(0, s²) and q = expit(ηᵢ + u), has
 *   E[aᵢ] = nᵢ E[q],  Var(aᵢ) = φ Aᵢ + s² Bᵢ,  Aᵢ = nᵢ E[q(1 − q)],  Bᵢ = nᵢ² Var(q)/s²,
 * the expectations by Gauss–Hermite quadrature at the s² the offsets were fitted over (Bᵢ is
 * nᵢ² (q(1 − q))² as s² → 0). The residual rᵢ = aᵢ − nᵢ E[q] is taken about fitted effects, which
 * absorb part of it: linearised, rᵢ = eᵢ − Aᵢ(Δδ_g + Δv_y) with Δδ_g = Σ_g eⱼ / S_g (S_g = Σ_g Aⱼ, the
 * group's slope) and Δv_y alike, so with the leverage hᵢ = Aᵢ/S_g + Aᵢ/S_y
 *   E[rᵢ²] ≈ (1 − 2hᵢ) Var(eᵢ) + Aᵢ² (Σ_g Var(eⱼ)/S_g² + Σ_y Var(eⱼ)/S_y²) = φ Ãᵢ + s² B̃ᵢ,
 * Ãᵢ = (1 − hᵢ) Aᵢ, B̃ᵢ = (1 − 2hᵢ) Bᵢ + Aᵢ² (Σ_g Bⱼ/S_g² + Σ_y Bⱼ/S_y²). φ and s² are the least squares
 * of yᵢ = rᵢ²/Aᵢ on (Ãᵢ/Aᵢ, B̃ᵢ/Aᵢ). The leverage matters: regressing rᵢ²/wᵢ on wᵢ = nᵢq(1 − q) at
 * u = 0 (the delta method, no leverage) finds s² about 30 % low and φ 25 % high on simulated plots with
 * φ = 2 and s² = 0.25, the plots with most trees having lost most of their residual to the fit.
 *
 * The interval. The regression's own heteroskedasticity-consistent sandwich is not enough: its
 * regressors are made from estimates (the offsets, the year effects, and the s² they were fitted over,
 * itself the first pass's estimate), whose errors move φ̂ and ŝ² too; alone it covers s² in about 83 %
 * of those simulations, not 90 %. So the variance is the sandwich of the whole two-step estimator
 * (Murphy and Topel 1985; Newey and McFadden 1994, §6): each plot's influence on (φ̂, ŝ²) is
 *   ψᵢ = (XᵀX)⁻¹ [xᵢ ẽᵢ + J_g rᵢ/S_g + J_y rᵢ/S_y],  ẽᵢ = (yᵢ − xᵢθ̂)/(1 − hᵢᵢ) (HC3),
 * where rᵢ/S_g is the plot's influence on its group's offset and J_g = −Σ_g xⱼ (∂Vⱼ/∂η)/Aⱼ how that
 * offset moves the least-squares equations (Vⱼ = φAⱼ + s²Bⱼ), the years alike; then the fitted-over s²
 * moves the estimates by k = (XᵀX)⁻¹ J_s per unit, J_s = −Σ xⱼ (dVⱼ/ds²)/Aⱼ with each plot's mean
 * survival held (as the refit holds its group's), and it carries the plot's influence on ŝ² from the
 * first pass: ψᵢ + k ψᵢ,s². Var(φ̂, ŝ²) = Σ ψᵢψᵢᵀ; the interval is ± Student's t on n − 2 degrees of
 * freedom, each end clipped to φ ≥ 1 and s² ≥ 0 as the values are.
 */

/** Quadrature points, as ./conditional-shift.ts takes them. */
const POINTS = 20
/** Below this s² the site part's moments are taken by their limits as s² → 0. */
const SMALL_VARIANCE = 1e-8
/** Within this |η| the odds at a node are exp(η) exp(s zₖ), one exponential a plot (./conditional-shift.ts). */
const ODDS_LIMIT = 300

export interface MomentDesign {
  planted: Float64Array
  alive: Float64Array
  /** Each plot's fitted logit: the base model's, plus its group's offset and its year's effect. */
  logits: Float64Array
  groupOf: Int32Array
  groups: number
  yearOf: Int32Array
  years: number
}

/** Each plot's residual, the two parts of its variance, and how they move with η and with s². */
export interface PlotMoments {
  siteVariance: number
  residual: Float64Array
  /** Aᵢ and Bᵢ: Var(aᵢ) = φ Aᵢ + s² Bᵢ. */
  binomial: Float64Array
  site: Float64Array
  /** ∂Aᵢ/∂η and ∂Bᵢ/∂η. */
  binomialSlope: Float64Array
  siteSlope: Float64Array
  /** dAᵢ/ds² and dBᵢ/ds², the plot's mean survival held. */
  binomialDrift: Float64Array
  siteDrift: Float64Array
}

/**
 * The moments over u ~ N(0, s²) at each plot's fitted logit. With q′ = q(1 − q), q″ = q′(1 − 2q) and
 * q‴ = q′(1 − 6q′), the derivatives come from the same nodes: ∂E[f]/∂η = E[f′] and
 * ∂E[f]/∂s² = ½ E[f″] (the heat equation), so holding E[q] makes dη/ds² = −½ E[q″]/E[q′].
 */
export function plotMoments(design: MomentDesign, siteVariance: number): PlotMoments {
  const { nodes, weights } = normalQuadrature(POINTS)
  const count = design.planted.length
  const sd = Math.sqrt(siteVariance)
  const factors = nodes.map((z) => Math.exp(sd * z))
  const small = siteVariance < SMALL_VARIANCE
  const moments: PlotMoments = {
    siteVariance,
    residual: new Float64Array(count),
    binomial: new Float64Array(count),
    site: new Float64Array(count),
    binomialSlope: new Float64Array(count),
    siteSlope: new Float64Array(count),
    binomialDrift: new Float64Array(count),
    siteDrift: new Float64Array(count),
  }
  for (let i = 0; i < count; i++) {
    const eta = design.logits[i] as number
    const trees = design.planted[i] as number
    const centre = sigmoid(eta)
    // E[d], E[d²] with d = q − expit(η), so Var(q) keeps its digits; then E[q′], E[q″], E[q‴], E[q′²],
    // and E[d q′], E[d q″] for the covariances ∂Var(q)/∂η = 2 Cov(q, q′), ∂Var(q)/∂s² = E[q′²] + Cov(q, q″).
    let d1 = 0
    let d2 = 0
    let p1 = 0
    let p2 = 0
    let p3 = 0
    let p11 = 0
    let dp1 = 0
    let dp2 = 0
    if (small) {
      p1 = centre * (1 - centre)
      p2 = p1 * (1 - 2 * centre)
      p3 = p1 * (1 - 6 * p1)
    } else {
      const odds = Math.abs(eta) < ODDS_LIMIT ? Math.exp(eta) : Number.NaN
      for (let k = 0; k < POINTS; k++) {
        const w = weights[k] as number
        const o = odds * (factors[k] as number)
        // Past what the odds hold (a huge s², or |η| beyond the limit: o is NaN), the stable sigmoid.
        const q = o < 1e300 ? o / (1 + o) : sigmoid(eta + sd * (nodes[k] as number))
        const d = q - centre
        const q1 = q * (1 - q)
        const q2 = q1 * (1 - 2 * q)
        const q3 = q1 * (1 - 6 * q1)
        d1 += w * d
        d2 += w * d * d
        p1 += w * q1
        p2 += w * q2
        p3 += w * q3
        p11 += w * q1 * q1
        dp1 += w * d * q1
        dp2 += w * d * q2
      }
    }
    const n2 = trees * trees
    let site: number
    let siteSlope: number
    let sitePartial: number // ∂Bᵢ/∂s² at η held
    if (small) {
      // Var(q) = s² q′² + s⁴ (q″²/2 + q′q‴) + …
      site = n2 * p1 * p1
      siteSlope = 2 * n2 * p1 * p2
      sitePartial = n2 * (0.5 * p2 * p2 + p1 * p3)
    } else {
      const variance = Math.max(0, d2 - d1 * d1)
      site = (n2 * variance) / siteVariance
      siteSlope = (n2 * 2 * (dp1 - d1 * p1)) / siteVariance
      sitePartial = (n2 * (p11 + dp2 - d1 * p2)) / siteVariance - site / siteVariance
    }
    // How far η moves per unit s² with E[q] held (0 where q′ vanishes: such a plot has no binomial part).
    const drift = p1 > 0 ? (-0.5 * p2) / p1 : 0
    moments.residual[i] = (design.alive[i] as number) - trees * (centre + d1)
    moments.binomial[i] = trees * p1
    moments.site[i] = site
    moments.binomialSlope[i] = trees * p2
    moments.siteSlope[i] = siteSlope
    moments.binomialDrift[i] = 0.5 * trees * p3 + trees * p2 * drift
    moments.siteDrift[i] = sitePartial + siteSlope * drift
  }
  return moments
}

export interface DispersionTerms {
  clumping: { value: number; interval: [low: number, high: number] }
  site: { value: number; interval: [low: number, high: number] }
  /** Plots behind the fit: those with a binomial variance above 0. */
  plots: number
}

/** The symmetric 2 × 2 inverse [a, b; b, c]⁻¹, or null when singular. */
function inverse2(a: number, b: number, c: number): [number, number, number] | null {
  const determinant = a * c - b * b
  if (!(determinant > 1e-9 * a * c)) return null
  return [c / determinant, -b / determinant, a / determinant]
}

/**
 * φ and s² from the plots' moments, with intervals at `level`: null when fewer than `minPlots` plots
 * have a binomial variance or the two regressors cannot be told apart.
 */
export function dispersionTerms(
  design: MomentDesign,
  moments: PlotMoments,
  level: number,
  minPlots: number,
): DispersionTerms | null {
  const count = design.planted.length
  const { residual, binomial, site } = moments
  const groupSlope = new Float64Array(design.groups)
  const yearSlope = new Float64Array(design.years)
  const groupSite = new Float64Array(design.groups)
  const yearSite = new Float64Array(design.years)
  for (let i = 0; i < count; i++) {
    const g = design.groupOf[i] as number
    const y = design.yearOf[i] as number
    groupSlope[g] = (groupSlope[g] as number) + (binomial[i] as number)
    yearSlope[y] = (yearSlope[y] as number) + (binomial[i] as number)
    groupSite[g] = (groupSite[g] as number) + (site[i] as number)
    yearSite[y] = (yearSite[y] as number) + (site[i] as number)
  }
  // The regression: yᵢ = rᵢ²/Aᵢ on x₁ = Ãᵢ/Aᵢ, x₂ = B̃ᵢ/Aᵢ, over the plots with Aᵢ > 0.
  const used = new Int32Array(count)
  const x1 = new Float64Array(count)
  const x2 = new Float64Array(count)
  const ys = new Float64Array(count)
  let n = 0
  let s11 = 0
  let s12 = 0
  let s22 = 0
  let s1y = 0
  let s2y = 0
  for (let i = 0; i < count; i++) {
    const a = binomial[i] as number
    if (!(a > 0)) continue
    const g = design.groupOf[i] as number
    const y = design.yearOf[i] as number
    const sg = groupSlope[g] as number
    const sy = yearSlope[y] as number
    const leverage = a / sg + a / sy
    const u = 1 - leverage
    const v =
      ((1 - 2 * leverage) * (site[i] as number) +
        a * a * ((groupSite[g] as number) / (sg * sg) + (yearSite[y] as number) / (sy * sy))) /
      a
    const r = residual[i] as number
    const target = (r * r) / a
    used[n] = i
    x1[n] = u
    x2[n] = v
    ys[n] = target
    s11 += u * u
    s12 += u * v
    s22 += v * v
    s1y += u * target
    s2y += v * target
    n += 1
  }
  if (n < Math.max(3, minPlots)) return null
  const bread = inverse2(s11, s12, s22)
  if (!bread) return null
  const [i11, i12, i22] = bread
  const clumping = i11 * s1y + i12 * s2y
  const siteVariance = i12 * s1y + i22 * s2y
  // The Jacobians: how each group's offset, each year's effect and the fitted-over s² move the
  // least-squares equations, at the estimates (φ ≥ 1, s² ≥ 0).
  const phi = Math.max(1, clumping)
  const s2 = Math.max(0, siteVariance)
  const groupJacobian = new Float64Array(2 * design.groups)
  const yearJacobian = new Float64Array(2 * design.years)
  let drift1 = 0
  let drift2 = 0
  for (let k = 0; k < n; k++) {
    const i = used[k] as number
    const a = binomial[i] as number
    const slope = (phi * (moments.binomialSlope[i] as number) + s2 * (moments.siteSlope[i] as number)) / a
    const drift = (phi * (moments.binomialDrift[i] as number) + s2 * (moments.siteDrift[i] as number)) / a
    const u = x1[k] as number
    const v = x2[k] as number
    const g = 2 * (design.groupOf[i] as number)
    const y = 2 * (design.yearOf[i] as number)
    groupJacobian[g] = (groupJacobian[g] as number) - u * slope
    groupJacobian[g + 1] = (groupJacobian[g + 1] as number) - v * slope
    yearJacobian[y] = (yearJacobian[y] as number) - u * slope
    yearJacobian[y + 1] = (yearJacobian[y + 1] as number) - v * slope
    drift1 -= u * drift
    drift2 -= v * drift
  }
  const k1 = i11 * drift1 + i12 * drift2
  const k2 = i12 * drift1 + i22 * drift2
  let v11 = 0
  let v22 = 0
  for (let k = 0; k < n; k++) {
    const i = used[k] as number
    const u = x1[k] as number
    const v = x2[k] as number
    const leverage = u * (i11 * u + i12 * v) + v * (i12 * u + i22 * v)
    const e = ((ys[k] as number) - clumping * u - siteVariance * v) / (1 - leverage)
    const g = design.groupOf[i] as number
    const y = design.yearOf[i] as number
    // The plot's influence on its group's offset and on its year's effect.
    const offsetMove = (residual[i] as number) / (groupSlope[g] as number)
    const yearMove = (residual[i] as number) / (yearSlope[y] as number)
    const score1 =
      u * e + (groupJacobian[2 * g] as number) * offsetMove + (yearJacobian[2 * y] as number) * yearMove
    const score2 =
      v * e +
      (groupJacobian[2 * g + 1] as number) * offsetMove +
      (yearJacobian[2 * y + 1] as number) * yearMove
    // Its influence on this pass's ŝ², and so on the first pass's, which the offsets were fitted over.
    const site = i12 * score1 + i22 * score2
    const clumpingTotal = i11 * score1 + i12 * score2 + k1 * site
    const siteTotal = site + k2 * site
    v11 += clumpingTotal * clumpingTotal
    v22 += siteTotal * siteTotal
  }
  const t = studentTQuantile((1 + level) / 2, n - 2)
  const term = (value: number, variance: number, floor: number) => {
    const half = t * Math.sqrt(variance)
    return {
      value: Math.max(floor, value),
      interval: [Math.max(floor, value - half), Math.max(floor, value + half)] as [number, number],
    }
  }
  return { clumping: term(clumping, v11, 1), site: term(siteVariance, v22, 0), plots: n }
}
