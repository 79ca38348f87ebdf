import { invalidField } from '../domain/errors.ts'

/*
 * Reading the CSV uploads of the API contract (jobs, surveys): a header naming known columns in any
 * order, and cells that become the values the rules check.
 */

const MAX_COLUMNS = 100

/** Where each known column is in a row's cells, and the header's names as sent (trimmed). */
export interface CsvHeader<Name extends string> {
  columns: string[]
  at: Partial<Record<Name, number>>
}

/**
 * A header's known columns, matched case-insensitively; every required one must be there. Refused
 * (invalid_request, field `header`): over 100 columns, a column without a name, a name twice.
 */
export function readCsvHeader<Name extends string>(
  header: readonly string[],
  required: readonly Name[],
  optional: readonly Name[],
): CsvHeader<Name> {
  if (header.length > MAX_COLUMNS) throw invalidField('header', `has more than ${MAX_COLUMNS} columns`)
  const names = header.map((name) => name.trim().toLowerCase())
  const known: readonly string[] = [...required, ...optional]
  const at: Partial<Record<Name, number>> = {}
  for (const [index, name] of names.entries()) {
    if (name === '') throw invalidField('header', `column ${index + 1} has no name`)
    if (names.indexOf(name) !== index) throw invalidField('header', `repeats the column "${name}"`)
    if (known.includes(name)) at[name as Name] = index
  }
  const missing = required.filter((name) => at[name] === undefined)
  if (missing.length > 0)
    throw invalidField(
      'header',
      `lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (it needs ${required.join(', ')})`,
    )
  return { columns: header.map((name) => name.trim()), at }
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/** A number cell as a number; empty as absent; anything else as the text, for the rule to refuse. */
export function numberCell(cell: string | undefined): number | string | undefined {
  const text = cell?.trim() ?? ''
  if (text === '') return undefined
  return DECIMAL.test(text) ? Number(text) : text
}
