/**
 * The vocabulary every layer shares: places, sites, species, planting methods, horizons, tiers and
 * the model's answers. Types and fixed value lists only — no behaviour, no imports — so the model,
 * the domain, the store and the adapters can all speak it without depending on one another.
 */

export interface Coordinates {
  latitude: number
  longitude: number
}

export type PlantingMethod = 'manual' | 'drone_seeded'
export const PLANTING_METHODS: readonly PlantingMethod[] = Object.freeze(['manual', 'drone_seeded'] as const)

export type Horizon = 1 | 3 | 5
export const HORIZONS: readonly Horizon[] = Object.freeze([1, 3, 5] as const)

/** Ecological zones of the synthetic site data, as used in species.csv `range_zones`. */
export const FOREST_ZONES = [
  'coast',
  'westside_lowland',
  'westside_cascades',
  'subalpine',
  'eastside_cascades',
  'klamath',
  'blue_mountains',
  'okanogan_selkirk',
] as const
export type ForestZone = (typeof FOREST_ZONES)[number]

/** The states of the coverage region, as used in species.csv `range_states`. */
export const US_STATES = ['OR', 'WA'] as const
export type UsState = (typeof US_STATES)[number]

/** Site attributes of the synthetic forest-site data set; docs/data-dictionary.md explains each one. */
export interface SiteAttributes {
  zone: ForestZone
  /** The state the site lies in; absent when unknown (the zone alone then decides the native range). */
  state?: UsState
  elevationM: number
  /** 0–60 degrees. */
  slopeDeg: number
  /** 0–360 degrees clockwise from north; downslope direction. */
  aspectDeg: number
  /** 0 (cool, north-facing) – 1 (hot, steep south-west facing); McCune & Keon style folded aspect. */
  heatLoadIndex: number
  soilDepthCm: number
  /** Share of coarse fragments / surface rock, 0–100 %. */
  rockFractionPct: number
  /** Cover of competing grass, forbs and shrubs at planting, 0–100 %. */
  vegetationCoverPct: number
  annualPrecipMm: number
  /** Climatic summer water deficit (potential minus actual evapotranspiration), mm. */
  summerWaterDeficitMm: number
  /** Days in May–September with a minimum temperature at or below −2 °C. */
  growingSeasonFrostDays: number
  /** 0 (none) – 1 (severe) index of browse, clipping and seed predation (deer, elk, mountain beaver, gophers, rodents). */
  browsePressureIndex: number
}

/** The measured (numeric) site attributes, in data-dictionary order. */
export const NUMERIC_SITE_ATTRIBUTES = [
  'elevationM',
  'slopeDeg',
  'aspectDeg',
  'heatLoadIndex',
  'soilDepthCm',
  'rockFractionPct',
  'vegetationCoverPct',
  'annualPrecipMm',
  'summerWaterDeficitMm',
  'growingSeasonFrostDays',
  'browsePressureIndex',
] as const satisfies readonly (keyof SiteAttributes)[]

export interface Site extends SiteAttributes {
  id: number
  latitude: number
  longitude: number
  /** Forest region id from data/forest_regions.json. */
  regionId: string
}

/** The site nearest a point, within the search radius. */
export interface NearestSite {
  site: Site
  /** Great-circle distance on the earthdistance sphere, km. */
  distanceKm: number
  /** The site data version the site was read from (sql/018); null before any version is active. */
  dataVersion: string | null
}

export const TOLERANCE_LEVELS = ['low', 'moderate', 'high'] as const
export type ToleranceLevel = (typeof TOLERANCE_LEVELS)[number]
export const SHADE_TOLERANCE_LEVELS = ['very_low', 'low', 'moderate', 'high', 'very_high'] as const
export type ShadeToleranceLevel = (typeof SHADE_TOLERANCE_LEVELS)[number]
export const SPECIES_GROUPS = ['conifer', 'hardwood'] as const
export type SpeciesGroup = (typeof SPECIES_GROUPS)[number]

export interface Species {
  code: string
  commonName: string
  scientificName: string
  group: SpeciesGroup
  elevMinM: number
  elevMaxM: number
  precipMinMm: number
  precipMaxMm: number
  droughtTolerance: ToleranceLevel
  shadeTolerance: ShadeToleranceLevel
  frostTolerance: ToleranceLevel
  rangeZones: ForestZone[]
  /** States the species is native to: a zone may reach into a state where the species does not grow. */
  rangeStates: UsState[]
  notes: string
}

export interface FactorContribution {
  key: string
  /** Human-readable factor name. */
  factor: string
  /** Change in log-odds of survival relative to the reference site. */
  contribution: number
  /** 'positive' when the contribution is ≥ 0 (exact zeros included), else 'negative'. */
  impact: 'positive' | 'negative'
  magnitude: number
  /** Only on a factor a treatment acted on: its contribution without the treatment (docs/treatments.md). */
  untreatedContribution?: number
}

