import type { components, operations, paths } from './schema.ts'

/* The API's bodies under the names the client's methods take and return (from ./schema.ts). */

type Schemas = components['schemas']

export type PredictRequest = Schemas['PredictRequest']
/** One site of a batch: a predict body without `model_version` (the batch's applies). */
export type BatchSite = Schemas['BatchSite']
/** A model version of `GET /v1/models`; a calibrated one (`kind: 'calibrated'`) carries its `fit`. */
export type ModelVersion = Schemas['ModelVersion']
/** `GET /v1/models` → `{models}`: the account's calibrated versions newest first, then the base versions. */
export type ModelVersionList = Schemas['ModelVersionList']
/** A calibrated version: what it was fitted on and what it found (offsets, terms, cross-validation). */
export type CalibrationFit = Schemas['CalibrationFit']
/** A version of the kind `calibrated`, whose `fit` is always there. */
export type CalibratedModelVersion = ModelVersion & { kind: 'calibrated'; fit: CalibrationFit }
/** `PUT /v1/models/default`: `{model_version}`, a version of `GET /v1/models` or null (the base version). */
export type DefaultModelRequest = Schemas['DefaultModelRequest']
/**
 * `POST /v1/models/calibrations`: which surveyed plots to fit on (`species_code`, `planting_method`,
 * `bbox` as `[w, s, e, n]` or `'w,s,e,n'`, `surveyed_from`, `surveyed_to`); none: every plot.
 */
export type CalibrationRequest = Schemas['CalibrationRequest']
/** The filter a calibration fitted on, as the server read it (null for a field not given). */
export type CalibrationFilter = Schemas['CalibrationFilter']
/** A calibration as it stands (`GET /v1/models/calibrations/{id}`): `running`, `succeeded` or `failed`. */
export type CalibrationRun = Schemas['CalibrationRun']
export type CalibrationStatus = CalibrationRun['status']
/** Why a calibration failed: `internal_error` or `interrupted` (start it again). */
export type CalibrationRunError = NonNullable<CalibrationRun['error']>
/** A calibration that succeeded: `model_version` and `model` (with its `fit`) are the version it made. */
export type SucceededCalibration = CalibrationRun & {
  status: 'succeeded'
  model_version: string
  model: CalibratedModelVersion
}
export type PredictionResponse = Schemas['PredictionResponse']
export type CompareRequest = Schemas['CompareRequest']
/** `POST /v1/plans/stocking`: a point or a stand, a species mix, a method and a density. */
export type StockingPlanRequest = Schemas['StockingPlanRequest']
export type StockingPlanResponse = Schemas['StockingPlanResponse']
/**
 * `POST /v1/plans/options`: a point or a stand, one mix (`species_mix`) or candidates (`species_mixes`),
 * and optionally `confidence`, `methods`, `treatments` (lists of the values to weigh), `costs`,
 * `max_trees_per_acre`, `climate` and `model_version`.
 */
export type PlantingOptionsRequest = Schemas['PlantingOptionsRequest']
/** The options meeting the standard, cheapest per acre first, and `cheapest_failing` (or null). */
export type PlantingOptionsResponse = Schemas['PlantingOptionsResponse']
export type PlantingOption = Schemas['PlantingOption']
/** `treatments` of a prediction or a plan: vegetation control, animal protection, stock type, shade. */
export type TreatmentsInput = Schemas['TreatmentsInput']
/** `costs`: figures replacing the defaults of a plan's or an option's cost (`given`). */
export type CostsInput = Schemas['CostsInput']
/** A plan's or an option's `cost`: per acre, per established tree with its interval, the parts. */
export type PlanCost = Schemas['PlanCost']
export type ComparisonResponse = Schemas['ComparisonResponse']
export type RankRequest = Schemas['RankRequest']
export type RankResponse = Schemas['RankResponse']
export type BatchResponse = Schemas['BatchResponse']
export type SpeciesQuery = NonNullable<paths['/v1/species']['get']['parameters']['query']>
export type SpeciesListResponse = Schemas['SpeciesListResponse']
export type MethodListResponse = Schemas['MethodListResponse']
/** `GET /v1/treatments`: the treatments' values, and each effect with what it rests on and cites. */
export type TreatmentCatalogue = Schemas['TreatmentCatalogue']
export type CoverageResponse = Schemas['CoverageResponse']
export type HealthResponse = Schemas['HealthResponse']
export type UsageResponse = Schemas['UsageResponse']
/** `GET /v1/audit` → a page of the account's audit log, newest first, and `next_cursor`. */
export type AuditPageResponse = Schemas['AuditPageResponse']
export type AuditEvent = Schemas['AuditEvent']
export type AuditQuery = NonNullable<paths['/v1/audit']['get']['parameters']['query']>
/** `POST /v1/jobs` → 202: `{id, status, rows, links}`. */
export type JobAccepted = Schemas['JobAccepted']
/** `GET /v1/jobs/{id}`: status, progress, failures by code. */
export type Job = Schemas['Job']
export type JobFormat = Job['format']
/** A GeoJSON job's upload: a FeatureCollection of points (predictions) and polygons (stocking plans). */
export type JobFeatureCollection = Schemas['JobFeatureCollection']
export type JobFeature = Schemas['JobFeature']
/** A GeoJSON job's results (`Accept: application/geo+json`): every feature with its results as properties. */
export type JobResultsCollection = Schemas['JobResultsCollection']
export type JobResultFeature = Schemas['JobResultFeature']
/**
 * A GeoJSON job's defaults, sent as query parameters: the value of each property a feature lacks
 * (`species_code`, `planting_method`, `horizons` as `1|5`, `period`, `scenario`, `trees_per_acre`…).
 */
export type GeoJsonJobDefaults = Omit<
  NonNullable<paths['/v1/jobs']['post']['parameters']['query']>,
  'model_version'
>

/**
 * The defaults every job takes, whatever its format: each treatment, for the rows that name none (a
 * row's own value wins, `none` included).
 */
export const TREATMENT_JOB_DEFAULTS = [
  'vegetation_control',
  'animal_protection',
  'stock_type',
  'shade',
] as const satisfies readonly (keyof GeoJsonJobDefaults)[]
export type TreatmentJobDefaults = Pick<GeoJsonJobDefaults, (typeof TREATMENT_JOB_DEFAULTS)[number]>

export const JOB_MEDIA_TYPES: Record<JobFormat, string> = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  geojson: 'application/geo+json',
}

/** Every default a GeoJSON job takes, as the document lists them (checked against its type below). */
export const GEOJSON_JOB_DEFAULTS = [
  'species_code',
  'planting_method',
  'horizons',
  'period',
  'scenario',
  'trees_per_acre',
  'trees_per_hectare',
  'confidence',
  'rule_set',
  'site_class',
  'target_trees_per_acre',
  'vegetation_control',
  'animal_protection',
  'stock_type',
  'shade',
] as const satisfies readonly (keyof GeoJsonJobDefaults)[]
/** Fails to compile when the document gains a default the list above lacks. */
type UnlistedDefault = Exclude<keyof GeoJsonJobDefaults, (typeof GEOJSON_JOB_DEFAULTS)[number]>
const allDefaultsListed: [UnlistedDefault] extends [never] ? true : never = true
void allDefaultsListed

/** `GET /v1/rasters/survival.tif`'s query: species, method and horizon; a climate, treatments, a model version and a resolution optional. */
export type SurvivalRasterQuery = NonNullable<operations['getSurvivalRaster']['parameters']['query']>
