import type { components, paths } from './schema.ts'

/* The API's bodies under the names the client's methods take and return (from ./schema.ts). */

type Schemas = components['schemas']

export type PredictRequest = Schemas['PredictRequest']
/** One site of a batch: a predict body without `model_version` (the batch's applies). */
export type BatchSite = Schemas['BatchSite']
/** A model version of `GET /v1/models`. */
export type ModelVersion = Schemas['ModelVersion']
export type PredictionResponse = Schemas['PredictionResponse']
export type CompareRequest = Schemas['CompareRequest']
export type ComparisonResponse = Schemas['ComparisonResponse']
export type RankRequest = Schemas['RankRequest']
export type RankResponse = Schemas['RankResponse']
export type BatchResponse = Schemas['BatchResponse']
export type SpeciesQuery = NonNullable<paths['/v1/species']['get']['parameters']['query']>
export type SpeciesListResponse = Schemas['SpeciesListResponse']
export type MethodListResponse = Schemas['MethodListResponse']
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
] as const satisfies readonly (keyof GeoJsonJobDefaults)[]
/** Fails to compile when the document gains a default the list above lacks. */
type UnlistedDefault = Exclude<keyof GeoJsonJobDefaults, (typeof GEOJSON_JOB_DEFAULTS)[number]>
const allDefaultsListed: [UnlistedDefault] extends [never] ? true : never = true
void allDefaultsListed
