import type { PlantingMethod } from '../../types.ts'
import { emptyColumns, type PlotColumns } from '../surveys/plot-columns.ts'
import type { PlotObservation } from '../surveys/quasi-binomial.ts'
import { conditionalShift } from './conditional-shift.ts'
import { type EffectPrior, solveEffect } from './effect-design.ts'
import { type EffectPlan, planEffects, plotShifts } from './effect-fit.ts'

/*
 * The joint fit behind a calibration (./offset-fit.ts explains the model): the plots in one fixed
 * order, and the offsets, year effects and treatment effects fitted together by backfitting.
 */

const BACKFIT_STEPS = 50
const BACKFIT_TOLERANCE = 1e-9

export interface CalibrationPlot extends PlotObservation {
  plantingYear: number
  /** Per treatment effect its treatments applied (by id): ∂logit(predicted)/∂r (SurveyPlot.treatmentSlopes). */
  treatmentSlopes?: Readonly<Record<string, number>> | null
}

export interface Design {
  plots: readonly CalibrationPlot[]
  base: PlotColumns
  /** Plot indices of each group, and each group's key. */
  groups: { speciesCode: string; plantingMethod: PlantingMethod; members: number[] }[]
  years: { year: number; members: number[] }[]
  groupOf: Int32Array
  yearOf: Int32Array
  /** The treatment effects the plots can inform, and those they cannot. */
  effects: EffectPlan
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
      a.ageYears - b.ageYears ||
      compare(slopesKey(a), slopesKey(b)),
  )
}

/** A plot's treatment slopes as text, to order plots alike in all else; '' without. */
function slopesKey(plot: CalibrationPlot): string {
  const slopes = plot.treatmentSlopes
  return slopes ? JSON.stringify(Object.entries(slopes).sort(([a], [b]) => compare(a, b))) : ''
}

export function designOf(
  input: readonly CalibrationPlot[],
  priors: ReadonlyMap<string, EffectPrior>,
): Design {
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
  const effects = planEffects(
    plots.length,
    (i) => plots[i]?.treatmentSlopes,
    groupOf,
    groups.length,
    yearOf,
    years.length,
    priors,
  )
  return { plots, base, groups, years, groupOf, yearOf, effects }
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

/**
 * Each treatment effect's Δ with the offsets, year effects and other effects held
 * (./effect-design.ts); updates the plots' shifts, and answers the largest move.
 */
function solveEffects(
  design: Design,
  siteVariance: number,
  fit: { offsets: Float64Array; effects: Float64Array },
  deltas: Float64Array,
  shift: Float64Array,
): number {
  let moved = 0
  design.effects.estimable.forEach((effect, k) => {
    const before = deltas[k] as number
    const held = (i: number) =>
      (design.base.logits[i] as number) +
      (fit.offsets[design.groupOf[i] as number] as number) +
      (fit.effects[design.yearOf[i] as number] as number) +
      (shift[i] as number) -
      (effect.slopes[i] as number) * before
    const { base } = design
    const { delta } = solveEffect(effect, base.planted, base.alive, held, siteVariance, before)
    for (const i of effect.members)
      shift[i] = (shift[i] as number) + (effect.slopes[i] as number) * (delta - before)
    deltas[k] = delta
    moved = Math.max(moved, Math.abs(delta - before))
  })
  return moved
}

/**
 * Offsets and centred year effects, fitted together over a site effect of variance s²; with the
 * treatment effects the plots inform, estimated with them, or held at `fixed`.
 */
export function backfit(design: Design, siteVariance: number, fixed: Float64Array | null = null) {
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
  const estimable = design.effects.estimable
  const deltas = fixed ? Float64Array.from(fixed) : new Float64Array(estimable.length)
  // Without effects the held terms are exactly as they were before effects existed.
  const shift = estimable.length > 0 ? plotShifts(design.plots.length, estimable, deltas) : null
  for (let step = 0; step < BACKFIT_STEPS; step++) {
    let moved = solveEach(
      design,
      siteVariance,
      design.groups,
      offsets,
      slopes.groups,
      shift
        ? (i) => (effects[design.yearOf[i] as number] as number) + (shift[i] as number)
        : (i) => effects[design.yearOf[i] as number] as number,
    )
    moved = Math.max(
      moved,
      solveEach(
        design,
        siteVariance,
        design.years,
        effects,
        slopes.years,
        shift
          ? (i) => (offsets[design.groupOf[i] as number] as number) + (shift[i] as number)
          : (i) => offsets[design.groupOf[i] as number] as number,
      ),
    )
    if (shift && !fixed)
      moved = Math.max(moved, solveEffects(design, siteVariance, { offsets, effects }, deltas, shift))
    // Centre the year effects (tree-weighted) and move the offsets by as much: the fit is unchanged.
    let centre = 0
    effects.forEach((effect, y) => {
      centre += (effect * (trees[y] as number)) / allTrees
    })
    for (let y = 0; y < effects.length; y++) effects[y] = (effects[y] as number) - centre
    for (let g = 0; g < offsets.length; g++) offsets[g] = (offsets[g] as number) + centre
    if (moved < BACKFIT_TOLERANCE) break
  }
  return { offsets, effects, slopes, trees, allTrees, deltas, shift }
}
