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
  TREES_PER_ACRE_MAX,
  treesPerAcre,
  treesPerHectare,
  vegetationControl,
} from '../domain/input-rules.ts'
import { PAPER_SIZES } from '../domain/reports/report-document.ts'
import { COST_INPUT_RULES, type CostsRequest } from '../domain/stocking/costs.ts'
import type { TreatmentChoices } from '../domain/stocking/options-request.ts'
import { OPTIONS_MIXES_MAX } from '../domain/stocking/options-request.ts'
import { bbox, surveyCursorText, surveyDateBound } from '../domain/surveys/survey-input-rules.ts'
import { SURVEY_PLOTS_PER_CALL } from '../domain/surveys/survey-plot.ts'
import { SURVEY_PAGE_MAX } from '../domain/surveys/survey-service.ts'
import { REFUSALS_PAGE_MAX } from '../domain/surveys/survey-upload-service.ts'
import {
  ANIMAL_PROTECTION,
  SHADE,
  STOCK_TYPES,
  type TreatmentsRequest,
  VEGETATION_CONTROL,
} from '../domain/treatment-values.ts'

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

/** `costs` (docs/costs.md): figures replacing the defaults, each optional; null as good as absent. */
const Costs = z.strictObject(
  {
    seedlings: z
      .array(z.strictObject({ species_code: catalogueCode, per_tree: COST_INPUT_RULES.perTree }), {
        error: 'must be an array of {species_code, per_tree}',
      })
      .max(SPECIES_MIX_MAX, `may hold at most ${SPECIES_MIX_MAX} species`)
      .nullish(),
    planting_per_tree: COST_INPUT_RULES.perTree.nullish(),
    site_preparation_per_acre: COST_INPUT_RULES.perAcre.nullish(),
    release_per_acre: COST_INPUT_RULES.perAcre.nullish(),
    tubes_per_tree: COST_INPUT_RULES.perTree.nullish(),
    shade_cards_per_tree: COST_INPUT_RULES.perTree.nullish(),
    drone_seeding_per_acre: COST_INPUT_RULES.perAcre.nullish(),
    seed_pod_per_pod: COST_INPUT_RULES.perTree.nullish(),
  },
  {
    error:
      'must be an object {seedlings, planting_per_tree, site_preparation_per_acre, release_per_acre, tubes_per_tree, shade_cards_per_tree, drone_seeding_per_acre, seed_pod_per_pod}',
  },
)

/** A body's `costs` under the domain's names; absent or null stays so. */
export function costsRequest(
  costs: z.infer<typeof Costs> | null | undefined,
): CostsRequest | null | undefined {
  if (!costs) return costs
  return {
    seedlings: costs.seedlings?.map((s) => ({ speciesCode: s.species_code, perTree: s.per_tree })),
    plantingPerTree: costs.planting_per_tree,
    sitePreparationPerAcre: costs.site_preparation_per_acre,
    releasePerAcre: costs.release_per_acre,
    tubesPerTree: costs.tubes_per_tree,
    shadeCardsPerTree: costs.shade_cards_per_tree,
    droneSeedingPerAcre: costs.drone_seeding_per_acre,
    seedPodPerPod: costs.seed_pod_per_pod,
  }
}

const choices = (values: readonly string[]) =>
  z
    .array(z.enum(values as [string, ...string[]], { error: `must be one of ${values.join(', ')}` }), {
      error: `must be an array of ${values.join(', ')}`,
    })
    .min(1, 'must hold at least one value')
    .max(values.length, `may hold at most ${values.length} values`)

/** The treatment values an options search weighs (each a list). */
const TreatmentChoicesBody = z.strictObject(
  {
    vegetation_control: choices(VEGETATION_CONTROL).nullish(),
    animal_protection: choices(ANIMAL_PROTECTION).nullish(),
    stock_type: choices(STOCK_TYPES).nullish(),
    shade: choices(SHADE).nullish(),
  },
  {
    error:
      'must be an object {vegetation_control, animal_protection, stock_type, shade}, each a list of values',
  },
)

export function treatmentChoices(
  treatments: z.infer<typeof TreatmentChoicesBody> | null | undefined,
): TreatmentChoices | null | undefined {
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
  costs: Costs.nullish(),
  model_version: modelVersion.optional(),
})

const SpeciesMix = z
  .array(z.strictObject({ species_code: catalogueCode, share: speciesShare }), {
    error: 'must be an array of {species_code, share}',
  })
  .min(1, 'must hold at least one species')
  .max(SPECIES_MIX_MAX, `may hold at most ${SPECIES_MIX_MAX} species`)

/** POST /v1/plans/options: where, the mixes, and what to weigh (docs/costs.md#options). */
export const PlantingOptionsBody = z.strictObject({
  latitude: latitude.nullish(),
  longitude: longitude.nullish(),
  stand: stand.nullish(),
  species_mix: SpeciesMix.nullish(),
  species_mixes: z
    .array(SpeciesMix, { error: 'must be an array of species mixes' })
    .min(1, 'must hold at least one mix')
    .max(OPTIONS_MIXES_MAX, `may hold at most ${OPTIONS_MIXES_MAX} mixes`)
    .nullish(),
  confidence: confidence.nullish(),
  methods: z
    .array(catalogueCode, { error: 'must be an array of planting methods' })
    .min(1, 'must hold at least one method')
    .max(2, 'may hold at most 2 methods')
    .nullish(),
  treatments: TreatmentChoicesBody.nullish(),
  costs: Costs.nullish(),
  max_trees_per_acre: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, `must be a whole number from 1 to ${TREES_PER_ACRE_MAX}`)
    .max(TREES_PER_ACRE_MAX, `must be a whole number from 1 to ${TREES_PER_ACRE_MAX}`)
    .nullish(),
  climate: climate.nullish(),
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

/** GET /v1/jobs/{id}/report.pdf: only `paper`. */
export const JobReportQuery = z.strictObject(ReportPaperQuery.shape)
