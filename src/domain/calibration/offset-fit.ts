import type { PlantingMethod } from '../../types.ts'
import { backfit, type CalibrationPlot, type Design, designOf } from './backfit.ts'
import type { EffectPrior } from './effect-design.ts'
import { type EffectFit, effectFits } from './effect-fit.ts'
import { type PooledOffsets, poolOffsets } from './offset-pooling.ts'
import { qProfileInterval } from './variance-intervals.ts'
import { dispersionTerms, type MomentDesign, type PlotMoments, plotMoments } from './variance-moments.ts'

/*
 * The offsets of a calibration, and the variance terms behind them, from an account's plots.
 *
 * A plot's survivors are taken as aᵢ | uᵢ ~ clumped binomial(nᵢ, expit(logit pᵢ + δ_g + v_y + uᵢ)): its
 * species × method's offset δ_g, its planting year's effect v_y (shared by every plot planted that
 * year), its own site effect uᵢ ~ N(0, s²), and trees that die in clumps (variance φ times the
 * binomial's).
 *
 * 1. Offsets and year effects are fitted together by backfitting: each group's δ_g, then each year's
 *    v_y, solve "expected survivors = survivors" over their plots with the others held, the expectation
 *    taken over the site effect (./conditional-shift.ts); the year effects are centred (weighted by
 *    trees), so an offset is relative to the average surveyed year.
 * 2. Around the fit, each plot's survivors have variance φ Aᵢ + s² Bᵢ (Aᵢ = nᵢ E[q(1 − q)], the
 *    expectation over the site effect; Bᵢ its site part per unit s²): φ and s² by least squares of the
 *    squared residuals on their expectations, allowing for what the fitted effects absorb, with a
 *    sandwich interval for the two-step estimate (./variance-moments.ts), when there are MIN_PLOTS plots.
 * 3. The year effects' variance σ_y² by DerSimonian and Laird's moments over the fitted v_y and their
 *    sampling variances, with the Q-profile interval (./variance-intervals.ts), when the plots span
 *    MIN_YEARS planting years.
 *    Steps 1–3 run twice: the second fit integrates over the site variance the first estimated.
 * 4. An offset is relative to the surveyed years' average effect, itself a draw of variance
 *    σ_y² Σ_y (N_y/N)²: that variance is shared by every offset and added to each. Each group's own
 *    sampling variance is Σᵢ (φ Aᵢ + s² Bᵢ) / (dA/dδ)². The groups are then pooled (./offset-pooling.ts).
 * 5. When plots carry treatment effects the plots can inform (./effect-design.ts), step 1 fits each
 *    effect's Δ = r − r₀ with the offsets and year effects (./backfit.ts); after step 2 each effect's
 *    posterior comes from its estimate and the reference's prior (./effect-fit.ts), and steps 1–2 run
 *    once more with the effects held at the posterior, so the offsets are those that go with it.
 *    Without such plots nothing of this runs, and the numbers are exactly those of a fit without it.
 * A term the plots cannot estimate keeps the base version's assumption, says so, and has no interval.
 * Every interval is at the `level` fitOffsets is asked for.
 */

export const MIN_YEARS = 3
export const MIN_PLOTS = 30

export { type CalibrationPlot, canonicalOrder } from './backfit.ts'

/** A variance term of the calibration: estimated from the plots, or the base version's, kept. */
export interface VarianceTerm {
  value: number
  status: 'estimated' | 'assumption'
  /** The central interval at the fit's level for an estimated term (./variance-intervals.ts); null for an assumption. */
  interval: [low: number, high: number] | null
}

export interface BaseTerms {
  plantingYearSd: number
  siteSd: number
  clumpingDispersion: number
}

export interface OffsetFit extends PooledOffsets {
  yearVariance: VarianceTerm
  siteVariance: VarianceTerm
  clumping: VarianceTerm
  plantingYears: number
  /** Every treatment effect the plots carry (./effect-fit.ts); empty when none does. */
  treatmentEffects: EffectFit[]
}

/** The base version's term, kept: no interval. */
const assumed = (value: number): VarianceTerm => ({ value, status: 'assumption', interval: null })
const estimated = ({ value, interval }: { value: number; interval: [number, number] }): VarianceTerm => ({
  value,
  status: 'estimated',
  interval,
})

/**
 * φ and s² with their intervals (./variance-moments.ts) from the plots' moments about the fitted offsets
 * and year effects, over the s² those were fitted over; the base version's terms when the plots are
 * too few.
 */
function plotTerms(
  design: Design,
  fit: { offsets: Float64Array; effects: Float64Array; shift: Float64Array | null },
  siteVariance: number,
  base: BaseTerms,
  level: number,
) {
  const logits = new Float64Array(design.plots.length)
  for (let i = 0; i < logits.length; i++)
    logits[i] =
      (design.base.logits[i] as number) +
      (fit.offsets[design.groupOf[i] as number] as number) +
      (fit.effects[design.yearOf[i] as number] as number) +
      (fit.shift ? (fit.shift[i] as number) : 0)
  const plots: MomentDesign = {
    planted: design.base.planted,
    alive: design.base.alive,
    logits,
    groupOf: design.groupOf,
    groups: design.groups.length,
    yearOf: design.yearOf,
    years: design.years.length,
  }
  const moments = plotMoments(plots, siteVariance)
  const terms = dispersionTerms(plots, moments, level, MIN_PLOTS)
  if (!terms) return { moments, clumping: assumed(base.clumpingDispersion), site: assumed(base.siteSd ** 2) }
  return { moments, clumping: estimated(terms.clumping), site: estimated(terms.site) }
}

