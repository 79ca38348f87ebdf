/**
 * The scorer's output, byte for byte what `GET /v1/jobs/{id}/results` serves, so the batch path and
 * the job path write the same file: the input columns, then survival and the top factor at each
 * horizon (empty where not asked for, or when the row failed), then error_code. CSV (RFC 4180, CRLF)
 * or NDJSON (`{"row": n, ...}` per line, null where empty).
 */
import type { BatchResponse } from '../client.ts'
import type { InputRow } from './rows.ts'

export type OutputFormat = 'csv' | 'ndjson'

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

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = Array.isArray(value) ? value.join('|') : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The first line of the output (CSV only; NDJSON has none). */
export function outputHeader(format: OutputFormat, columns: readonly string[]): string {
  return format === 'csv' ? `${[...columns, ...RESULT_COLUMNS].map(csvCell).join(',')}\r\n` : ''
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

/** One output line for `row` with its result cells. */
export function outputLine(
  format: OutputFormat,
  columns: readonly string[],
  row: InputRow,
  results: readonly unknown[],
): string {
  if (format === 'csv') return `${[...row.cells, ...results].map(csvCell).join(',')}\r\n`
  const line: Record<string, unknown> = { row: row.row }
  columns.forEach((name, index) => {
    line[name] = row.cells[index] ?? null
  })
  RESULT_COLUMNS.forEach((name, index) => {
    line[name] = results[index] ?? null
  })
  return `${JSON.stringify(line)}\n`
}

export function outputFormatOf(file: string): OutputFormat {
  return /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv'
}
