import { z } from 'zod'
import {
  AUDIT_PAGE_MAX,
  animalProtection,
  auditCursor,
  auditPageSize,
  batchOf,
  catalogueCode,
  climate,
  confidence,
  email,
  forestZone,
  graceSeconds,
  horizon,
  horizons,
  keyName,
  latitude,
  longitude,
  modelVersion,
  ruleSetId,
  SPECIES_MIX_MAX,
  shade,
  siteClassName,
  speciesGroup,
  speciesSearch,
  speciesShare,
  stand,
  stockType,
  treesPerAcre,
  treesPerHectare,
  vegetationControl,
} from '../domain/input-rules.ts'
import { PAPER_SIZES } from '../domain/reports/report-document.ts'
import { bbox, surveyCursorText, surveyDateBound } from '../domain/surveys/survey-input-rules.ts'
import { SURVEY_PLOTS_PER_CALL } from '../domain/surveys/survey-plot.ts'
import { SURVEY_PAGE_MAX } from '../domain/surveys/survey-service.ts'
import { REFUSALS_PAGE_MAX } from '../domain/surveys/survey-upload-service.ts'
import type { TreatmentsRequest } from '../domain/treatments.ts'

/** The /v1 request bodies and query strings: the shared input rules under the API contract's snake_case names. Strict: unknown fields are refused. */

/** `treatments` (docs/treatments.md): each of the four optional, null as good as absent. */
const Treatments = z.strictObject(
  {
    vegetation_control: vegetationControl.nullish(),
    animal_protection: animalProtection.nullish(),
    stock_type: stockType.nullish(),
    shade: shade.nullish(),
  },
  { error: 'must be an object {vegetation_control, animal_protection, stock_type, shade}' },
)

/** A body's `treatments` under the domain's names; absent or null stays so. */
export function treatmentsRequest(
  treatments: z.infer<typeof Treatments> | null | undefined,
): TreatmentsRequest | null | undefined {
  if (!treatments) return treatments
  return {
    vegetationControl: treatments.vegetation_control,
    animalProtection: treatments.animal_protection,
    stockType: treatments.stock_type,
    shade: treatments.shade,
  }
}

/** One site of a prediction; a batch's sites share the batch's model_version. */
const PredictSite = z.strictObject({
  latitude,
  longitude,
  species_code: catalogueCode,
  planting_method: catalogueCode,
  horizons: horizons.optional(),
  climate: climate.nullish(),
  treatments: Treatments.nullish(),
})

export const PredictBody = PredictSite.extend({ model_version: modelVersion.optional() })

export const CompareBody = z.strictObject({
  latitude,
  longitude,
  species_code: catalogueCode,
  horizons: horizons.optional(),
  climate: climate.nullish(),
  treatments: Treatments.nullish(),
  model_version: modelVersion.optional(),
})

export const RankBody = z.strictObject({
  latitude,
  longitude,
  planting_method: catalogueCode,
  horizon,
  climate: climate.nullish(),
  treatments: Treatments.nullish(),
  model_version: modelVersion.optional(),
})

/** POST /v1/jobs?model_version=: the model a whole job is scored with. */
export const JobModelQuery = z.strictObject({ model_version: modelVersion })

export const BatchBody = z.strictObject({
  sites: batchOf(PredictSite),
  model_version: modelVersion.optional(),
})

export const SpeciesQuery = z.strictObject({
  group: speciesGroup.optional(),
  search: speciesSearch.optional(),
  zone: forestZone.optional(),
})

export const SporeKeyBody = z.strictObject({ email, name: keyName.optional() })

export const RotateBody = z.strictObject({ grace_seconds: graceSeconds.optional() })

/** GET /v1/audit: `limit` (digits, 1 to 100) and the `cursor` of the page before. */
export const AuditQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,6}$/, `must be a whole number from 1 to ${AUDIT_PAGE_MAX}`)
    .transform(Number)
    .pipe(auditPageSize)
    .optional(),
  cursor: auditCursor.optional(),
})

