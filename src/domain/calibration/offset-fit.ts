import { sigmoid } from '../../stats/logistic.ts'
import type { PlantingMethod } from '../../types.ts'
import { emptyColumns, type PlotColumns } from '../surveys/plot-columns.ts'
import type { PlotObservation } from '../surveys/quasi-binomial.ts'
import { conditionalShift } from './conditional-shift.ts'
import { type PooledOffsets, poolOffsets } from './offset-pooling.ts'

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
 * 2. Around the fitted shares, with rᵢ = aᵢ − nᵢqᵢ and wᵢ = nᵢqᵢ(1 − qᵢ), E[rᵢ²] ≈ φ wᵢ + s² wᵢ²
 *    (delta method): φ and s² by least squares of rᵢ²/wᵢ on wᵢ, when there are MIN_PLOTS plots.
 * 3. The year effects' variance σ_y² by DerSimonian and Laird's moments over the fitted v_y and their
 *    sampling variances, when the plots span MIN_YEARS planting years.
 *    Steps 1–3 run twice: the second fit integrates over the site variance the first estimated.
 * 4. An offset is relative to the surveyed years' average effect, itself a draw of variance
 *    σ_y² Σ_y (N_y/N)²: that variance is shared by every offset and added to each. Each group's own
 *    sampling variance is Σᵢ (φ wᵢ + s² wᵢ²) / (dA/dδ)². The groups are then pooled (./offset-pooling.ts).
 * A term the plots cannot estimate keeps the base version's assumption, and says so.
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

/** φ and s² from the residuals of the fit: r²/w = φ + s² w, an ordinary least-squares line in w. */
function plotTerms(design: Design, offsets: Float64Array, effects: Float64Array, base: BaseTerms) {
  let n = 0
  let sx = 0
  let sy = 0
  let sxx = 0
  let sxy = 0
  const w = new Float64Array(design.plots.length)
  for (let i = 0; i < design.plots.length; i++) {
    const eta =
      (design.base.logits[i] as number) +
      (offsets[design.groupOf[i] as number] as number) +
      (effects[design.yearOf[i] as number] as number)
    const q = sigmoid(eta)
    const trees = design.base.planted[i] as number
    const variance = trees * q * (1 - q)
    w[i] = variance
    if (!(variance > 0)) continue
    const r = (design.base.alive[i] as number) - trees * q
    const y = (r * r) / variance
    n += 1
    sx += variance
    sy += y
    sxx += variance * variance
    sxy += variance * y
  }
  const determinant = n * sxx - sx * sx
  if (n < MIN_PLOTS || !(determinant > 1e-9 * n * sxx))
    return {
      w,
      clumping: { value: base.clumpingDispersion, status: 'assumption' } as VarianceTerm,
      site: { value: base.siteSd ** 2, status: 'assumption' } as VarianceTerm,
    }
  const siteVariance = (n * sxy - sx * sy) / determinant
  const clumping = (sy - siteVariance * sx) / n
  return {
    w,
    clumping: { value: Math.max(1, clumping), status: 'estimated' } as VarianceTerm,
    site: { value: Math.max(0, siteVariance), status: 'estimated' } as VarianceTerm,
  }
}

/** Σ over the members of φ wᵢ + s² wᵢ²: the variance of their survivors' sum, years held. */
function survivorVariance(
  members: readonly number[],
  w: Float64Array,
  clumping: number,
  site: number,
): number {
  let variance = 0
  for (const i of members) {
    const wi = w[i] as number
    variance += clumping * wi + site * wi * wi
  }
  return variance
}

/** σ_y² by DerSimonian and Laird over the fitted year effects and their sampling variances. */
function yearVariance(
  yearVariances: readonly number[],
  effects: Float64Array,
  base: BaseTerms,
): VarianceTerm {
  if (effects.length < MIN_YEARS) return { value: base.plantingYearSd ** 2, status: 'assumption' }
  const weights = yearVariances.map((v) => 1 / v)
  const total = weights.reduce((sum, x) => sum + x, 0)
  const mean = weights.reduce((sum, x, y) => sum + x * (effects[y] as number), 0) / total
  const q = weights.reduce((sum, x, y) => sum + x * ((effects[y] as number) - mean) ** 2, 0)
  const scale = total - weights.reduce((sum, x) => sum + x * x, 0) / total
  return { value: scale > 0 ? Math.max(0, (q - (effects.length - 1)) / scale) : 0, status: 'estimated' }
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
  let terms = plotTerms(design, fit.offsets, fit.effects, base)
  if (terms.site.status === 'estimated') {
    siteVariance = terms.site.value
    fit = backfit(design, siteVariance)
    terms = plotTerms(design, fit.offsets, fit.effects, base)
  }
  const { w } = terms
  const clumping = terms.clumping.value
  const site = terms.site.value
  const yearSampling = design.years.map(({ members }, y) => {
    const slope = fit.slopes.years[y] as number
    return survivorVariance(members, w, clumping, site) / (slope * slope)
  })
  const year = yearVariance(yearSampling, fit.effects, base)
  let yearShare = 0
  for (const n of fit.trees) yearShare += (n / fit.allTrees) ** 2
  const shared = year.value * yearShare
  const estimates = design.groups.map(({ speciesCode, plantingMethod, members }, g) => {
    const slope = fit.slopes.groups[g] as number
    return {
      speciesCode,
      plantingMethod,
      estimate: fit.offsets[g] as number,
      variance: survivorVariance(members, w, clumping, site) / (slope * slope),
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
