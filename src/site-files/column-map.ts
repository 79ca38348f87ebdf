import { readFile } from 'node:fs/promises'
import { closest, distance } from 'fastest-levenshtein'
import { SiteFileError } from './site-file-error.ts'
import {
  isSiteColumnName,
  normalizeColumnName,
  SITE_COLUMN_NAMES,
  SITE_ID_ALIAS,
  type SiteColumnName,
} from './site-format.ts'

/*
 * A column map (`--map file.json`) renames a file's columns to the format's:
 * `{ "their_column": "our_column", ... }`, or `"their_column": null` to leave one of theirs unread (a
 * column that would otherwise be taken for one of ours). Names are matched as the format matches them:
 * trimmed and case-insensitive. Columns the map does not name keep their own names.
 */

/** Their column (normalised) → ours, or null: ignored. */
export type ColumnMap = ReadonlyMap<string, SiteColumnName | null>

export const NO_COLUMN_MAP: ColumnMap = new Map()

/** Every problem of a column map at once, one a line. */
export class ColumnMapError extends SiteFileError {
  readonly problems: readonly string[]

  constructor(source: string, problems: readonly string[]) {
    const text =
      problems.length === 1
        ? `the column map ${problems[0]}`
        : `the column map has ${problems.length} problems: it ${problems.join('; it ')}`
    super(source, text, { field: 'map' })
    this.problems = problems
  }
}

/** " (did you mean slope_deg?)" for a near miss of a column name, else ''. */
export function didYouMean(name: string): string {
  if (name === SITE_ID_ALIAS) return ' (did you mean site_id?)'
  const nearest = closest(name, SITE_COLUMN_NAMES)
  return distance(name, nearest) <= Math.max(2, Math.floor(name.length / 4))
    ? ` (did you mean ${nearest}?)`
    : ''
}

/** A map as JSON gives it, checked: every target one of our columns (or null), no target given twice. */
export function parseColumnMap(value: unknown, source = 'column map'): ColumnMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ColumnMapError(source, ['must be a JSON object: { "their_column": "our_column", ... }'])
  const problems: string[] = []
  const map = new Map<string, SiteColumnName | null>()
  const sourceOf = new Map<string, string>()
  for (const [rawSource, rawTarget] of Object.entries(value)) {
    const from = normalizeColumnName(rawSource)
    if (from === '') {
      problems.push('maps a column without a name')
      continue
    }
    if (map.has(from)) {
      problems.push(`names the column "${from}" twice (names are matched without regard to case)`)
      continue
    }
    if (rawTarget === null) {
      map.set(from, null)
      continue
    }
    if (typeof rawTarget !== 'string') {
      problems.push(
        `maps "${rawSource}" to ${JSON.stringify(rawTarget)}: give a column name, or null to ignore it`,
      )
      continue
    }
    const to = normalizeColumnName(rawTarget)
    if (!isSiteColumnName(to)) {
      problems.push(`maps "${rawSource}" to "${rawTarget}", which is not a site column${didYouMean(to)}`)
      continue
    }
    const earlier = sourceOf.get(to)
    if (earlier !== undefined) {
      problems.push(`maps both "${earlier}" and "${rawSource}" to "${to}"`)
      continue
    }
    sourceOf.set(to, rawSource)
    map.set(from, to)
  }
  if (problems.length > 0) throw new ColumnMapError(source, problems)
  return map
}

/** A map file (JSON) read and checked; any problem is a ColumnMapError naming the file. */
export async function readColumnMap(path: string): Promise<ColumnMap> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new ColumnMapError(path, [`cannot be read: ${(error as Error).message}`])
  }
  let value: unknown
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new ColumnMapError(path, [`is not JSON: ${(error as Error).message}`])
  }
  return parseColumnMap(value, path)
}

/** The name a file's column is read under: ours by the map, or its own (normalised); null: ignored. */
export function mappedName(column: string, map: ColumnMap): string | null {
  const name = normalizeColumnName(column)
  const mapped = map.get(name)
  return mapped === undefined ? name : mapped
}

/**
 * A file's column list (a CSV header, a GeoPackage layer's attributes, one feature's properties) under
 * the map: each column's name as read (null: ignored), and one message per name two columns would give.
 */
export function resolveColumns(
  columns: readonly string[],
  map: ColumnMap = NO_COLUMN_MAP,
): { names: (string | null)[]; conflicts: string[] } {
  const names = columns.map((column) => mappedName(column, map))
  const conflicts: string[] = []
  const firstAt = new Map<string, number>()
  names.forEach((name, index) => {
    if (name === null) return
    const first = firstAt.get(name)
    if (first === undefined) {
      firstAt.set(name, index)
      return
    }
    const a = columns[first] as string
    const b = columns[index] as string
    conflicts.push(
      normalizeColumnName(a) === normalizeColumnName(b)
        ? `the columns "${a}" and "${b}" are one name`
        : `the columns "${a}" and "${b}" both give ${name}${map.size > 0 ? ' under the column map' : ''} (map one of them to null to ignore it)`,
    )
  })
  return { names, conflicts }
}
