import { z } from 'zod'
import { catalogueCode, horizons } from '../domain/input-rules.ts'
import type { InputRow } from '../domain/jobs/file-formats.ts'
import type { PredictionRequest } from '../domain/prediction-types.ts'
import {
  namesTreatmentsOnce,
  oneTreatments,
  rowTreatments,
  TREATMENT_FIELDS,
  treatmentsObject,
} from '../domain/treatment-fields.ts'
import {
  type CheckedFeature,
  climateFields,
  climateOf,
  featureId,
  issueText,
  namesOneClimate,
  oneClimate,
  ownProperties,
  refused,
} from './feature-checks.ts'

const PointProperties = z
  .object({
    id: featureId.optional(),
    species_code: catalogueCode.min(1, 'is required'),
    planting_method: catalogueCode.min(1, 'is required'),
    horizons: horizons.optional(),
    ...climateFields,
    ...TREATMENT_FIELDS,
    treatments: treatmentsObject.nullish(),
  })
  .refine(namesOneClimate, oneClimate)
  .refine(namesTreatmentsOnce, oneTreatments)

const PointRules = z.object({
  latitude: z
    .number()
    .min(-90, 'has a latitude outside -90 to 90')
    .max(90, 'has a latitude outside -90 to 90'),
  longitude: z
    .number()
    .min(-180, 'has a longitude outside -180 to 180')
    .max(180, 'has a longitude outside -180 to 180'),
})

const Position = z
  .tuple([z.number(), z.number()], { error: 'must be a position [longitude, latitude]' })
  .rest(z.number())

/**
 * A Point feature as a prediction to make (`q`): its properties carry the fields of POST /v1/predict.
 * Or the reason it fails alone.
 */
export function pointRow(feature: CheckedFeature): InputRow {
  const { geometry, properties } = feature
  const coordinates = Array.isArray(geometry.coordinates) ? geometry.coordinates : []
  const [longitude, latitude] = coordinates as unknown[]
  const cells = feature.cells('Point', latitude ?? null, longitude ?? null, properties.species_code ?? null)
  if (!Position.safeParse(coordinates).success || coordinates.length > 3)
    return refused(feature, cells, 'geometry.coordinates must be a position [longitude, latitude]')
  const located = PointRules.safeParse({ latitude, longitude }, { reportInput: true })
  if (!located.success)
    return refused(feature, cells, `geometry.coordinates ${located.error.issues[0]?.message}`)
  const parsed = PointProperties.safeParse(properties, { reportInput: true })
  if (!parsed.success) return refused(feature, cells, issueText(parsed.error, 'properties'), geometry)
  const request: PredictionRequest = {
    latitude: latitude as number,
    longitude: longitude as number,
    speciesCode: parsed.data.species_code,
    plantingMethod: parsed.data.planting_method,
    horizons: parsed.data.horizons ?? null,
  }
  const asked = climateOf(parsed.data)
  if (asked) request.climate = asked
  const treatments = rowTreatments(parsed.data)
  if (treatments) request.treatments = treatments
  return { r: feature.row, c: cells, q: request, g: geometry, ...ownProperties(feature.checkedOwn) }
}
