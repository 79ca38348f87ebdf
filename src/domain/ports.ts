/**
 * Ports: what the domain and access control need from the stores and the job queue. src/db implements
 * the stores over PostgreSQL (wired in by src/db/store-ports.ts) and src/queue the chunk queue. A store
 * that cannot answer throws the domain's StoreUnavailableError (./errors.ts).
 */
import type {
  ApiKeyRecord,
  AuditActor,
  AuditEvent,
  ChunkTask,
  Coordinates,
  DailyUsage,
  IssuedKey,
  JobFormat,
  JobOutline,
  JobRecord,
  JobResultChunk,
  NearestSite,
  NewAuditEvent,
  NewJob,
  PlantingMethod,
  Site,
  SiteBox,
  Tier,
} from '../types.ts'

export interface NearestSiteLookup {
  /** The nearest site within the search radius, or null when there is none. */
  one(point: Coordinates): Promise<NearestSite | null>
  /** The same for many points, answered in the order of `points`. */
  many(points: readonly Coordinates[]): Promise<(NearestSite | null)[]>
}

/** The sites inside an area (a stocking plan's stand). */
/** The site data version answers come from (docs/site-data.md). */
export interface SiteDataHealth {
  version: string
  rows: number
  /** The file it was imported from (its name), or the synthetic generator. */
  source: string
  activated_at: string | null
}

export interface SitesInArea {
  /** Every site whose coordinates lie in the box, ordered by id, and their data version (null when none). */
  within(box: SiteBox): Promise<{ sites: Site[]; dataVersion: string | null }>
}

/** Where a page of sites starts: after a site id (a cursor), or after skipping a number of sites. */
export type SitePageStart = { afterId: number } | { skip: number }

/** One page of the active site data, read in one snapshot with what it belongs to. */
export interface SitePage {
  /** Ordered by id. */
  sites: Site[]
  /** How many sites lie in the box (all the data when no box) in the snapshot the page was read from. */
  matched: number
  dataVersion: string | null
}

/** The active site data a page at a time (OGC API – Features). */
export interface SitePages {
  /** The sites in `box` (every site when null) ordered by id, from `start` on, at most `limit`. */
  page(box: SiteBox | null, start: SitePageStart, limit: number): Promise<SitePage>
  /** One site by id, or null. */
  one(id: number): Promise<{ site: Site | null; dataVersion: string | null }>
}

/** The whole site table at once, for answers derived from every site (the survival map). */
export interface SiteTable {
  /** An opaque token that changes whenever the sites table changes (insert, update, delete, truncate). */
  revision(): Promise<string>
  /** Every site, with the revision they were read at (one consistent snapshot). */
  all(): Promise<{ revision: string; dataVersion: string | null; sites: Site[] }>
}

export interface KeyDirectory {
  /** The key whose hash this is, or null. */
  findByHash(hash: string): Promise<ApiKeyRecord | null>
  /** The key with this id, or null (a report link names the key it acts for by its id). */
  findById(id: string): Promise<ApiKeyRecord | null>
  tiers(): Promise<Tier[]>
}

/** The hourly limits of self-service issuance (SPORE_KEYS_PER_ADDRESS_PER_HOUR, SPORE_KEYS_PER_HOUR). */
export interface IssuanceLimits {
  perAddressPerHour: number
  perHour: number
}

/** Whether a `POST /keys` request may go on to the key store, or which hourly limit refuses it and for how long. */
export type IssuanceAdmission =
  | { admitted: true }
  | { admitted: false; scope: 'address' | 'global'; retryAfterSeconds: number }

/**
 * Hourly counters in front of self-service issuance, checked before the key store is asked, so that a
 * flood of requests past the limits costs no database connection: every request an address makes (not
 * only the ones that get a key), and the keys issued over all addresses. Each window lasts an hour
 * from its first count. Shared by every server process through Redis, or kept in this process's
 * memory (without Redis, or while it is away). The key store's check under its lock stays the exact one.
 */
export interface IssuanceLimiter {
  /**
   * Counts one request from a client address, named by its keyed hash (never the address itself),
   * unless `perHour` keys were issued within the hour or the address has made `perAddressPerHour`
   * requests within its hour: then it counts nothing and says which limit and for how long.
   */
  admit(addressHash: string, limits: IssuanceLimits): Promise<IssuanceAdmission>
  /** Counts a key issued toward the hourly ceiling over all addresses. */
  issued(): Promise<void>
  close(): Promise<void>
}

/** A `POST /keys` request as it is recorded: the address to mail, lower-cased, and who asked. */
export interface NewKeyRequest {
  email: string
  name: string | null
  /** The keyed hash of the client address that asked (hashClientAddress), never the address. */
  issuedFrom: string
}

