import { logit } from '../../stats/logistic.ts'
import type { PlotObservation } from './quasi-binomial.ts'

/**
 * Plots as the survey statistics read them: a typed array per field, entry i of each the same plot, so a
 * fit over a million plots is a tight loop over numbers rather than a walk over objects. A group of
 * consecutive plots is a view of the same memory (`plotRange`), never a copy.
 */
export interface PlotColumns {
  readonly length: number
  planted: Float64Array
  alive: Float64Array
  /** The model's survival at the plot's age, in (0, 1). */
  predicted: Float64Array
  /** logit(predicted), computed once for every fit that needs it. */
  logits: Float64Array
  ageYears: Float64Array
}

export function emptyColumns(length: number): PlotColumns {
  return {
    length,
    planted: new Float64Array(length),
    alive: new Float64Array(length),
    predicted: new Float64Array(length),
    logits: new Float64Array(length),
    ageYears: new Float64Array(length),
  }
}

/** The plots as columns, in the order given. */
export function columnsOf(plots: readonly PlotObservation[]): PlotColumns {
  const columns = emptyColumns(plots.length)
  plots.forEach(({ planted, alive, predicted, ageYears }, index) => {
    columns.planted[index] = planted
    columns.alive[index] = alive
    columns.predicted[index] = predicted
    columns.logits[index] = logit(predicted)
    columns.ageYears[index] = ageYears
  })
  return columns
}

/** Plots start to end − 1 of the columns, sharing their memory. */
export function plotRange(columns: PlotColumns, start: number, end: number): PlotColumns {
  return {
    length: end - start,
    planted: columns.planted.subarray(start, end),
    alive: columns.alive.subarray(start, end),
    predicted: columns.predicted.subarray(start, end),
    logits: columns.logits.subarray(start, end),
    ageYears: columns.ageYears.subarray(start, end),
  }
}
