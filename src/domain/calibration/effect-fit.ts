import { normalQuantile } from '../../stats/normal.ts'
import type { PlotColumns } from '../surveys/plot-columns.ts'
import { type EffectColumn, type EffectPrior, effectDesign, type UninformedEffect } from './effect-design.ts'
import { effectCovariance, effectPosteriors, type PosteriorDesign } from './effect-posterior.ts'
import type { PlotMoments } from './variance-moments.ts'

/*
 * The treatment effects of a calibration, around the offsets' fit (./offset-fit.ts): which the plots
 * can inform (./effect-design.ts), and, once the offsets, year effects and effects are fitted together,
 * each one's posterior (./effect-posterior.ts). The calibrated version applies r₀ + Δ with r kept in
 * [0, 1]: a treatment never lowers survival, and never removes more than its factor's whole penalty.
 */

/** One effect some plots carry, as the fit ends with it. */
export interface EffectFit {
  id: string
  /** Plots it acts on (its factor active). */
  plots: number
  prior: EffectPrior
  /** Its estimate and posterior (Δ = r − r₀); null when the plots cannot inform it. */
  posterior: { estimate: number; estimateVariance: number; delta: number; variance: number } | null
  /** Why the prior is kept; null when estimated. */
  reason: string | null
  /** The Δ the calibrated version applies: the posterior's, r kept in [0, 1]; 0 when the prior is kept. */
  applied: number
}

export interface EffectPlan {
  estimable: EffectColumn[]
  uninformed: UninformedEffect[]
}

/** The structure alone (every plot weighted alike) decides which effects the others leave nothing of. */
export function planEffects(
  count: number,
  slopesOf: (i: number) => Readonly<Record<string, number>> | null | undefined,
  groupOf: Int32Array,
  groups: number,
  yearOf: Int32Array,
  years: number,
  priors: ReadonlyMap<string, EffectPrior>,
): EffectPlan {
  const { estimable, uninformed } = effectDesign(count, slopesOf, groupOf, priors)
  if (estimable.length === 0) return { estimable, uninformed }
  const ones = new Float64Array(count).fill(1)
  const { singular } = effectCovariance(
    { count, groupOf, groups, yearOf, years, weight: ones, variance: ones },
    estimable,
  )
  if (singular.size === 0) return { estimable, uninformed }
  // An effect the others leave nothing of, and every effect sharing plots with it, keep their priors.
  const tangled = new Set<number>()
  for (const k of singular) {
    const members = new Set((estimable[k] as EffectColumn).members)
    estimable.forEach((effect, j) => {
      if (j === k || effect.members.some((i) => members.has(i))) tangled.add(j)
    })
  }
  const reason =
    'it was always applied together with another effect on the same plots: they cannot be told apart'
  return {
    estimable: estimable.filter((_, k) => !tangled.has(k)),
    uninformed: [
      ...uninformed,
      ...estimable
        .filter((_, k) => tangled.has(k))
        .map((effect) => ({ id: effect.id, plots: effect.members.length, reason })),
    ].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  }
}

/** Each plot's move Σₖ sᵢₖ Δₖ. */
export function plotShifts(
  count: number,
  effects: readonly EffectColumn[],
  deltas: Float64Array,
): Float64Array {
  const shift = new Float64Array(count)
  effects.forEach((effect, k) => {
    const delta = deltas[k] as number
    for (const i of effect.members) shift[i] = (shift[i] as number) + (effect.slopes[i] as number) * delta
  })
  return shift
}

const clampShare = (r: number) => Math.min(1, Math.max(0, r))

/**
 * The effects' posteriors from the fit of the offsets, year effects and effects together (`deltas`
 * their estimates), and the plots' moments about it; then every effect the plots carry, in id order.
 */
export function effectFits(
  plan: EffectPlan,
  base: Pick<PlotColumns, 'length'>,
  structure: Omit<PosteriorDesign, 'weight' | 'variance' | 'count'>,
  moments: PlotMoments,
  terms: { clumping: number; site: number },
  deltas: Float64Array,
  priors: ReadonlyMap<string, EffectPrior>,
): EffectFit[] {
  const variance = new Float64Array(base.length)
  for (let i = 0; i < base.length; i++)
    variance[i] = terms.clumping * (moments.binomial[i] as number) + terms.site * (moments.site[i] as number)
  const { covariance, singular } = effectCovariance(
    { ...structure, count: base.length, weight: moments.binomial, variance },
    plan.estimable,
  )
  const k = plan.estimable.length
  const unusable = new Set(singular)
  plan.estimable.forEach((_, a) => {
    const v = covariance[a * k + a] as number
    if (!(Number.isFinite(deltas[a]) && Math.abs(deltas[a] as number) < 50 && v > 0 && Number.isFinite(v)))
      unusable.add(a)
  })
  const posteriors = effectPosteriors(plan.estimable, deltas, covariance, unusable, priors)
  const fits: EffectFit[] = plan.estimable.map((effect, a) => {
    const prior = priors.get(effect.id) as EffectPrior
    const posterior = posteriors[a] ?? null
    const applied = posterior ? clampShare(prior.mean + posterior.delta) - prior.mean : 0
    return {
      id: effect.id,
      plots: effect.members.length,
      prior,
      posterior: posterior
        ? {
            estimate: posterior.estimate,
            estimateVariance: posterior.estimateVariance,
            delta: posterior.delta,
            variance: posterior.variance,
          }
        : null,
      reason: posterior ? null : 'its plots are too few, or all alike, to estimate it',
      applied,
    }
  })
  for (const effect of plan.uninformed)
    fits.push({
      id: effect.id,
      plots: effect.plots,
      prior: priors.get(effect.id) ?? { mean: 0, sd: 0 },
      posterior: null,
      reason: effect.reason,
      applied: 0,
    })
  return fits.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** One effect as a calibration reports it: prior, posterior, its interval, and how far the data moved it. */
export interface EffectSummary {
  id: string
  status: 'estimated' | 'prior'
  plots: number
  priorMean: number
  priorSd: number
  /** The share r the calibrated version applies (in [0, 1]), its SD and central interval at the level. */
  posteriorMean: number
  posteriorSd: number
  interval: [low: number, high: number]
  /** (posterior mean − prior mean) ÷ prior SD. */
  moved: number
  /** Why the prior is kept; null when estimated. */
  reason: string | null
}

export function effectSummary(fit: EffectFit, level: number): EffectSummary {
  const z = normalQuantile((1 + level) / 2)
  const { prior, posterior } = fit
  const centre = posterior ? prior.mean + posterior.delta : prior.mean
  const sd = posterior ? Math.sqrt(posterior.variance) : prior.sd
  const mean = prior.mean + fit.applied
  return {
    id: fit.id,
    status: posterior ? 'estimated' : 'prior',
    plots: fit.plots,
    priorMean: prior.mean,
    priorSd: prior.sd,
    posteriorMean: mean,
    posteriorSd: sd,
    interval: [clampShare(centre - z * sd), clampShare(centre + z * sd)],
    moved: prior.sd > 0 ? (mean - prior.mean) / prior.sd : 0,
    reason: fit.reason,
  }
}
