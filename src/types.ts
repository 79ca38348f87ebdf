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

/**
 * Site attributes in an object of one class, for code that writes a site's attributes into an object it
 * reuses or that builds sites of its own. The numbers start as NaN, so V8 lays every field out as a double
 * from the first object on: a fraction written later changes no field's layout (an object literal whose
 * first values were whole numbers would move to a new layout at the first fraction, object by object).
 */
export class SiteAttributeFields implements SiteAttributes {
  zone: ForestZone = FOREST_ZONES[0]
  state: UsState | undefined = undefined
  elevationM = Number.NaN
  slopeDeg = Number.NaN
  aspectDeg = Number.NaN
  heatLoadIndex = Number.NaN
  soilDepthCm = Number.NaN
  rockFractionPct = Number.NaN
  vegetationCoverPct = Number.NaN
  annualPrecipMm = Number.NaN
  summerWaterDeficitMm = Number.NaN
  growingSeasonFrostDays = Number.NaN
  browsePressureIndex = Number.NaN
}

export interface Site extends SiteAttributes {
  id: number
  latitude: number
  longitude: number
  /** Forest region id from seed/data/forest_regions.json. */
  regionId: string
}

/** The site nearest a point, within the search radius. */
export interface NearestSite {
  site: Site
  /** Great-circle distance on the earthdistance sphere, km. */
  distanceKm: number
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

/**
 * Whether a site lies in a species' native range: its ecological zone is one of the species'
 * `rangeZones` and its state one of its `rangeStates` (seed/data/species.csv). The model's native_range
 * factor and the rankings' `native_range` both apply this rule.
 */
export function isInNativeRange(species: Species, site: Pick<SiteAttributes, 'zone' | 'state'>): boolean {
  return species.rangeZones.includes(site.zone) && (!site.state || species.rangeStates.includes(site.state))
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
  /** Predictions in ascending horizon order; default horizons are [1, 3, 5]. */
  predict(
    site: SiteAttributes,
    species: Species,
    method: PlantingMethod,
    horizons?: readonly Horizon[],
  ): HorizonPrediction[]
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

/** What self-service issuance of a spore key came to. */
export type SporeKeyOutcome =
  | { kind: 'issued'; key: IssuedKey }
  | { kind: 'key_exists' }
  | { kind: 'limited'; scope: 'address' | 'global'; retryAfterSeconds: number }

export interface SporeKeyRequest {
  /** Lower-cased. */
  email: string
  name: string | null
  /** SHA-256 of the client address. */
  issuedFrom: string
  perAddressPerHour: number
  perHour: number
}

/** Requests of one account on one UTC day (`YYYY-MM-DD`). */
export interface DailyUsage {
  day: string
  requests: number
}

/*
 * Ports: what the domain and access control need from the stores. src/db implements them over
 * PostgreSQL; src/store-ports.ts wires them in. A store that cannot answer throws the domain's
 * StoreUnavailableError.
 */

export interface NearestSiteLookup {
  /** The nearest site within the search radius, or null when there is none. */
  one(point: Coordinates): Promise<NearestSite | null>
  /** The same for many points, answered in the order of `points`. */
  many(points: readonly Coordinates[]): Promise<(NearestSite | null)[]>
}

/** A box of coordinates, degrees. */
export interface SiteBox {
  west: number
  south: number
  east: number
  north: number
}

/** The sites inside an area (a stocking plan's stand). */
export interface SitesInArea {
  /** Every site whose coordinates lie in the box, ordered by id. */
  within(box: SiteBox): Promise<Site[]>
}

/** The whole site table at once, for answers derived from every site (the survival map). */
export interface SiteTable {
  /** An opaque token that changes whenever the sites table changes (insert, update, delete, truncate). */
  revision(): Promise<string>
  /** Every site, with the revision they were read at (one consistent snapshot). */
  all(): Promise<{ revision: string; sites: Site[] }>
}

export interface KeyDirectory {
  /** The key whose hash this is, or null. */
  findByHash(hash: string): Promise<ApiKeyRecord | null>
  tiers(): Promise<Tier[]>
}

/** Keys their holders manage themselves: self-service spore keys and rolling a key. */
export interface KeyAccounts {
  issueSporeKey(request: SporeKeyRequest): Promise<SporeKeyOutcome>
  /**
   * Replaces an active (or deactivated) key; the old one keeps working for `graceSeconds` (0 = stops at
   * once). null when the key was already rolled or revoked.
   */
  rotate(keyId: string, graceSeconds: number): Promise<{ issued: IssuedKey; previousExpiresAt: Date } | null>
  findById(keyId: string): Promise<ApiKeyRecord | null>
}

/** Daily request counts per account, kept where a restart of Redis or of a server cannot lose them. */
export interface UsageLedger {
  add(counts: readonly { accountId: string; day: string; requests: number }[]): Promise<void>
  touch(lastUsed: readonly { keyId: string; at: Date }[]): Promise<void>
  /** Days from `fromDay` on (inclusive) with any requests, ascending. */
  history(accountId: string, fromDay: string): Promise<DailyUsage[]>
}

export const JOB_FORMATS = ['csv', 'ndjson', 'geojson'] as const
export type JobFormat = (typeof JOB_FORMATS)[number]
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]

/** A job's state and the shape of its results. */
export type JobOutline = Pick<JobRecord, 'status' | 'format' | 'columns'>

/** A job as stored, with its progress summed over the chunks written so far. */
export interface JobRecord {
  id: string
  accountId: string
  tier: TierName
  format: JobFormat
  /** The input's columns, echoed first in every result row. */
  columns: string[]
  /** 'receiving' while the upload is still arriving. */
  status: JobStatus | 'receiving'
  rowsTotal: number
  chunkRows: number
  chunksTotal: number
  chunksDone: number
  rowsDone: number
  rowsFailed: number
  errorsByCode: Record<string, number>
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

/** Where jobs, their uploads and their results are kept (PostgreSQL), shared by servers and workers. */
export interface JobStore {
  create(job: NewJob): Promise<void>
  addInputChunk(jobId: string, chunkIndex: number, firstRow: number, rows: string): Promise<void>
  /** The upload is complete: queued with its size. */
  accept(jobId: string, rowsTotal: number, chunksTotal: number): Promise<void>
  remove(jobId: string): Promise<void>
  find(jobId: string): Promise<JobRecord | null>
  /** What a worker needs to score a chunk, without the progress summed over every chunk written. */
  outline(jobId: string): Promise<JobOutline | null>
  /** queued → running (the first chunk to start); false when the job is no longer queued or running. */
  markRunning(jobId: string, at: Date): Promise<boolean>
  inputChunk(jobId: string, chunkIndex: number): Promise<string | null>
  /** Writes a chunk's results once; false when they were already written (a retried chunk). */
  writeResultChunk(jobId: string, chunkIndex: number, result: JobResultChunk): Promise<boolean>
  /** running → succeeded once every chunk's results are written. */
  finishIfComplete(jobId: string, at: Date): Promise<boolean>
  fail(jobId: string, reason: string, at: Date): Promise<void>
  /** queued or running → cancelled; false when the job had already finished. */
  cancel(jobId: string, at: Date): Promise<boolean>
  /** Chunks of queued and running jobs whose results are not written yet. */
  pendingChunks(): Promise<{ jobId: string; chunkIndex: number }[]>
  /** Byte length of each chunk's results in one format, in chunk order. */
  resultSizes(jobId: string, format: JobFormat): Promise<number[]>
  /** Results of chunks `from` to `from + count − 1` in one format, in chunk order. */
  resultTexts(jobId: string, format: JobFormat, from: number, count: number): Promise<string[]>
  /** Deletes jobs past their expiry, and uploads abandoned while arriving; returns how many. */
  purge(now: Date, abandonedBefore: Date): Promise<number>
}

/** A chunk of a job to score. */
export interface ChunkTask {
  jobId: string
  chunkIndex: number
}

/**
 * Where chunks wait for a worker: BullMQ on Redis (workers in any process that reaches PostgreSQL and
 * Redis), or this process's memory without Redis. Adding a chunk already waiting changes nothing.
 */
export interface ChunkQueue {
  add(tasks: readonly ChunkTask[]): Promise<void>
  /** Chunks waiting or being scored (for the queue-depth metric). */
  depth(): Promise<number>
  close(): Promise<void>
}
