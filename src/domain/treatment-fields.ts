import { z } from 'zod'
import { animalProtection, shade, stockType, vegetationControl } from './input-rules.ts'
import type { AppliedTreatments } from './treatment-types.ts'
import { TREATMENT_NAMES, type TreatmentsRequest } from './treatment-values.ts'

/*
 * Treatments named flat, one field each (docs/treatments.md): a job's CSV columns and GeoJSON
 * properties, a job's query-string defaults, the query strings of rasters and /ogc. Also how a row's
 * own treatments go over its job's defaults, and the key an answer made with treatments is cached under.
 */

/** The four flat fields under their API names, each optional; null (an empty cell) as good as absent. */
export const TREATMENT_FIELDS = {
  vegetation_control: vegetationControl.nullish(),
  animal_protection: animalProtection.nullish(),
  stock_type: stockType.nullish(),
  shade: shade.nullish(),
}

/** A predict body's `treatments` object under its API names. */
export const treatmentsObject = z.strictObject(TREATMENT_FIELDS, {
  error: 'must be an object {vegetation_control, animal_protection, stock_type, shade}',
})

/** A row names its treatments flat or as a `treatments` object, not both (like its climate). */
export const oneTreatments = {
  path: ['treatments'],
  message: 'cannot be given with vegetation_control, animal_protection, stock_type or shade',
}

export const namesTreatmentsOnce = (row: TreatmentFields & { treatments?: unknown }) =>
  row.treatments == null || TREATMENT_NAMES.every((name) => row[name] == null)

/** A checked row's treatments: its `treatments` object, else its flat fields; undefined when none. */
export function rowTreatments(
  row: TreatmentFields & { treatments?: TreatmentFields | null },
): TreatmentsRequest | undefined {
  return treatmentsOfFields(row.treatments ?? row)
}

export type TreatmentFields = Partial<Record<keyof typeof TREATMENT_FIELDS, string | null | undefined>>

/** The treatments flat fields name, under the domain's names; undefined when they name none. */
export function treatmentsOfFields(
  fields: TreatmentFields | null | undefined,
): TreatmentsRequest | undefined {
  if (!fields) return undefined
  const request: TreatmentsRequest = {}
  if (fields.vegetation_control != null) request.vegetationControl = fields.vegetation_control
  if (fields.animal_protection != null) request.animalProtection = fields.animal_protection
  if (fields.stock_type != null) request.stockType = fields.stock_type
  if (fields.shade != null) request.shade = fields.shade
  return Object.keys(request).length > 0 ? request : undefined
}

/** The same treatments under their API names, the ones named only (a job record's defaults). */
export function fieldsOfTreatments(request: TreatmentsRequest | null | undefined): Record<string, string> {
  if (!request) return {}
  const fields: Record<string, string> = {}
  if (request.vegetationControl != null) fields.vegetation_control = request.vegetationControl
  if (request.animalProtection != null) fields.animal_protection = request.animalProtection
  if (request.stockType != null) fields.stock_type = request.stockType
  if (request.shade != null) fields.shade = request.shade
  return fields
}

/**
 * A row's treatments over its job's defaults, field by field: what the row names wins (`none`
 * included), what it leaves out or null is the default's. Undefined when neither names any.
 */
export function overDefaults(
  own: TreatmentsRequest | null | undefined,
  defaults: TreatmentsRequest | null | undefined,
): TreatmentsRequest | undefined {
  if (!defaults) return own ?? undefined
  const merged: TreatmentsRequest = { ...defaults }
  for (const [name, value] of Object.entries(own ?? {}) as [keyof TreatmentsRequest, string | null][])
    if (value != null) merged[name] = value
  return merged
}

/** What keys an answer made with these treatments: '' untreated, so untreated keys stay as they were. */
export function treatmentsKey(applied: AppliedTreatments | null | undefined): string {
  if (!applied) return ''
  return TREATMENT_NAMES.map((name) => {
    const value = applied.values[name]
    return value === null || value === 'none' ? '' : value
  }).join(',')
}
