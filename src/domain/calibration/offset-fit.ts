import type { PlantingMethod } from '../../types.ts'
import { emptyColumns, type PlotColumns } from '../surveys/plot-columns.ts'
import type { PlotObservation } from '../surveys/quasi-binomial.ts'
import { conditionalShift } from './conditional-shift.ts'
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
 * A term the plots cannot estimate keeps the base version's assumption, says so, and has no interval.
 * Every interval is at the `level` fitOffsets is asked for.
 */

export const MIN_YEARS = 3
export const MIN_PLOTS = 30
const BACKFIT_STEPS = 50
const BACKFIT_TOLERANCE = 1e-9

export interface CalibrationPlot extends PlotObservation {
  plantingYear: number
}

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
}

interface Design {
  plots: readonly CalibrationPlot[]
  base: PlotColumns
  /** Plot indices of each group, and each group's key. */
  groups: { speciesCode: string; plantingMethod: PlantingMethod; members: number[] }[]
  years: { year: number; members: number[] }[]
  groupOf: Int32Array
  yearOf: Int32Array
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The plots in one fixed order, so the same plots in any order give the same numbers. */
export function canonicalOrder(input: readonly CalibrationPlot[]): CalibrationPlot[] {
  return [...input].sort(
    (a, b) =>
      compare(a.speciesCode, b.speciesCode) ||
      compare(a.plantingMethod, b.plantingMethod) ||
      a.plantingYear - b.plantingYear ||
      a.predicted - b.predicted ||
      a.planted - b.planted ||
      a.alive - b.alive ||
      a.ageYears - b.ageYears,
  )
}

function designOf(input: readonly CalibrationPlot[]): Design {
  const plots = canonicalOrder(input)
  const base = emptyColumns(plots.length)
  const groupIndex = new Map<string, number>()
  const yearIndex = new Map<number, number>()
  const groups: Design['groups'] = []
  const years: Design['years'] = []
  const groupOf = new Int32Array(plots.length)
  const yearOf = new Int32Array(plots.length)
  plots.forEach((plot, i) => {
    base.planted[i] = plot.planted
    base.alive[i] = plot.alive
    base.predicted[i] = plot.predicted
    base.logits[i] = Math.log(plot.predicted / (1 - plot.predicted))
    base.ageYears[i] = plot.ageYears
    const key = `${plot.speciesCode}/${plot.plantingMethod}`
    let g = groupIndex.get(key)
    if (g === undefined) {
      g = groups.length
      groupIndex.set(key, g)
      groups.push({ speciesCode: plot.speciesCode, plantingMethod: plot.plantingMethod, members: [] })
    }
    groups[g]?.members.push(i)
    groupOf[i] = g
    let y = yearIndex.get(plot.plantingYear)
    if (y === undefined) {
      y = years.length
      yearIndex.set(plot.plantingYear, y)
      years.push({ year: plot.plantingYear, members: [] })
    }
    years[y]?.members.push(i)
    yearOf[i] = y
  })
  return { plots, base, groups, years, groupOf, yearOf }
}

/** The members' columns with each logit moved by `extra(i)`: the effects held while one is solved. */
function shifted(design: Design, members: readonly number[], extra: (i: number) => number): PlotColumns {
  const columns = emptyColumns(members.length)
  members.forEach((i, k) => {
    columns.planted[k] = design.base.planted[i] as number
    columns.alive[k] = design.base.alive[i] as number
    columns.logits[k] = (design.base.logits[i] as number) + extra(i)
  })
  return columns
}

/** Survivors to match: all of them, or N p̃ when every tree lived or died (the logit is then infinite). */
function targetOf(columns: PlotColumns): number {
  let trees = 0
  let alive = 0
  for (let k = 0; k < columns.length; k++) {
    trees += columns.planted[k] as number
    alive += columns.alive[k] as number
  }
  return alive === 0 || alive === trees ? (trees * (alive + 0.5)) / (trees + 1) : alive
}

/**
 * Solves each part's effect (a group's offset, a year's effect) with the other effects held: writes
 * it and its slope, and answers the largest move.
 */
function solveEach(
  design: Design,
  siteVariance: number,
  parts: readonly { members: number[] }[],
  values: Float64Array,
  slopes: Float64Array,
  held: (i: number) => number,
): number {
  let moved = 0
  parts.forEach(({ members }, p) => {
    const columns = shifted(design, members, held)
    const { shift, slope } = conditionalShift(columns, targetOf(columns), siteVariance, values[p])
    moved = Math.max(moved, Math.abs(shift - (values[p] as number)))
    values[p] = shift
    slopes[p] = slope
  })
  return moved
}

/** Offsets and centred year effects, fitted together over a site effect of variance s². */
function backfit(design: Design, siteVariance: number) {
  const offsets = new Float64Array(design.groups.length)
  const effects = new Float64Array(design.years.length)
  const slopes = {
    groups: new Float64Array(design.groups.length),
    years: new Float64Array(design.years.length),
  }
  const trees = design.years.map(({ members }) =>
    members.reduce((sum, i) => sum + (design.base.planted[i] as number), 0),
  )
  const allTrees = trees.reduce((sum, n) => sum + n, 0)
  for (let step = 0; step < BACKFIT_STEPS; step++) {
    let moved = solveEach(
      design,
      siteVariance,
      design.groups,
      offsets,
      slopes.groups,
      (i) => effects[design.yearOf[i] as number] as number,
    )
    moved = Math.max(
      moved,
      solveEach(
        design,
        siteVariance,
        design.years,
        effects,
        slopes.years,
        (i) => offsets[design.groupOf[i] as number] as number,
      ),
    )
    // Centre the year effects (tree-weighted) and move the offsets by as much: the fit is unchanged.
    let centre = 0
    effects.forEach((effect, y) => {
      centre += (effect * (trees[y] as number)) / allTrees
    })
    for (let y = 0; y < effects.length; y++) effects[y] = (effects[y] as number) - centre
    for (let g = 0; g < offsets.length; g++) offsets[g] = (offsets[g] as number) + centre
    if (moved < BACKFIT_TOLERANCE) break
  }
  return { offsets, effects, slopes, trees, allTrees }
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
  fit: { offsets: Float64Array; effects: Float64Array },
  siteVariance: number,
  base: BaseTerms,
  level: number,
) {
  const logits = new Float64Array(design.plots.length)
  for (let i = 0; i < logits.length; i++)
    logits[i] =
      (design.base.logits[i] as number) +
      (fit.offsets[design.groupOf[i] as number] as number) +
      (fit.effects[design.yearOf[i] as number] as number)
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
): OffsetFit {
  const design = designOf(plots)
  let siteVariance = base.siteSd ** 2
  let fit = backfit(design, siteVariance)
  let terms = plotTerms(design, fit, siteVariance, base, level)
  if (terms.site.status === 'estimated') {
    siteVariance = terms.site.value
    fit = backfit(design, siteVariance)
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
  }
}