/**
 * One establishment treatment as the model applies it (built from data/treatments.json by the domain):
 * it removes a share of the named factors' penalty, hand planting's, with that share's uncertainty.
 */
export interface TreatmentEffect {
  /** The treatment and its value, e.g. vegetation_control and release_2yr. */
  treatment: string
  value: string
  /** The model factors it acts on (their keys). */
  factorKeys: readonly string[]
  /** Share of each factor's hand-planting penalty it removes: the central value (may be 0). */
  reduction: number
  /** SD of that share, from the reference's range of the effect. */
  reductionSd: number
}

/** What the treatments did to one factor at one horizon. */
export interface TreatedFactor {
  key: string
  factor: string
  /** With the treatments. */
  contribution: number
  /** Without them. */
  untreatedContribution: number
  /** The treatments that acted on it, e.g. ['vegetation_control']. */
  treatments: readonly string[]
}

/** How treatments changed one horizon's prediction; its contributions and logOdds already hold the change. */
export interface HorizonTreatment {
  untreatedLogOdds: number
  untreatedSurvivalProbability: number
  /** SD, on the logit scale, of the treatments' combined effect here: already in the horizon's uncertainty. */
  effectSd: number
  /** The horizon's uncertainty terms without the treatments' (a plan averages effectSd over its sites). */
  untreatedUncertainty: UncertaintyTerms
  /** The factors the treatments changed at this horizon, in the model's factor order (none where no factor they act on is a risk). */
  factors: readonly TreatedFactor[]
  /**
   * Per effect, in the order the effects were given: ∂logOdds/∂r, how far this horizon's logit moves
   * per unit of the effect's share (0 where its factors are inactive, or the gain is capped).
   */
  effectSlopes: readonly number[]
}

export interface HorizonPrediction {
  horizonYears: Horizon
  survivalProbability: number
  baselineLogOdds: number
  logOdds: number
  /** All factors, sorted by magnitude descending, ties by key. */
  readonly contributions: FactorContribution[]
  /** The first `count` of `contributions`, without building the rest. (Both may live on a prototype: copy by name, not by spread.) */
  topContributions(count: number): FactorContribution[]
  /**
   * The terms of its survival interval: the model version's, and for a calibrated version with the
   * offset's own variance added to the planting-year term (an offset's error is shared by every
   * planting of the species and method, as a year's effect is by every site).
   */
  readonly uncertainty: UncertaintyTerms
  /** A calibrated version's shift of the logit, already in baselineLogOdds and logOdds; absent for a base version. */
  readonly calibration?: CalibrationShift
  /** What treatments changed; absent for a prediction made without any. */
  readonly treatment?: HorizonTreatment
}

/** How a calibrated version moved one species × method's logit, and what stands behind it. */
export interface CalibrationShift {
  /** Added to the base version's logit at every horizon. */
  offset: number
  /** The offset's central interval at `level`. */
  interval: readonly [low: number, high: number]
  level: number
  /** The surveyed plots and trees of this species and method the fit saw (0: it took the pooled value). */
  plots: number
  trees: number
}

export interface FactorDescription {
  key: string
  name: string
  description: string
}

/** Which model answers: reported with every prediction and by health. */
export interface ModelInfo {
  version: string
  codename: string
  series: string
}

/**
 * How far survival can stray from a prediction, on the logit scale: assumptions stated in the model
 * card, not fitted values. The predicted probability is the median of the distribution they give.
 */
export interface UncertaintyTerms {
  /** SD of the planting-year effect, shared by every tree of a stand planted in one year. */
  plantingYearSd: number
  /** SD of the unexplained site effect. */
  siteSd: number
  /** Variance of a per-acre count of survivors over the binomial's: seedlings die in clumps. */
  clumpingDispersion: number
}

/** A survival model ready to evaluate (src/model builds one from a versioned artifact). */
export interface SurvivalModel extends ModelInfo {
  factors: readonly FactorDescription[]
  uncertainty: UncertaintyTerms
  /**
   * Predictions in ascending horizon order; default horizons are [1, 3, 5]. `treatments` absent or
   * empty: the untreated prediction, exactly.
   */
  predict(
    site: SiteAttributes,
    species: Species,
    method: PlantingMethod,
    horizons?: readonly Horizon[],
    treatments?: readonly TreatmentEffect[],
  ): HorizonPrediction[]
  /**
   * A calibrated version's treatment effects its surveys informed, by `treatment=value`: the share,
   * SD and central interval it applies in place of the reference's. Absent where none were informed.
   */
  readonly treatmentShares?: ReadonlyMap<string, InformedShare>
}

