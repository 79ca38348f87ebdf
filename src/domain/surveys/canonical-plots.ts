import { logit } from '../../stats/logistic.ts'
import { PLANTING_METHODS, type PlantingMethod } from '../../types.ts'
import { emptyColumns, type PlotColumns } from './plot-columns.ts'
import { canonicalOrder } from './plot-order.ts'
import type { PlotObservation } from './quasi-binomial.ts'

/*
 * The survey report's plots checked, put in one fixed order and laid out as columns. Every sum of the
 * report then runs in that order, so the same plots give the same numbers in whatever order they came.
 * The order is species code, planting method, age, prediction, trees planted, trees alive: each species ×
 * method, and each age band within it, is then one run of consecutive plots.
 */

export type AgeBand = 'under_2' | '2_to_4' | 'over_4'
export const AGE_BANDS: readonly AgeBand[] = ['under_2', '2_to_4', 'over_4']

export function ageBand(ageYears: number): AgeBand {
  if (ageYears < 2) return 'under_2'
  return ageYears <= 4 ? '2_to_4' : 'over_4'
}

/** Plots of one species × method as a store reads them: a column per field, entry i of each the same plot. */
export interface SpeciesMethodColumns {
  speciesCode: string
  plantingMethod: PlantingMethod
  planted: ArrayLike<number>
  alive: ArrayLike<number>
  predicted: ArrayLike<number>
  ageYears: ArrayLike<number>
}

/** Plots start to end − 1 of the canonical columns. */
export interface PlotSpan {
  start: number
  end: number
}

export interface SpeciesMethodSpan extends PlotSpan {
  speciesCode: string
  plantingMethod: PlantingMethod
  /** Its plots by age band, in AGE_BANDS order; bands without plots left out. */
  bands: (PlotSpan & { ageBand: AgeBand })[]
}

export interface CanonicalPlots {
  columns: PlotColumns
  /** By species code, then planting method in PLANTING_METHODS order. */
  speciesMethods: SpeciesMethodSpan[]
}

/** What makes a plot's numbers impossible, or null. */
function numbersProblem(planted: number, alive: number, predicted: number, ageYears: number): string | null {
  return !Number.isInteger(planted) || planted < 1
    ? `planted must be a whole number ≥ 1, got ${planted}`
    : !Number.isInteger(alive) || alive < 0 || alive > planted
      ? `alive must be a whole number from 0 to planted (${planted}), got ${alive}`
      : !(predicted > 0 && predicted < 1)
        ? `predicted must lie strictly between 0 and 1, got ${predicted}`
        : !(ageYears > 0 && Number.isFinite(ageYears))
          ? `age must be a positive number of years, got ${ageYears}`
          : null
}

function methodProblem(plantingMethod: PlantingMethod): string | null {
  return PLANTING_METHODS.includes(plantingMethod) ? null : `unknown planting method ${plantingMethod}`
}

function refuse(index: number, problem: string | null): void {
  if (problem) throw new RangeError(`plot ${index}: ${problem}`)
}

const cellKey = (speciesCode: string, plantingMethod: string) => `${speciesCode}\u0000${plantingMethod}`

function observationCells(plots: readonly PlotObservation[]): SpeciesMethodColumns[] {
  plots.forEach(({ planted, alive, predicted, ageYears, plantingMethod }, index) => {
    refuse(index, numbersProblem(planted, alive, predicted, ageYears) ?? methodProblem(plantingMethod))
  })
  const cells = new Map<
    string,
    SpeciesMethodColumns & Record<'planted' | 'alive' | 'predicted' | 'ageYears', number[]>
  >()
  for (const { speciesCode, plantingMethod, planted, alive, predicted, ageYears } of plots) {
    const key = cellKey(speciesCode, plantingMethod)
    let cell = cells.get(key)
    if (!cell) {
      cell = { speciesCode, plantingMethod, planted: [], alive: [], predicted: [], ageYears: [] }
      cells.set(key, cell)
    }
    cell.planted.push(planted)
    cell.alive.push(alive)
    cell.predicted.push(predicted)
    cell.ageYears.push(ageYears)
  }
  return [...cells.values()]
}

