/**
 * The refused rows of a survey upload, for `score surveys upload`: a few as an aligned table for the
 * terminal, or all of them as a CSV (`row,plot_id,field,code,reason`, RFC 4180, CRLF), read page by
 * page from `GET /v1/surveys/uploads/{upload_id}` and written as they come.
 */
import { createWriteStream } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { SurveyRefusedRow, SurvivalClient } from '../client.ts'
import { csvCell } from './output.ts'

export const REFUSED_COLUMNS = ['row', 'plot_id', 'field', 'code', 'reason'] as const

/** `rows` as lines of a table under a header, each column as wide as its widest cell (the reason last). */
export function refusedTable(rows: readonly SurveyRefusedRow[]): string[] {
  const cells = [
    [...REFUSED_COLUMNS],
    ...rows.map((row) => [String(row.row), row.plot_id ?? '-', row.field, row.code, row.reason]),
  ]
  const widths = REFUSED_COLUMNS.map((_, column) =>
    Math.max(...cells.map((line) => line[column]?.length ?? 0)),
  )
  return cells.map((line) =>
    line
      .map((cell, column) => (column === line.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  )
}

/** Writes every refused row of the upload to `file` as CSV (the header alone when none); returns how many. */
export async function writeRefusedCsv(
  client: SurvivalClient,
  uploadId: string,
  file: string,
  signal?: AbortSignal,
): Promise<number> {
  let written = 0
  async function* lines(): AsyncGenerator<string> {
    yield `${REFUSED_COLUMNS.join(',')}\r\n`
    for await (const row of client.surveyUploadRefusals(uploadId, { limit: 1000 }, { signal })) {
      written++
      yield `${REFUSED_COLUMNS.map((name) => csvCell(row[name])).join(',')}\r\n`
    }
  }
  await pipeline(Readable.from(lines()), createWriteStream(file), { signal })
  return written
}