/** Recorded (its mail follows), or refused by the exact hourly limit named. */
export type KeyRequestRecording =
  | { recorded: true }
  | { recorded: false; scope: 'address' | 'global'; retryAfterSeconds: number }

/**
 * What a mailer is to send for a recorded request, decided under the issuance lock: a new key (the
 * address holds none), a notice with a link to roll the key it holds, or a rolled key (a roll link was
 * confirmed). A key made here is written to the key store only once its message is accepted.
 */
export type KeyMail = (
  | { kind: 'key'; requestId: string; email: string; keyId: string; key: string }
  | {
      kind: 'notice'
      requestId: string
      email: string
      keyId: string
      keyHint: string
      /** The roll link's secret: only its hash is kept. */
      linkToken: string
      linkExpiresAt: Date
    }
  | {
      kind: 'rolled_key'
      requestId: string
      email: string
      keyId: string
      key: string
      previousKeyId: string
    }
) & {
  /** Which try at mailing this request this is, from 1. */
  attempt: number
}

/** Where a roll link stands: usable, spent, past its hour, or never made. */
export type RollLinkState = 'valid' | 'used' | 'expired' | 'unknown'

/**
 * Self-service keys by email, kept in the database so that any server process can mail them and none
 * is lost to a restart: requests recorded, taken up by a mailer under a lease, and roll links.
 */
export interface KeyMailbox {
  /** Records a request unless the address or everyone has made `limits` requests within the hour. */
  record(request: NewKeyRequest, limits: IssuanceLimits): Promise<KeyRequestRecording>
  /** The next due request with what to mail for it, leased for `leaseMs`; null when none is due. */
  takeNext(leaseMs: number, linkTtlMs: number): Promise<KeyMail | null>
  /** The message was accepted: the key (if any) becomes the address's, with its audit event. */
  delivered(mail: KeyMail): Promise<void>
  /** The message was not accepted: try again at `retryAt`, or give up when it is null. */
  failed(requestId: string, reason: string, retryAt: Date | null): Promise<void>
  /** Where the roll link with this secret stands (only its hash is looked up). */
  rollLink(token: string): Promise<RollLinkState>
  /** Spends a valid link and queues the roll, from the client address that confirmed it; else where it stands. */
  confirmRoll(token: string, confirmedFrom: string): Promise<RollLinkState>
  /** Removes requests finished and links expired before `before`; how many. */
  purge(before: Date): Promise<number>
}

/** One message to one address, plain text. */
export interface MailMessage {
  to: string
  subject: string
  text: string
}

/** Sends mail (SMTP, or the log in development); resolves once the message is accepted. */
export interface MailSender {
  send(message: MailMessage): Promise<void>
  close(): Promise<void>
}

/** Keys their holders manage themselves: rolling a key, and reading it. */
export interface KeyAccounts {
  /**
   * Replaces an active (or deactivated) key; the old one keeps working for `graceSeconds` (0 = stops at
   * once). null when the key was already rolled or revoked. The `key.rotated` event by `actor` is
   * written with the change, in its transaction (as `issueSporeKey` writes `key.issued`).
   */
  rotate(
    keyId: string,
    graceSeconds: number,
    actor: AuditActor,
  ): Promise<{ issued: IssuedKey; previousExpiresAt: Date } | null>
  findById(keyId: string): Promise<ApiKeyRecord | null>
}

/**
 * The audit log: what changed in each account, by whom, when, and from which client address (its
 * keyed hash). Append only: events are added and read, never changed or removed. Key changes write
 * their events in their own transactions (KeyAccounts); other changes append theirs here.
 */
export interface AuditLog {
  append(event: NewAuditEvent): Promise<void>
  /**
   * At most `limit` of an account's events, newest first, after the event `after` when given; null when
   * `after` is not an event of this account.
   */
  page(accountId: string, limit: number, after: string | null): Promise<AuditEvent[] | null>
}

/** A plot as kept: what was sent, the site it was matched to, and the model's survival at its age. */
export interface SurveyPlot {
  plotId: string
  surveyedOn: string
  plantedOn: string
  latitude: number
  longitude: number
  speciesCode: string
  plantingMethod: PlantingMethod
  planted: number
  alive: number
  plotAreaM2: number | null
  protocol: string | null
  siteId: number
  matchedLatitude: number
  matchedLongitude: number
  matchDistanceKm: number
  ageYears: number
  predicted: number
  modelVersion: string
  /** The site data version the prediction was made from; null for a survey kept before versions. */
  dataVersion: string | null
  /** The treatments the plot had, under their API names, as sent; null (or absent) when it named none. */
  treatments?: PlotTreatments | null
  /**
   * Per treatment effect the plot's treatments applied (by effect id): ∂logit(predicted)/∂r, how far
   * the prediction's logit at the plot's age moves per unit of the effect's share; null (or absent)
   * when none did.
   */
  treatmentSlopes?: Readonly<Record<string, number>> | null
  updatedAt: Date
}

