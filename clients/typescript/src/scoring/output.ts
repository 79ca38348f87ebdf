/**
 * The scorer's output, byte for byte what `GET /v1/jobs/{id}/results` serves, so the batch path and
 * the job path write the same file: the input columns, then survival and the top factor at each
 * horizon (empty where not asked for, or when the row failed), then error_code — an NDJSON input's
 * period and scenario after those (see `resultsAt`). CSV (RFC 4180, CRLF) or NDJSON
 * (`{"row": n, ...}` per line, null where empty). GeoJSON output (a GeoJSON input's job results, by
 * `.geojson`) is the server's file as it is; nothing here writes it.
 */
import type { BatchResponse } from '../client.ts'
import { CLIMATE_COLUMNS, type InputFormat, type InputRow } from './rows.ts'

/** The output's format, by its extension; the batch path writes the first two. */
export type OutputFormat = 'csv' | 'ndjson' | 'geojson'
type LineFormat = Exclude<OutputFormat, 'geojson'>

export const RESULT_COLUMNS = [
  'survival_1y',
  'survival_3y',
  'survival_5y',
  'top_factor_1y',
  'top_factor_3y',
  'top_factor_5y',
  'error_code',
] as const

type BatchItem = BatchResponse['results'][number]
const HORIZONS = [1, 3, 5]

/** One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break; empty for null. */
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
 * Where the result columns go among the input columns, as the jobs API places them: after a CSV's
 * columns (its own period and scenario among them); before an NDJSON input's period and scenario.
 */
export function resultsAt(format: InputFormat, columns: readonly string[]): number {
  const climateAt = columns.indexOf(CLIMATE_COLUMNS[0])
  return format === 'ndjson' && climateAt !== -1 ? climateAt : columns.length
}

function ordered<T>(inputs: readonly T[], results: readonly T[], at: number): T[] {
  return [...inputs.slice(0, at), ...results, ...inputs.slice(at)]
}

/** The first line of the output (CSV only; NDJSON has none). */
export function outputHeader(format: LineFormat, columns: readonly string[], at = columns.length): string {
  return format === 'csv' ? `${ordered(columns, RESULT_COLUMNS, at).map(csvCell).join(',')}\r\n` : ''
}

/** A row's result cells: from its batch item, or from the check it failed before being sent. */
export function resultCells(row: InputRow, item?: BatchItem): unknown[] {
  const survival: (number | null)[] = [null, null, null]
  const top: (string | null)[] = [null, null, null]
  let errorCode: string | null = row.error?.code ?? null
  if (item && 'prediction' in item) {
    for (const prediction of item.prediction.predictions) {
      const slot = HORIZONS.indexOf(prediction.horizon_years)
      survival[slot] = prediction.survival_probability
      top[slot] = prediction.risk_factors[0]?.factor ?? null
    }
  } else if (item && 'error' in item) {
    errorCode = item.error.code
  }
  return [...survival, ...top, errorCode]
}

/** One output line for `row` with its result cells, placed at `at` among the input columns. */
export function outputLine(
  format: LineFormat,
  columns: readonly string[],
  row: InputRow,
  results: readonly unknown[],
  at = columns.length,
): string {
  // A row with more or fewer cells than the header (it failed for that) still fills every column.
  const values = ordered(
    columns.map((_, index) => row.cells[index]),
    results,
    at,
  )
  if (format === 'csv') return `${values.map(csvCell).join(',')}\r\n`
  const line: Record<string, unknown> = { row: row.row }
  ordered(columns, RESULT_COLUMNS, at).forEach((name, index) => {
    line[name] = values[index] ?? null
  })
  return `${JSON.stringify(line)}\n`
}

export function outputFormatOf(file: string): OutputFormat {
  if (/\.geojson$/i.test(file)) return 'geojson'
  return /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv'
}