/** Σ over the members of φ Aᵢ + s² Bᵢ: the variance of their survivors' sum, years held. */
function survivorVariance(
  members: readonly number[],
  moments: PlotMoments,
  clumping: number,
  site: number,
): number {
  let variance = 0
  for (const i of members)
    variance += clumping * (moments.binomial[i] as number) + site * (moments.site[i] as number)
  return variance
}

/**
 * σ_y² by DerSimonian and Laird over the fitted year effects and their sampling variances, with the
 * Q-profile interval (./variance-intervals.ts). The value stays the moment estimate: with equal sampling
 * variances it always lies inside the interval; with very unequal ones it could in principle fall just
 * outside (none did in 500 simulated data sets of 3 years).
 */
function yearVariance(
  yearVariances: readonly number[],
  effects: Float64Array,
  base: BaseTerms,
  level: number,
): VarianceTerm {
  if (effects.length < MIN_YEARS) return assumed(base.plantingYearSd ** 2)
  const weights = yearVariances.map((v) => 1 / v)
  const total = weights.reduce((sum, x) => sum + x, 0)
  const mean = weights.reduce((sum, x, y) => sum + x * (effects[y] as number), 0) / total
  const q = weights.reduce((sum, x, y) => sum + x * ((effects[y] as number) - mean) ** 2, 0)
  const scale = total - weights.reduce((sum, x) => sum + x * x, 0) / total
  return {
    value: scale > 0 ? Math.max(0, (q - (effects.length - 1)) / scale) : 0,
    status: 'estimated',
    interval: qProfileInterval(effects, yearVariances, level),
  }
}

/**
 * The pooled offsets of every species × method of `wanted`, and the variance terms, from the plots.
 * Deterministic: the same plots in any order give the same numbers.
 */
export function fitOffsets(
  plots: readonly CalibrationPlot[],
  wanted: readonly { speciesCode: string; plantingMethod: PlantingMethod }[],
  base: BaseTerms,
  level: number,
  /** The reference's prior of each treatment effect the plots may carry, by id. */
  priors: ReadonlyMap<string, EffectPrior> = new Map(),
): OffsetFit {
  const design = designOf(plots, priors)
  let siteVariance = base.siteSd ** 2
  let fit = backfit(design, siteVariance)
  let terms = plotTerms(design, fit, siteVariance, base, level)
  if (terms.site.status === 'estimated') {
    siteVariance = terms.site.value
    fit = backfit(design, siteVariance)
    terms = plotTerms(design, fit, siteVariance, base, level)
  }
  let treatmentEffects: EffectFit[] = []
  if (design.effects.estimable.length + design.effects.uninformed.length > 0) {
    treatmentEffects = effectFits(
      design.effects,
      design.base,
      {
        groupOf: design.groupOf,
        groups: design.groups.length,
        yearOf: design.yearOf,
        years: design.years.length,
      },
      terms.moments,
      { clumping: terms.clumping.value, site: terms.site.value },
      fit.deltas,
      priors,
    )
    // The offsets the version applies are those that go with the effects it applies.
    const applied = Float64Array.from(
      design.effects.estimable,
      (effect) => treatmentEffects.find((e) => e.id === effect.id)?.applied ?? 0,
    )
    fit = backfit(design, siteVariance, applied)
    terms = plotTerms(design, fit, siteVariance, base, level)
  }
  const { moments } = terms
  const clumping = terms.clumping.value
  const site = terms.site.value
  const yearSampling = design.years.map(({ members }, y) => {
    const slope = fit.slopes.years[y] as number
    return survivorVariance(members, moments, clumping, site) / (slope * slope)
  })
  const year = yearVariance(yearSampling, fit.effects, base, level)
  let yearShare = 0
  for (const n of fit.trees) yearShare += (n / fit.allTrees) ** 2
  const shared = year.value * yearShare
  const estimates = design.groups.map(({ speciesCode, plantingMethod, members }, g) => {
    const slope = fit.slopes.groups[g] as number
    return {
      speciesCode,
      plantingMethod,
      estimate: fit.offsets[g] as number,
      variance: survivorVariance(members, moments, clumping, site) / (slope * slope),
      sharedVariance: shared,
      sharedDegrees: year.status === 'estimated' ? design.years.length - 1 : undefined,
    }
  })
  return {
    ...poolOffsets(estimates, wanted, level),
    yearVariance: year,
    siteVariance: terms.site,
    clumping: terms.clumping,
    plantingYears: design.years.length,
    treatmentEffects,
  }
}