/** A plot's treatments under their API names (vegetation_control …), the ones named only. */
export type PlotTreatments = Readonly<Record<string, string>>

/** Which of an account's survey plots a list or a report covers; every field narrows it. */
export interface SurveyFilter {
  speciesCode?: string
  plantingMethod?: string
  /** [west, south, east, north] in degrees. */
  bbox?: readonly [number, number, number, number]
  /** Inclusive `YYYY-MM-DD` bounds of surveyed_on. */
  surveyedFrom?: string
  surveyedTo?: string
}

/**
 * What the report reads of an account's plots of one species × method: a column per field, entry i of
 * each the same plot (a million plots are then a few dozen of these, not a million objects).
 */
export interface SurveyReportColumns {
  speciesCode: string
  plantingMethod: PlantingMethod
  planted: Int32Array
  alive: Int32Array
  predicted: Float64Array
  ageYears: Float64Array
  /**
   * Plots with treatment effects come in a group of their own: entry i is plot i's slopes by effect
   * (SurveyPlot.treatmentSlopes). Absent for a group of plots without.
   */
  treatmentSlopes?: readonly Readonly<Record<string, number>>[]
}

/** Where an account's survey plots are kept (PostgreSQL). Every call names the account; none reaches another's. */
export interface SurveyStore {
  /**
   * Adds the plots, replacing those with the same (plot_id, surveyed_on), and appends `event`, all in
   * one transaction, unless the account would then hold more than `limit`: then nothing is kept, and
   * the number it would have held is returned.
   */
  save(
    accountId: string,
    plots: readonly SurveyPlot[],
    limit: number,
    event: NewAuditEvent,
  ): Promise<{ saved: true } | { saved: false; wouldHold: number }>
  /** At most `limit` plots after the (plot_id, surveyed_on) `after`, in that order. */
  page(
    accountId: string,
    filter: SurveyFilter,
    limit: number,
    after: readonly [string, string] | null,
  ): Promise<SurveyPlot[]>
  /** Every survey of one plot, oldest first. */
  plot(accountId: string, plotId: string): Promise<SurveyPlot[]>
  /** Removes one plot's surveys (or every plot's, with null) and appends `event` with their number; how many. */
  remove(accountId: string, plotId: string | null, event: NewAuditEvent): Promise<number>
  /** The plots the filter keeps, one entry per species × method that has any: none when it keeps none. */
  reportPlots(accountId: string, filter: SurveyFilter): Promise<SurveyReportColumns[]>
  /** The plots the filter keeps that `version` predicted, with their planting years (one snapshot). */
  calibrationPlots(accountId: string, filter: SurveyFilter, version: string): Promise<CalibrationPlotColumns>
}

/** What a calibration reads of an account's plots. */
export interface CalibrationPlotColumns {
  /** A species × method may come in two groups: plots without treatment effects, and plots with. */
  groups: (SurveyReportColumns & { plantingYear: Int32Array })[]
  /** Plots the filter kept whose predictions another model version made. */
  otherVersionPlots: number
  /** The site data versions the kept plots' predictions were made from, by name. */
  dataVersions: string[]
}

/** One row of a survey upload that was refused: its number (1 = first data row or feature), field and reason. */
export interface SurveyRefusal {
  row: number
  plotId: string | null
  field: string
  code: string
  reason: string
}

export type SurveyUploadStatus = 'receiving' | 'committed' | 'refused' | 'failed'

/** A bulk survey upload as kept: what it read, refused and stored, and why it stored nothing. */
export interface SurveyUploadRecord {
  id: string
  accountId: string
  status: SurveyUploadStatus
  format: 'csv' | 'ndjson' | 'geojson'
  skipInvalid: boolean
  rowsRead: number
  rowsValid: number
  rowsRefused: number
  stored: number
  ignoredColumns: string[]
  failure: { code: string; message: string } | null
  createdAt: Date
  finishedAt: Date | null
}

/**
 * Where survey uploads stream to. Valid rows are staged beside the account's plots and reach them only
 * at `commit`, in one transaction, so an upload that stops before leaves no plot behind.
 */