/** POST /v1/plans/stocking: where (a point or a stand), what (a mix and a method) and how many. */
export const StockingPlanBody = z.strictObject({
  latitude: latitude.nullish(),
  longitude: longitude.nullish(),
  stand: stand.nullish(),
  planting_method: catalogueCode,
  species_mix: z
    .array(z.strictObject({ species_code: catalogueCode, share: speciesShare }), {
      error: 'must be an array of {species_code, share}',
    })
    .min(1, 'must hold at least one species')
    .max(SPECIES_MIX_MAX, `may hold at most ${SPECIES_MIX_MAX} species`),
  trees_per_acre: treesPerAcre.nullish(),
  trees_per_hectare: treesPerHectare.nullish(),
  confidence: confidence.nullish(),
  rule_set: ruleSetId.nullish(),
  site_class: siteClassName.nullish(),
  target_trees_per_acre: treesPerAcre.nullish(),
  climate: climate.nullish(),
  treatments: Treatments.nullish(),
  model_version: modelVersion.optional(),
})

/** POST /v1/surveys: the plots, each checked on its own so an error names its index. */
export const SurveysBody = z.strictObject({
  plots: z
    .array(z.unknown(), { error: 'must be an array of plots' })
    .min(1, 'must hold at least one plot')
    .max(
      SURVEY_PLOTS_PER_CALL,
      `must hold at most ${SURVEY_PLOTS_PER_CALL} plots; send the rest in further calls`,
    ),
})

const surveyFilterFields = {
  species_code: catalogueCode.optional(),
  planting_method: catalogueCode.optional(),
  bbox: bbox.optional(),
  surveyed_from: surveyDateBound.optional(),
  surveyed_to: surveyDateBound.optional(),
}

/** POST /v1/models/calibrations: the surveys to fit on, filtered as the report filters them (bbox also as an array). */
export const CalibrationBody = z.strictObject({
  ...surveyFilterFields,
  bbox: z.preprocess((value) => (Array.isArray(value) ? value.join(',') : value), bbox).optional(),
})

/** PUT /v1/models/default: a version of GET /v1/models, or null for the current base version. */
export const DefaultModelBody = z.strictObject({
  model_version: modelVersion.nullable(),
})

/** GET /v1/surveys/report: the list's filters, and the model version to compare with. */
export const SurveyReportQuery = z.strictObject({
  ...surveyFilterFields,
  model_version: modelVersion.optional(),
})

/** A page's `limit` in a query string: a whole number from 1 to `max`. */
function pageLimit(max: number) {
  const rule = `must be a whole number from 1 to ${max}`
  return z
    .string()
    .regex(/^\d{1,7}$/, rule)
    .transform(Number)
    .pipe(z.number().min(1, rule).max(max, rule))
}

/** GET /v1/surveys: the filters, `limit` (1 to 1,000) and the `cursor` of the page before. */
export const SurveyListQuery = z.strictObject({
  ...surveyFilterFields,
  limit: pageLimit(SURVEY_PAGE_MAX).optional(),
  cursor: surveyCursorText.optional(),
})

/** POST /v1/surveys/uploads: only `skip_invalid`. */
export const SurveyUploadQuery = z.strictObject({
  skip_invalid: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((value) => value === 'true')
    .optional(),
})

/** GET /v1/surveys/uploads/{id}: a page of the refused rows, `limit` (1 to 1,000) after `cursor`. */
export const SurveyUploadPageQuery = z.strictObject({
  limit: pageLimit(REFUSALS_PAGE_MAX).optional(),
  cursor: z.string().max(40, 'is not a cursor this upload handed out').optional(),
})

/** DELETE /v1/surveys: only with confirm=all. */
export const SurveyDeleteAllQuery = z.strictObject({
  confirm: z.literal('all', { error: 'must be "all" to delete every plot of the account' }),
})

/** `?paper=` on the operations that answer a PDF report: `a4` or `letter` (docs/reports.md → Paper). */
export const ReportPaperQuery = z.object({
  paper: z.enum(PAPER_SIZES, { error: 'must be a4 or letter' }).optional(),
})
