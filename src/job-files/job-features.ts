import { z } from 'zod'
import type { InputRow } from '../domain/jobs/file-formats.ts'
import { type CheckedFeature, failure, featureId, isObject, issueText } from './feature-checks.ts'
import { withDefaults } from './feature-defaults.ts'
import { pointRow } from './point-feature.ts'
import { standRow } from './stand-feature.ts'

/*
 * The features of a GeoJSON job (RFC 7946 FeatureCollection): a Point is a prediction, a Polygon or
 * MultiPolygon a stocking plan. Their properties carry the fields of POST /v1/predict or of
 * POST /v1/plans/stocking; the query string gives job-wide defaults for properties a feature lacks. A
 * feature that breaks a rule fails alone, with its index.
 */

/** The columns a GeoJSON job's CSV and NDJSON results echo (no geometry: a stand by its centre). */
export const GEOJSON_COLUMNS = [
  'id',
  'feature_index',
  'geometry_type',
  'latitude',
  'longitude',
  'species',
  'planting_method',
  'period',
  'scenario',
]

const FeatureShape = z.object({
  type: z.literal('Feature', { error: 'must be "Feature"' }),
  id: featureId.optional(),
  geometry: z.object({ type: z.string({ error: 'must name a geometry type' }) }, { error: 'is required' }),
  properties: z.record(z.string(), z.unknown()).nullish(),
})

/** The feature's id: its own `id`, else `properties.id`, when either is a string or a number. */
function idOf(feature: Record<string, unknown>): string | number | null {
  const own = isObject(feature.properties) ? feature.properties.id : undefined
  for (const candidate of [feature.id, own])
    if (typeof candidate === 'string' || typeof candidate === 'number') return candidate
  return null
}

/**
 * One feature of a GeoJSON job as a row to score: `q` (a prediction) for a Point, `p` (a plan) for a
 * Polygon or MultiPolygon, or the reason it fails alone. `row` counts from 1; `feature_index` from 0.
 */
export function featureRow(
  row: number,
  feature: unknown,
  defaults: Readonly<Record<string, unknown>>,
): InputRow {
  const index = row - 1
  if (!isObject(feature))
    return failure(
      row,
      [null, index, ...Array(7).fill(null)],
      `feature ${index} must be a GeoJSON Feature object`,
      null,
    )
  const own = isObject(feature.properties) ? feature.properties : null
  const blank = [idOf(feature), index, null, null, null, null, null, null, null]
  const shape = FeatureShape.safeParse(feature, { reportInput: true })
  if (!shape.success)
    return failure(row, blank, `feature ${index}: ${issueText(shape.error, 'feature')}`, own)
  const properties = withDefaults(shape.data.properties ?? {}, defaults)
  const id = shape.data.id ?? (properties.id as string | number | undefined) ?? null
  const climate = properties.climate as { period?: unknown; scenario?: unknown } | undefined
  const checked: CheckedFeature = {
    row,
    index,
    geometry: feature.geometry as { type: string; coordinates?: unknown },
    properties,
    own,
    checkedOwn: shape.data.properties,
    cells: (type: string, latitude: unknown, longitude: unknown, species: unknown) => [
      id,
      index,
      type,
      latitude,
      longitude,
      species,
      properties.planting_method ?? null,
      climate?.period ?? properties.period ?? null,
      climate?.scenario ?? properties.scenario ?? null,
    ],
  }
  const type = checked.geometry.type
  if (type === 'Point') return pointRow(checked)
  if (type === 'Polygon' || type === 'MultiPolygon') return standRow(checked)
  return failure(
    row,
    checked.cells(type, null, null, null),
    `feature ${index}: geometry.type ${JSON.stringify(type)} is not a Point, Polygon or MultiPolygon`,
    own,
  )
}