export interface SurveyUploadStore {
  create(upload: {
    id: string
    accountId: string
    keyId: string
    format: SurveyUploadRecord['format']
    skipInvalid: boolean
    ignoredColumns: readonly string[]
  }): Promise<void>
  /** Stages the valid rows of one batch and records its refusals and the counts so far. */
  addBatch(
    uploadId: string,
    staged: readonly { row: number; plot: SurveyPlot }[],
    refused: readonly SurveyRefusal[],
    counts: { rowsRead: number; rowsValid: number; rowsRefused: number },
  ): Promise<void>
  /** The upload is still streaming: keeps the sweep from taking it for one a stopped server left. */
  touch(uploadId: string): Promise<void>
  /**
   * Moves the staged rows into the account's plots (the last row of a (plot_id, surveyed_on) wins) and
   * appends `event`, unless the account would then hold more than `limit`: then nothing moves.
   */
  commit(
    accountId: string,
    uploadId: string,
    limit: number,
    event: NewAuditEvent,
  ): Promise<{ stored: number } | { wouldHold: number }>
  /** Ends an upload that stored nothing, dropping its staged rows. */
  finishEmpty(
    uploadId: string,
    status: 'refused' | 'failed',
    failure: { code: string; message: string },
  ): Promise<void>
  /** The account's upload, or null when it has none of that id. */
  find(accountId: string, uploadId: string): Promise<SurveyUploadRecord | null>
  /** At most `limit` refusals of an upload, after row `afterRow`, in row order. */
  refusals(uploadId: string, afterRow: number, limit: number): Promise<SurveyRefusal[]>
  /**
   * Fails the uploads left receiving and untouched since `stalledBefore` (their server stopped), and
   * removes those finished before `expiredBefore`; how many of each.
   */
  sweep(stalledBefore: Date, expiredBefore: Date): Promise<{ stalled: number; expired: number }>
}

/**
 * Survey upload tickets: a one-time right to stream one upload for the key that asked, kept by the
 * SHA-256 of its token (the token itself is never stored).
 */
export interface SurveyUploadTicketStore {
  issue(ticket: {
    tokenHash: string
    accountId: string
    keyId: string
    skipInvalid: boolean
    expiresAt: Date
  }): Promise<void>
  /** Marks the ticket used, if it is unused and unexpired at `at`; the hash of its key, or null. */
  redeem(tokenHash: string, at: Date): Promise<{ keyHash: string; skipInvalid: boolean } | null>
  /** Removes the tickets that expired before `expiredBefore`; how many. */
  sweep(expiredBefore: Date): Promise<number>
}

/** Daily request counts per account, kept where a restart of Redis or of a server cannot lose them. */
export interface UsageLedger {
  add(counts: readonly { accountId: string; day: string; requests: number }[]): Promise<void>
  touch(lastUsed: readonly { keyId: string; at: Date }[]): Promise<void>
  /** Days from `fromDay` on (inclusive) with any requests, ascending. */
  history(accountId: string, fromDay: string): Promise<DailyUsage[]>
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
  /** `dataVersion`: the site data version the chunk was scored from. */
  writeResultChunk(
    jobId: string,
    chunkIndex: number,
    result: JobResultChunk,
    dataVersion: string | null,
  ): Promise<boolean>
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

/** A calibrated model version as kept: its fit's JSON, exactly as written. */
export interface StoredModelVersion {
  version: string
  parent: string
  /** The fit's JSON; its SHA-256 names the version. */
  fit: string
  createdAt: Date
}

export type CalibrationRunStatus = 'running' | 'succeeded' | 'failed'

/** A calibration asked for: running, or finished with a version or an error. */
export interface CalibrationRun {
  id: string
  accountId: string
  status: CalibrationRunStatus
  filter: SurveyFilter
  stagesDone: number
  stages: number
  /** The plots it fits on, once they are read. */
  plots: number | null
  version: string | null
  error: { code: string; message: string } | null
  createdAt: Date
  heartbeatAt: Date
  finishedAt: Date | null
}

export type CalibrationRunOutcome = { version: string } | { error: { code: string; message: string } }

/** Where calibrated versions, calibrations and account defaults are kept (PostgreSQL). */
export interface ModelVersionStore {
  version(accountId: string, version: string): Promise<StoredModelVersion | null>
  versions(accountId: string): Promise<StoredModelVersion[]>
  /** Keeps the version (and appends `event`) unless the account has it already; the version as kept. */
  save(
    accountId: string,
    version: Omit<StoredModelVersion, 'createdAt'>,
    event: NewAuditEvent,
  ): Promise<StoredModelVersion>
  defaultVersion(accountId: string): Promise<string | null>
  setDefault(accountId: string, version: string | null, event: NewAuditEvent): Promise<void>
  startRun(
    run: { id: string; accountId: string; filter: SurveyFilter; stages: number },
    staleBefore: Date,
  ): Promise<{ started: CalibrationRun } | { running: CalibrationRun }>
  progress(id: string, progress: { stagesDone: number; plots: number | null }): Promise<void>
  finishRun(id: string, outcome: CalibrationRunOutcome): Promise<void>
  run(accountId: string, id: string): Promise<CalibrationRun | null>
}

/** Where each site data version came from (docs/site-data.md), for what a report says of its data. */
export interface SiteDataOrigins {
  /** Whether a version holds the synthetic sites (`npm run db:seed`); an unknown version counts as synthetic. */
  synthetic(version: string): Promise<boolean>
}
