import type { EffectColumn, EffectPrior } from './effect-design.ts'

/*
 * The posterior of the treatment effects a calibration estimates (./effect-design.ts), by the same
 * conjugate normal step that pools the offsets (./offset-pooling.ts):
 *   Δ̂ ~ N(Δ, Σ)        the effects' own estimates, fitted with the offsets and year effects;
 *   Δ ~ N(0, T)         the reference's prior, T = diag(τₖ²), τₖ the SD its range gives r;
 *   Δ | Δ̂ ~ N(P⁻¹ Σ⁻¹ Δ̂, P⁻¹),  P = Σ⁻¹ + T⁻¹.
 * Σ is the sandwich of the fit's estimating equations (each group's offset, each year's effect, each
 * treatment effect: Σ xᵢ (aᵢ − nᵢ E[qᵢ]) = 0), for the effects with the offsets and year effects
 * profiled out: with the bread B = Σ Aᵢ xᵢxᵢᵀ and the meat M = Σ (φAᵢ + s²Bᵢ) xᵢxᵢᵀ (the plots'
 * variances, ./variance-moments.ts), the effects' influence is S⁻¹ (U_Δ − C U_ν) with S the Schur
 * complement of the nuisance block and C = B_Δν B_νν⁻, so Σ = S⁻¹ (M_ΔΔ − C M_νΔ − M_Δν Cᵀ + C M_νν Cᵀ) S⁻¹.
 * The nuisance block is swept with a generalised inverse (a year held by one group only is then
 * harmless); an effect the others leave nothing of (always applied with another, on the same plots)
 * cannot be estimated and keeps its prior.
 */

/** What the plots bring: each plot's trees-weighted slope Aᵢ and variance φAᵢ + s²Bᵢ, about the fit. */
export interface PosteriorDesign {
  count: number
  groupOf: Int32Array
  groups: number
  yearOf: Int32Array
  years: number
  /** Aᵢ = nᵢ E[q(1 − q)] at the fitted logit. */
  weight: Float64Array
  /** φAᵢ + s²Bᵢ. */
  variance: Float64Array
}

export interface EffectPosterior {
  id: string
  /** The effect's own estimate Δ̂ and its sampling variance. */
  estimate: number
  estimateVariance: number
  /** The posterior of Δ = r − r₀. */
  delta: number
  variance: number
}

const PIVOT_TOLERANCE = 1e-10

/** Sweeps pivot k of the symmetric matrix a (n × n, row-major) in place; false when its pivot is ~0. */
function sweep(a: Float64Array, n: number, k: number, original: number): boolean {
  const d = a[k * n + k] as number
  if (!(d > PIVOT_TOLERANCE * original)) {
    for (let i = 0; i < n; i++) {
      a[i * n + k] = 0
      a[k * n + i] = 0
    }
    return false
  }
  for (let i = 0; i < n; i++) {
    if (i === k) continue
    const aik = a[i * n + k] as number
    if (aik === 0) continue
    for (let j = 0; j < n; j++) {
      if (j === k) continue
      a[i * n + j] = (a[i * n + j] as number) - (aik * (a[k * n + j] as number)) / d
    }
  }
  for (let i = 0; i < n; i++) {
    if (i === k) continue
    a[i * n + k] = (a[i * n + k] as number) / d
    a[k * n + i] = (a[k * n + i] as number) / d
  }
  a[k * n + k] = -1 / d
  return true
}

/** The inverse of the symmetric k × k matrix, and which of its indices it could not invert. */
function invert(matrix: Float64Array, k: number): { inverse: Float64Array; singular: Set<number> } {
  const a = Float64Array.from(matrix)
  const singular = new Set<number>()
  const diagonal = Array.from({ length: k }, (_, i) => matrix[i * k + i] as number)
  for (let i = 0; i < k; i++) if (!sweep(a, k, i, diagonal[i] as number)) singular.add(i)
  for (let i = 0; i < a.length; i++) a[i] = -(a[i] as number)
  return { inverse: a, singular }
}

/** The fit's parameters per plot: its group, its year (the first year the reference), its effects. */
function indexOf(design: PosteriorDesign, effects: readonly EffectColumn[]) {
  const nuisance = design.groups + design.years - 1
  const size = nuisance + effects.length
  return { nuisance, size }
}

