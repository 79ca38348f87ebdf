/** RFC 4180 CSV text of the rows shown on the page, for the "download CSV" buttons, and its download. */

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

/** The chosen point in a file name: "44.20000_-122.20000". */
export function pointFileLabel(point: { latitude: number; longitude: number } | null): string {
  return point ? `${point.latitude.toFixed(5)}_${point.longitude.toFixed(5)}` : 'no-point'
}

/** Saves CSV text as a file of that name, as a link to it would. */
export function downloadCsv(filename: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }))
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** A future climate in a file name ("-2041-2070-ssp245"); nothing for today's. */
export function climateFileLabel(climate: { period: string; scenario: string } | null): string {
  return climate ? `-${climate.period}-${climate.scenario}` : ''
}
