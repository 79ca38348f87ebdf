import type { InputRow } from '../domain/jobs/file-formats.ts'
import type { BatchItemResult } from '../domain/prediction-types.ts'
import type { FactorContribution, Horizon, HorizonPrediction, JobFormat, JobResultChunk } from '../types.ts'
import { CLIMATE_COLUMNS } from './job-rows.ts'

/**
 * How a job's results read: each row's input columns, then survival and the top factor at each
 * horizon (empty where not asked for, or when the row failed), then error_code — and, for an NDJSON
 * job, its period and scenario after those (see `resultsAt`). The same rows as CSV (RFC 4180, CRLF)
 * and as NDJSON (one object per line, with its row number).
 */
export const RESULT_COLUMNS = [
  'survival_1y',
  'survival_3y',
  'survival_5y',
  'top_factor_1y',
  'top_factor_3y',
  'top_factor_5y',
  'error_code',
] as const

const HORIZON_ORDER: readonly Horizon[] = [1, 3, 5]

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = Array.isArray(value)
    ? value.join('|')
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/**
 * Where the result columns go among a job's input columns. A CSV job echoes its columns as uploaded
 * (its own period and scenario among them, where it put them), then the results. An NDJSON job's
 * period and scenario, the last of its columns, come after the results: the columns its results had
 * before jobs took a climate keep their places, so a CSV reader that goes by position is not misled.
 * Decided by the columns stored with the job, so results written before read as they were.
 */
export function resultsAt(format: JobFormat, columns: readonly string[]): number {
  const climateAt = columns.indexOf(CLIMATE_COLUMNS[0])
  return format === 'ndjson' && climateAt !== -1 ? climateAt : columns.length
}

/** The input columns and the result columns in the order a job's rows give them. */
function ordered<T>(inputs: readonly T[], results: readonly T[], at: number): T[] {
  return [...inputs.slice(0, at), ...results, ...inputs.slice(at)]
}

export function csvHeader(columns: readonly string[], at = columns.length): string {
  return `${ordered(columns, RESULT_COLUMNS, at).map(csvCell).join(',')}\r\n`
}

/** The top factor (largest magnitude; contributions come sorted) of each requested horizon. */
function byHorizon(predictions: readonly HorizonPrediction[]) {
  const survival: (number | null)[] = [null, null, null]
  const top: (string | null)[] = [null, null, null]
  for (const prediction of predictions) {
    const slot = HORIZON_ORDER.indexOf(prediction.horizonYears)
    survival[slot] = prediction.survivalProbability
    top[slot] = (prediction.topContributions(1)[0] as FactorContribution | undefined)?.factor ?? null
  }
  return { survival, top }
}

/**
 * Renders a chunk's rows in input order, the result columns at `at` among the input columns. `scored`
 * holds one result per row that was checked out fine at upload, in row order (the rows that failed
 * their check carry their own error).
 */
export function renderChunk(
  columns: readonly string[],
  rows: readonly InputRow[],
  scored: Iterator<BatchItemResult>,
  at = columns.length,
): JobResultChunk {
  let csv = ''
  let ndjson = ''
  let rowsFailed = 0
  const errors: Record<string, number> = {}
  const names = ordered(columns, RESULT_COLUMNS, at)
  for (const row of rows) {
    let survival: (number | null)[] = [null, null, null]
    let top: (string | null)[] = [null, null, null]
    let errorCode: string | null = row.e?.code ?? null
    if (!row.e) {
      const next = scored.next()
      if (next.done) throw new Error('fewer results than rows to score')
      const result = next.value
      if (result.ok) ({ survival, top } = byHorizon(result.prediction.predictions))
      else errorCode = result.error.code
    }
    if (errorCode) {
      rowsFailed += 1
      errors[errorCode] = (errors[errorCode] ?? 0) + 1
    }
    const results = [...survival, ...top, errorCode]
    // A row with more or fewer cells than the header (it failed for that) still fills every column.
    const values = ordered(
      columns.map((_, index) => row.c[index]),
      results,
      at,
    )
    csv += `${values.map(csvCell).join(',')}\r\n`
    const line: Record<string, unknown> = { row: row.r }
    names.forEach((name, index) => {
      line[name] = values[index] ?? null
    })
    ndjson += `${JSON.stringify(line)}\n`
  }
  return { csv, ndjson, geojson: '', rowsDone: rows.length, rowsFailed, errors }
}
