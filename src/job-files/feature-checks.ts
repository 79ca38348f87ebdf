import { z } from 'zod'
import { climate, fieldPath } from '../domain/input-rules.ts'
import type { InputRow } from '../domain/jobs/file-formats.ts'

/** A feature that passed the Feature check, as its point or stand part reads it. */
export interface CheckedFeature {
  /** Its row number, from 1. */
  row: number
  /** Its feature_index, from 0. */
  index: number
  geometry: { type: string; coordinates?: unknown }
  /** Its properties over the query's defaults: what it asks for. */
  properties: Record<string, unknown>
  /** Its own properties as sent: given back when it is refused. */
  own: Record<string, unknown> | null
  /** Its own properties as the Feature check read them: given back with its results. */
  checkedOwn: Record<string, unknown> | null | undefined
  /** Its result cells (GEOJSON_COLUMNS) for a geometry type, a position and its species. */
  cells(type: string, latitude: unknown, longitude: unknown, species: unknown): unknown[]
}

export const featureId = z.union([z.string().max(200, 'must be at most 200 characters'), z.number()])

/** A feature's climate: flat `period` and `scenario`, or a predict body's `climate` object; not both. */
export const climateFields = {
  period: climate.shape.period,
  scenario: climate.shape.scenario,
  climate: climate.nullish(),
}

export const oneClimate = {
  path: ['climate'],
  message: 'cannot be given with period or scenario',
}

export const namesOneClimate = (row: { climate?: unknown; period?: unknown; scenario?: unknown }) =>
  !row.climate || (row.period == null && row.scenario == null)

export function climateOf(fields: {
  period?: string | null
  scenario?: string | null
  climate?: { period?: string | null; scenario?: string | null } | null
}) {
  const period = fields.climate?.period ?? fields.period ?? null
  const scenario = fields.climate?.scenario ?? fields.scenario ?? null
  return period !== null || scenario !== null ? { period, scenario } : undefined
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function issueText(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0]
  if (!issue) return `${prefix} is invalid`
  const path = fieldPath([prefix, ...issue.path])
  return `${path} ${issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message}`
}

export function ownProperties(properties: Record<string, unknown> | null | undefined): {
  o?: Record<string, unknown>
} {
  return properties && Object.keys(properties).length > 0 ? { o: properties } : {}
}

/**
 * A feature that fails alone, given back with its own properties, and its geometry when it was one
 * the job reads.
 */
export function failure(
  row: number,
  cells: unknown[],
  message: string,
  own: Record<string, unknown> | null,
  geometry?: object,
): InputRow {
  return {
    r: row,
    c: cells,
    e: { code: 'invalid_request', message },
    ...(geometry ? { g: geometry } : {}),
    ...ownProperties(own),
  }
}

/** A checked feature refused by its point or stand part, the message after its feature_index. */
export function refused(
  feature: CheckedFeature,
  cells: unknown[],
  reason: string,
  geometry?: object,
): InputRow {
  return failure(feature.row, cells, `feature ${feature.index}: ${reason}`, feature.own, geometry)
}