/** Checked, with parts of one species × method (which no store sends) joined into one. */
function checkedCells(parts: readonly SpeciesMethodColumns[]): SpeciesMethodColumns[] {
  let index = 0
  const cells = new Map<string, SpeciesMethodColumns[]>()
  for (const part of parts) {
    const { speciesCode, plantingMethod, planted, alive, predicted, ageYears } = part
    const length = planted.length
    if (alive.length !== length || predicted.length !== length || ageYears.length !== length)
      throw new RangeError(`${speciesCode} ${plantingMethod}: columns of different lengths`)
    const method = methodProblem(plantingMethod)
    for (let i = 0; i < length; i++) {
      const numbers = numbersProblem(
        planted[i] as number,
        alive[i] as number,
        predicted[i] as number,
        ageYears[i] as number,
      )
      refuse(index++, numbers ?? method)
    }
    const key = cellKey(speciesCode, plantingMethod)
    cells.set(key, [...(cells.get(key) ?? []), part])
  }
  return [...cells.values()].map((same) => {
    const [first] = same as [SpeciesMethodColumns]
    if (same.length === 1) return first
    const joined = (field: 'planted' | 'alive' | 'predicted' | 'ageYears') =>
      same.flatMap((part) => Array.from(part[field]))
    return {
      speciesCode: first.speciesCode,
      plantingMethod: first.plantingMethod,
      planted: joined('planted'),
      alive: joined('alive'),
      predicted: joined('predicted'),
      ageYears: joined('ageYears'),
    }
  })
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Age bands of plots start to end − 1, which are in order of age. */
function bandSpans(ageYears: Float64Array, start: number, end: number): SpeciesMethodSpan['bands'] {
  const bands: SpeciesMethodSpan['bands'] = []
  for (let from = start; from < end; ) {
    const band = ageBand(ageYears[from] as number)
    let to = from + 1
    while (to < end && ageBand(ageYears[to] as number) === band) to++
    bands.push({ ageBand: band, start: from, end: to })
    from = to
  }
  return bands
}

const isColumnar = (
  input: readonly PlotObservation[] | readonly SpeciesMethodColumns[],
): input is readonly SpeciesMethodColumns[] => typeof input[0]?.planted === 'object'

/** The plots, checked (a RangeError names the first impossible one), in canonical order as columns. */
export function canonicalPlots(
  input: readonly PlotObservation[] | readonly SpeciesMethodColumns[],
): CanonicalPlots {
  const cells = isColumnar(input) ? checkedCells(input) : observationCells(input)
  cells.sort(
    (a, b) =>
      byText(a.speciesCode, b.speciesCode) ||
      PLANTING_METHODS.indexOf(a.plantingMethod) - PLANTING_METHODS.indexOf(b.plantingMethod),
  )
  const columns = emptyColumns(cells.reduce((sum, cell) => sum + cell.planted.length, 0))
  const speciesMethods: SpeciesMethodSpan[] = []
  let start = 0
  for (const cell of cells) {
    const order = canonicalOrder(cell)
    for (let k = 0; k < order.length; k++) {
      const from = order[k] as number
      const to = start + k
      const predicted = cell.predicted[from] as number
      columns.planted[to] = cell.planted[from] as number
      columns.alive[to] = cell.alive[from] as number
      columns.predicted[to] = predicted
      columns.logits[to] = logit(predicted)
      columns.ageYears[to] = cell.ageYears[from] as number
    }
    const end = start + order.length
    if (end > start)
      speciesMethods.push({
        speciesCode: cell.speciesCode,
        plantingMethod: cell.plantingMethod,
        start,
        end,
        bands: bandSpans(columns.ageYears, start, end),
      })
    start = end
  }
  return { columns, speciesMethods }
}
