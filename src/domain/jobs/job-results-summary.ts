import type { ResultOutcome } from './file-formats.ts'

/*
 * A finished job's results summed for its report (docs/reports.md → A finished job): how survival is distributed
 * at each horizon, which rows failed and why, and how many stands meet their standard. Rows are added
 * one at a time as the results stream past; nothing but the sums is kept, whatever the job's size.
 */

/** The horizons of a job's results, in their columns' order. */
export const SUMMARY_HORIZONS = [1, 3, 5] as const

/** Survival is counted in ten bins: 0 to 0.1, 0.1 to 0.2, …, 0.9 to 1 (the last one holds 1 too). */
export const SURVIVAL_BINS = 10

/** A bin's lower edges, k ÷ 10: a value belongs to the last bin whose edge it reaches. */
const EDGES = Array.from({ length: SURVIVAL_BINS }, (_, k) => k / SURVIVAL_BINS)

export function survivalBin(value: number): number {
  let bin = 0
  while (bin + 1 < SURVIVAL_BINS && value >= (EDGES[bin + 1] as number)) bin += 1
  return bin
}

export interface HorizonSummary {
  horizonYears: (typeof SUMMARY_HORIZONS)[number]
  /** Rows with a survival at this horizon. */
  rows: number
  /** Rows per bin (SURVIVAL_BINS of them). */
  bins: number[]
  /** The mean, lowest and highest survival; null when no row has one. */
  mean: number | null
  lowest: number | null
  highest: number | null
}

export interface JobResultsSummary {
  rows: number
  failed: number
  /** Failed rows by error code, the most frequent first (then by code). */
  errors: { code: string; rows: number }[]
  horizons: HorizonSummary[]
  /** A GeoJSON job's stands that were planned: meeting the standard at their confidence, and not. */
  stands: { planned: number; meeting: number; failing: number }
}

/** Sums a job's result rows as they stream past. */
export class JobResultsTally {
  private rows = 0
  private failed = 0
  private readonly errors = new Map<string, number>()
  private readonly counts = SUMMARY_HORIZONS.map(() => ({
    rows: 0,
    sum: 0,
    lowest: Number.POSITIVE_INFINITY,
    highest: Number.NEGATIVE_INFINITY,
    bins: new Array<number>(SURVIVAL_BINS).fill(0),
  }))
  private meeting = 0
  private failing = 0

  add(row: ResultOutcome): void {
    this.rows += 1
    if (row.errorCode !== null) {
      this.failed += 1
      this.errors.set(row.errorCode, (this.errors.get(row.errorCode) ?? 0) + 1)
      return
    }
    row.survival.forEach((value, index) => {
      const count = this.counts[index]
      if (value === null || !count) return
      count.rows += 1
      count.sum += value
      count.lowest = Math.min(count.lowest, value)
      count.highest = Math.max(count.highest, value)
      count.bins[survivalBin(value)] = (count.bins[survivalBin(value)] ?? 0) + 1
    })
    // A stand meets its standard when the probability of meeting it reaches the plan's confidence
    // (the plan's own `meets_standard.at_confidence`).
    if (row.stand) {
      if (row.stand.meetsProbability >= row.stand.confidence) this.meeting += 1
      else this.failing += 1
    }
  }

  summary(): JobResultsSummary {
    return {
      rows: this.rows,
      failed: this.failed,
      errors: [...this.errors]
        .map(([code, rows]) => ({ code, rows }))
        .sort((a, b) => b.rows - a.rows || (a.code < b.code ? -1 : 1)),
      horizons: this.counts.map((count, index) => ({
        horizonYears: SUMMARY_HORIZONS[index] as HorizonSummary['horizonYears'],
        rows: count.rows,
        bins: count.bins,
        mean: count.rows > 0 ? count.sum / count.rows : null,
        lowest: count.rows > 0 ? count.lowest : null,
        highest: count.rows > 0 ? count.highest : null,
      })),
      stands: { planned: this.meeting + this.failing, meeting: this.meeting, failing: this.failing },
    }
  }
}
