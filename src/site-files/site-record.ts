import type { ColumnMap } from './column-map.ts'
import { mappedName } from './column-map.ts'
import { valueText } from './site-file-error.ts'
import { SITE_ID_ALIAS } from './site-format.ts'

/** Why a reader could not read a row: its geometry, its JSON, its cells, two columns for one, not a feature. */
export type ReaderRule = 'geometry' | 'json' | 'cells' | 'columns' | 'feature'

/** What a reader could not turn into fields: a geometry that is no point, a line that is no JSON. */
export interface RecordIssue {
  /** The part of the row at fault: `geometry`, `line`, `cells`, or a column. */
  field: string
  /** The value as text, shortened. */
  value: string
  rule: ReaderRule
  message: string
}

/** One row of a site data file as read, before its rules are checked. */
export interface SiteRecord {
  /** The row's number in the file, from 1 (a CSV's first row under its header, a collection's first feature). */
  row: number
  /** The file's own id of the row (`site_id`, else `id`, else the feature's id), as text; null when none. */
  featureId: string | null
  /** The row's values by column name as the format reads them (mapped, trimmed, lower case); latitude and longitude from a geometry. */
  fields: Record<string, unknown>
  /** When present, the row could not be read whole: these are its problems, and its fields are not checked. */
  issues?: readonly RecordIssue[]
}

const MAX_FEATURE_ID = 200

/** The row's id for reports: `site_id`, else `id`, else the format's own (feature id, fid). */
export function featureIdOf(fields: Record<string, unknown>, own?: unknown): string | null {
  for (const value of [fields.site_id, fields[SITE_ID_ALIAS], own]) {
    if (value === undefined || value === null || value === '') continue
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint')
      return valueText(typeof value === 'string' ? value.trim() : value, MAX_FEATURE_ID)
  }
  return null
}

/**
 * A row's fields from its properties (GeoJSON, NDJSON), each name mapped; two properties that give one
 * column are an issue. Properties that are null are left out, as absent.
 */
export function fieldsOfProperties(
  properties: Record<string, unknown>,
  map: ColumnMap,
): { fields: Record<string, unknown>; issues: RecordIssue[] } {
  const fields: Record<string, unknown> = {}
  const from: Record<string, string> = {}
  const issues: RecordIssue[] = []
  for (const key of Object.keys(properties)) {
    const name = mappedName(key, map)
    if (name === null) continue
    const value = properties[key]
    if (name in from) {
      issues.push({
        field: name,
        value: valueText(value),
        rule: 'columns',
        message: `the properties "${from[name]}" and "${key}" both give ${name}`,
      })
      continue
    }
    from[name] = key
    if (value !== null && value !== undefined) fields[name] = value
  }
  return { fields, issues }
}
