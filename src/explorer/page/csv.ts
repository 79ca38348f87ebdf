/** RFC 4180 CSV text of the rows shown on the page, for the "download CSV" buttons. */

export type CsvCell = string | number | boolean | null | undefined

/** A cell that holds a comma, quote or line break is quoted and its quotes doubled. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return ''
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** Header row, then one line per row; lines end in CRLF as RFC 4180 says. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('')
}