/** A treatment effect's share as a calibration's surveys informed it (its posterior). */
export interface InformedShare {
  reduction: number
  reductionSd: number
  reductionRange: readonly [low: number, high: number]
}

export const TIER_NAMES = ['spore', 'mycel', 'hypha'] as const
export type TierName = (typeof TIER_NAMES)[number]

export interface Tier {
  name: TierName
  /** null = unlimited. */
  dailyRequestLimit: number | null
  batchSizeLimit: number
}

export type KeyStatus = 'active' | 'inactive' | 'rotated' | 'revoked'

/** An API key as stored: never the key itself, only its hash (not even that leaves src/db). */
export interface ApiKeyRecord {
  id: string
  tier: TierName
  status: KeyStatus
  name: string | null
  keyHint: string
  rotatedTo: string | null
  /** The first key of its rotation chain: the daily quota and the usage history belong to it. */
  accountId: string
  /** null = never. A rotated key works until then (its grace period). */
  expiresAt: Date | null
  lastUsedAt: Date | null
  createdAt: Date
  updatedAt: Date
}

/** A newly issued key: the only time the plaintext exists outside the holder's hands. */
export interface IssuedKey {
  id: string
  key: string
  tier: TierName
  status: KeyStatus
  expiresAt: Date | null
}

/** Requests of one account on one UTC day (`YYYY-MM-DD`). */
export interface DailyUsage {
  day: string
  requests: number
}

/**
 * What the audit log records: key changes (issued over POST /keys, created, rotated, activated,
 * deactivated and revoked), and what holders write: surveys, calibrations and the account's default
 * model version.
 */
export const AUDIT_EVENT_KINDS = [
  'key.issued',
  'key.created',
  'key.rotated',
  'key.activated',
  'key.deactivated',
  'key.revoked',
  'survey.stored',
  'survey.deleted',
  'model.calibrated',
  'model.default_set',
] as const
export type AuditEventKind = (typeof AUDIT_EVENT_KINDS)[number]

/**
 * Who made a change: the account's holder over the API (the key they acted with, and the HMAC of
 * their client address under ADDRESS_HASH_KEY), or an operator with the keys CLI (neither).
 */
export type AuditActor = { kind: 'holder'; keyId: string; addressHash: string | null } | { kind: 'operator' }

/** A few ids, names and numbers about a change (snake_case names); never a key, hash, email or address. */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null>>

/** One event as it is appended to an account's log. */
export interface NewAuditEvent {
  accountId: string
  kind: AuditEventKind
  actor: AuditActor
  details: AuditDetails
}

/** One event of an account's log as it was kept. */
export interface AuditEvent extends NewAuditEvent {
  id: string
  createdAt: Date
}

/** A box of coordinates, degrees. */
export interface SiteBox {
  west: number
  south: number
  east: number
  north: number
}

export const JOB_FORMATS = ['csv', 'ndjson', 'geojson'] as const
export type JobFormat = (typeof JOB_FORMATS)[number]
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]

/** A job's state and the shape of its results. */
export type JobOutline = Pick<JobRecord, 'status' | 'format' | 'columns' | 'accountId' | 'modelVersion'>

/** A job as stored, with its progress summed over the chunks written so far. */
export interface JobRecord {
  id: string
  accountId: string
  tier: TierName
  format: JobFormat
  /** The input's columns, echoed first in every result row. */
  columns: string[]
  /** The model version every row is scored with, chosen at upload. */
  modelVersion: string
  /**
   * The query string's defaults, as given: a GeoJSON upload's (`period`, `species_code`…) and, for any
   * format, the treatments (`vegetation_control`…); {} for a job with none.
   */
  defaults: Record<string, string>
  /** 'receiving' while the upload is still arriving. */
  status: JobStatus | 'receiving'
  rowsTotal: number
  chunkRows: number
  chunksTotal: number
  chunksDone: number
  rowsDone: number
  rowsFailed: number
  errorsByCode: Record<string, number>
  /** The site data versions its chunks were scored from, in the order first seen (docs/site-data.md). */
  dataVersions: string[]
  failure: string | null
  createdAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  expiresAt: Date
}

export interface NewJob {
  id: string
  accountId: string
  keyId: string
  tier: TierName
  format: JobFormat
  columns: string[]
  chunkRows: number
  modelVersion: string
  /** The query string's defaults (a GeoJSON upload's, and any format's treatments); {} for none. */
  defaults: Record<string, string>
  expiresAt: Date
}

/** One chunk's results as written: each row rendered in every result format (GeoJSON: GeoJSON jobs only, else ''). */
export interface JobResultChunk {
  rowsDone: number
  rowsFailed: number
  errors: Record<string, number>
  csv: string
  ndjson: string
  geojson: string
}

/** A chunk of a job to score. */
export interface ChunkTask {
  jobId: string
  chunkIndex: number
}
