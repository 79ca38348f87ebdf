import { normalQuantile } from '../../stats/normal.ts'
import { studentTQuantile } from '../../stats/student-t.ts'
import type { PlantingMethod } from '../../types.ts'

/*
 * Partial pooling of the species × method offsets (empirical Bayes, normal–normal):
 *   δ̂_g ~ N(δ_g, V_g)          each group's estimate and its sampling variance (from its plots);
 *   δ_g ~ N(μ_m, τ²)            a method's species scatter around the method's mean offset;
 *   μ_m ~ N(0, PRIOR_SD²)       a method's mean offset, mildly held towards 0 (an assumption).
 * τ² is estimated by DerSimonian and Laird's moments over every group, around its method's mean; μ_m is
 * the precision-weighted mean with weights 1 / (V_g + τ²), then shrunk by its prior. Each group's offset
 * is then (1 − B) δ̂_g + B μ_m with B = V_g / (V_g + τ²): a group of few plots (large V_g) moves little
 * from its method's mean, one of many plots keeps its own estimate. A group without plots takes μ_m,
 * with variance τ² + Var(μ_m). The variance of a pooled offset is (1 − B) V_g + B² Var(μ_m) (Morris);
 * it leaves out the uncertainty of τ² itself.
 *
 * Part of an estimate's error may be shared by every group (`sharedVariance`): the planting years'
 * effects, which all groups surveyed in those years carry alike. Pooling cannot average it away, so it
 * is left out of τ² and of the weights, and added whole to every variance.
 */

/** A method's mean offset is held towards 0 by a normal prior of this SD (logit): an assumption. */
export const METHOD_PRIOR_SD = 1

export interface GroupEstimate {
  speciesCode: string
  plantingMethod: PlantingMethod
  estimate: number
  /** The estimate's own sampling variance, > 0: the part that differs from group to group. */
  variance: number
  /** The part of its error every group shares (≥ 0; default 0). */
  sharedVariance?: number
  /** The degrees of freedom behind sharedVariance (an estimate from few years); absent: known. */
  sharedDegrees?: number
}

export interface PooledOffset {
  speciesCode: string
  plantingMethod: PlantingMethod
  offset: number
  variance: number
  /** The central interval at the level asked for. */
  interval: [low: number, high: number]
  /** The group's own estimate; null when no plot informs it. */
  estimate: number | null
  /** B: how far the offset moved from the group's estimate towards its method's mean (0 to 1). */
  shrinkage: number
}

export interface PooledOffsets {
  offsets: PooledOffset[]
  /** Between-species variance of the offsets within a method. */
  betweenSpeciesVariance: number
  methods: { plantingMethod: PlantingMethod; mean: number; variance: number }[]
  /** The shared variance added to every offset's (the largest any group states). */
  sharedVariance: number
}

/** τ² by DerSimonian and Laird's moments, each group around its own method's weighted mean. */
function betweenSpeciesVariance(groups: readonly GroupEstimate[]): number {
  const byMethod = new Map<PlantingMethod, GroupEstimate[]>()
  for (const group of groups)
    byMethod.set(group.plantingMethod, [...(byMethod.get(group.plantingMethod) ?? []), group])
  let q = 0
  let scale = 0
  for (const members of byMethod.values()) {
    const weights = members.map((g) => 1 / g.variance)
    const total = weights.reduce((sum, w) => sum + w, 0)
    const mean = members.reduce((sum, g, i) => sum + (weights[i] as number) * g.estimate, 0) / total
    q += members.reduce((sum, g, i) => sum + (weights[i] as number) * (g.estimate - mean) ** 2, 0)
    scale += total - weights.reduce((sum, w) => sum + w * w, 0) / total
  }
  const degrees = groups.length - byMethod.size
  return degrees > 0 && scale > 0 ? Math.max(0, (q - degrees) / scale) : 0
}

/**
 * Every species × method of `wanted` with its pooled offset: those `groups` inform and those none does.
 * `level`: the central interval's level (0.9 in the API).
 */
export function poolOffsets(
  groups: readonly GroupEstimate[],
  wanted: readonly { speciesCode: string; plantingMethod: PlantingMethod }[],
  level: number,
): PooledOffsets {
  for (const group of groups)
    if (!(group.variance > 0 && Number.isFinite(group.estimate)))
      throw new RangeError(
        `group ${group.speciesCode}/${group.plantingMethod}: an estimate needs a finite value and a positive variance`,
      )
  const tau2 = betweenSpeciesVariance(groups)
  const shared = groups.reduce((most, g) => Math.max(most, g.sharedVariance ?? 0), 0)
  const sharedDegrees = groups.reduce(
    (least, g) => Math.min(least, g.sharedDegrees ?? Number.POSITIVE_INFINITY),
    Number.POSITIVE_INFINITY,
  )
  const methods = [...new Set(wanted.map((w) => w.plantingMethod))].map((plantingMethod) => {
    const members = groups.filter((g) => g.plantingMethod === plantingMethod)
    const precision = members.reduce((sum, g) => sum + 1 / (g.variance + tau2), 0)
    const pooled =
      precision > 0 ? members.reduce((sum, g) => sum + g.estimate / (g.variance + tau2), 0) / precision : 0
    const dataVariance = precision > 0 ? 1 / precision : Number.POSITIVE_INFINITY
    // The prior N(0, PRIOR_SD²) combined with the data's N(pooled, 1 / precision).
    const priorPrecision = 1 / METHOD_PRIOR_SD ** 2
    const variance = 1 / (priorPrecision + precision)
    const mean = precision > 0 ? (pooled / dataVariance) * variance : 0
    return { plantingMethod, mean, variance }
  })
  const methodOf = new Map(methods.map((m) => [m.plantingMethod, m]))
  const methodCount = new Set(groups.map((g) => g.plantingMethod)).size
  const z = normalQuantile((1 + level) / 2)
  const offsets = wanted.map(({ speciesCode, plantingMethod }): PooledOffset => {
    const method = methodOf.get(plantingMethod) as (typeof methods)[number]
    const own = groups.find((g) => g.speciesCode === speciesCode && g.plantingMethod === plantingMethod)
    let offset: number
    let variance: number
    let shrinkage: number
    if (!own) {
      offset = method.mean
      variance = tau2 + method.variance
      shrinkage = 1
    } else {
      shrinkage = tau2 + own.variance > 0 ? own.variance / (own.variance + tau2) : 1
      offset = (1 - shrinkage) * own.estimate + shrinkage * method.mean
      variance = (1 - shrinkage) * own.variance + shrinkage ** 2 * method.variance
      // Morris's term for τ² being estimated: a group far from its mean could have been shrunk less.
      variance +=
        (2 / Math.max(1, groups.length - methodCount - 2)) *
        shrinkage ** 2 *
        (own.estimate - method.mean) ** 2
    }
    // Satterthwaite: the shared part, estimated on few degrees of freedom, makes the total's fewer.
    const degrees =
      shared > 0 && Number.isFinite(sharedDegrees)
        ? ((variance + shared) / shared) ** 2 * sharedDegrees
        : Number.POSITIVE_INFINITY
    variance += shared
    const quantile = Number.isFinite(degrees) ? studentTQuantile((1 + level) / 2, degrees) : z
    const half = quantile * Math.sqrt(variance)
    return {
      speciesCode,
      plantingMethod,
      offset,
      variance,
      interval: [offset - half, offset + half],
      estimate: own ? own.estimate : null,
      shrinkage,
    }
  })
  return { offsets, betweenSpeciesVariance: tau2, methods, sharedVariance: shared }
}
