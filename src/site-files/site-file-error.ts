/**
 * A site data file that cannot be read as a whole: not the format its name says, cut short, damaged,
 * in another coordinate system, a column map that does not fit. Rows that can be read but break a rule
 * are not errors: they are reported one by one (site-validation.ts). `row` is the row where reading
 * stopped, when there is one; `field` the column or part of the file at fault.
 */
export class SiteFileError extends Error {
  override readonly name = 'SiteFileError'
  readonly file: string
  readonly row: number | null
  readonly field: string | null

  constructor(
    file: string,
    message: string,
    where: { row?: number | null; field?: string | null; cause?: unknown } = {},
  ) {
    const at = where.row != null ? ` (row ${where.row}${where.field ? `, ${where.field}` : ''})` : ''
    super(`${file}${at}: ${message}`, where.cause === undefined ? undefined : { cause: where.cause })
    this.file = file
    this.row = where.row ?? null
    this.field = where.field ?? null
  }
}

/** A value as text for a report: at most `max` characters, binary data by its size. */
export function valueText(value: unknown, max = 80): string {
  let text: string
  if (value === undefined || value === null) text = ''
  else if (typeof value === 'string') text = value
  else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    text = String(value)
  else if (value instanceof Uint8Array) text = `<${value.length} bytes of binary data>`
  else {
    try {
      text = JSON.stringify(value) ?? String(value)
    } catch {
      text = String(value)
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