/** B and M over every parameter, dense (a few dozen groups and years, a handful of effects). */
function breadAndMeat(design: PosteriorDesign, effects: readonly EffectColumn[]) {
  const { nuisance, size } = indexOf(design, effects)
  const bread = new Float64Array(size * size)
  const meat = new Float64Array(size * size)
  const index: number[] = []
  const value: number[] = []
  for (let i = 0; i < design.count; i++) {
    index.length = 0
    value.length = 0
    index.push(design.groupOf[i] as number)
    value.push(1)
    const year = design.yearOf[i] as number
    if (year > 0) {
      index.push(design.groups + year - 1)
      value.push(1)
    }
    effects.forEach((effect, k) => {
      const s = effect.slopes[i] as number
      if (s !== 0) {
        index.push(nuisance + k)
        value.push(s)
      }
    })
    const w = design.weight[i] as number
    const v = design.variance[i] as number
    for (let p = 0; p < index.length; p++)
      for (let q = 0; q < index.length; q++) {
        const cell = (index[p] as number) * size + (index[q] as number)
        const x = (value[p] as number) * (value[q] as number)
        bread[cell] = (bread[cell] as number) + w * x
        meat[cell] = (meat[cell] as number) + v * x
      }
  }
  return { bread, meat, nuisance, size }
}

/**
 * The sampling covariance of the effects' estimates, the nuisance profiled out; `singular` the
 * effects (by index) the others leave nothing of.
 */
export function effectCovariance(design: PosteriorDesign, effects: readonly EffectColumn[]) {
  const { bread, meat, nuisance, size } = breadAndMeat(design, effects)
  const k = effects.length
  const swept = Float64Array.from(bread)
  for (let p = 0; p < nuisance; p++) sweep(swept, size, p, bread[p * size + p] as number)
  // After the sweep: the effects' block is the Schur complement S, their rows over the nuisance C.
  const schur = new Float64Array(k * k)
  for (let a = 0; a < k; a++)
    for (let b = 0; b < k; b++) schur[a * k + b] = swept[(nuisance + a) * size + nuisance + b] as number
  const c = (a: number, p: number) => swept[(nuisance + a) * size + p] as number
  const m = (p: number, q: number) => meat[p * size + q] as number
  // W = Var(U_Δ − C U_ν), entry by entry.
  const w = new Float64Array(k * k)
  for (let a = 0; a < k; a++)
    for (let b = 0; b < k; b++) {
      let sum = m(nuisance + a, nuisance + b)
      for (let p = 0; p < nuisance; p++) {
        sum -= c(a, p) * m(p, nuisance + b) + m(nuisance + a, p) * c(b, p)
        for (let q = 0; q < nuisance; q++) sum += c(a, p) * m(p, q) * c(b, q)
      }
      w[a * k + b] = sum
    }
  const { inverse, singular } = invert(schur, k)
  const covariance = new Float64Array(k * k)
  for (let a = 0; a < k; a++)
    for (let b = 0; b < k; b++) {
      let sum = 0
      for (let p = 0; p < k; p++)
        for (let q = 0; q < k; q++)
          sum += (inverse[a * k + p] as number) * (w[p * k + q] as number) * (inverse[q * k + b] as number)
      covariance[a * k + b] = sum
    }
  return { covariance, singular }
}

/**
 * The posterior of each effect: its estimate `estimates[k]` with covariance Σ, combined with its
 * prior. Effects in `skip` (by index) are left out of both and answered as null.
 */
export function effectPosteriors(
  effects: readonly EffectColumn[],
  estimates: Float64Array,
  covariance: Float64Array,
  skip: ReadonlySet<number>,
  priors: ReadonlyMap<string, EffectPrior>,
): (EffectPosterior | null)[] {
  const kept = effects.map((_, k) => k).filter((k) => !skip.has(k))
  const n = kept.length
  const sigma = new Float64Array(n * n)
  kept.forEach((a, i) => {
    kept.forEach((b, j) => {
      sigma[i * n + j] = covariance[a * effects.length + b] as number
    })
  })
  const { inverse: dataPrecision } = invert(sigma, n)
  const precision = Float64Array.from(dataPrecision)
  kept.forEach((k, i) => {
    const sd = (priors.get((effects[k] as EffectColumn).id) as EffectPrior).sd
    precision[i * n + i] = (precision[i * n + i] as number) + 1 / (sd * sd)
  })
  const { inverse: posterior } = invert(precision, n)
  const answers: (EffectPosterior | null)[] = effects.map(() => null)
  kept.forEach((k, i) => {
    // P⁻¹ Σ⁻¹ Δ̂, row i.
    let delta = 0
    for (let j = 0; j < n; j++) {
      let informed = 0
      for (let l = 0; l < n; l++)
        informed += (dataPrecision[j * n + l] as number) * (estimates[kept[l] as number] as number)
      delta += (posterior[i * n + j] as number) * informed
    }
    answers[k] = {
      id: (effects[k] as EffectColumn).id,
      estimate: estimates[k] as number,
      estimateVariance: sigma[i * n + i] as number,
      delta,
      variance: posterior[i * n + i] as number,
    }
  })
  return answers
}
