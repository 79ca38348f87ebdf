import { randomBytes } from 'node:crypto'
import type {
  ChunkTask,
  JobFormat,
  JobRecord,
  ModelInfo,
  SurvivalModel,
  Tier,
  TierName,
} from '../../types.ts'
import { DataVersionSeen } from '../data-version-seen.ts'
import { ApiError, apiError, invalidField } from '../errors.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import type { ChunkQueue } from '../ports/chunk-queue.ts'
import type { JobStore } from '../ports/jobs.ts'
import type { PredictionService } from '../prediction-service.ts'
import type { BatchItemResult } from '../prediction-types.ts'
import type { StockingPlanService } from '../stocking/stocking-service.ts'
import type { StreamedUpload } from '../streamed-upload.ts'
import { fieldsOfTreatments, treatmentsOfFields } from '../treatment-fields.ts'
import type { TreatmentsRequest } from '../treatment-values.ts'
import type { FeatureOutcome, InputRow, JobFileFormats } from './file-formats.ts'
import { type JobResultsSummary, JobResultsTally } from './job-results-summary.ts'
import { DEFAULT_JOB_SETTINGS, type JobSettings } from './job-settings.ts'
import { withJobTreatments } from './job-treatments.ts'

/** The tiers that may run jobs: portfolio work is mycel's and hypha's. */
const JOB_TIERS: readonly TierName[] = ['mycel', 'hypha']

/** What a job service works with. */
export interface JobServiceParts {
  store: JobStore
  queue: ChunkQueue
  /** How uploads are read and results written (src/job-files). */
  files: JobFileFormats
  predictions: PredictionService
  /** Plans the stands of GeoJSON jobs. */
  plans?: StockingPlanService
  /**
   * The model a job's chunks are scored with, by its account and recorded version
   * (ModelRegistry.resolve); absent, the prediction service's own.
   */
  models?: Pick<ModelRegistry, 'resolve'>
  now?: () => Date
  /** Told each chunk's rows once its results are written, and how many of them failed. */
  onChunkScored?: (rows: number, failed: number) => void
}

/** Who a job belongs to: the account of the key that created it (every key of a rotation chain). */
export interface JobOwner {
  accountId: string
  keyId: string
  tier: Tier
}

/** A job as its owner sees it. */
export interface JobView extends JobRecord {
  status: Exclude<JobRecord['status'], 'receiving'>
  etaSeconds: number | null
}

/** What a results download sends: the header, each chunk's text, then the trailer; and their byte lengths. */
export interface ResultsPlan {
  job: JobView
  format: JobFormat
  header: string
  chunkBytes: number[]
  /** After the last chunk: a GeoJSON collection's close; '' otherwise. */
  trailer: string
  totalBytes: number
}

/** A chunk's stored text is flushed at this size too, whatever its row count (stands can be large). */
const CHUNK_TEXT_BYTES = 4 * 1024 * 1024

const FINAL: readonly JobRecord['status'][] = ['succeeded', 'failed', 'cancelled']
/** Chunks read per query when streaming results. */
const RESULT_PAGE = 16

export function newJobId(): string {
  return `job_${randomBytes(12).toString('hex')}`
}

/** Seconds left at the pace so far; null before any row is done or once the job is over. */
function eta(job: JobRecord, now: Date): number | null {
  if (job.status !== 'running' || !job.startedAt || job.rowsDone === 0) return null
  const seconds = (now.getTime() - job.startedAt.getTime()) / 1000
  return Math.ceil(((job.rowsTotal - job.rowsDone) * seconds) / job.rowsDone)
}

/**
 * Portfolio jobs, once for every way in: an upload becomes chunks of checked rows; each chunk is
 * scored by the same prediction service as a batch (one KNN statement) and its results written once;
 * the owner reads progress and streams the results in input order.
 */
export class JobService {
  private readonly store: JobStore
  private readonly queue: ChunkQueue
  private readonly files: JobFileFormats
  private readonly predictions: PredictionService
  private readonly plans: StockingPlanService | undefined
  private readonly models: Pick<ModelRegistry, 'resolve'> | undefined
  private readonly now: () => Date
  private readonly onChunkScored: (rows: number, failed: number) => void

  constructor(
    parts: JobServiceParts,
    private readonly settings: JobSettings = DEFAULT_JOB_SETTINGS,
  ) {
    this.store = parts.store
    this.queue = parts.queue
    this.files = parts.files
    this.predictions = parts.predictions
    this.plans = parts.plans
    this.models = parts.models
    this.now = parts.now ?? (() => new Date())
    this.onChunkScored = parts.onChunkScored ?? (() => {})
  }

  get chunkRows(): number {
    return this.settings.chunkRows
  }

  /**
   * Reads the upload as it streams in, storing each chunk as it fills, then charges the job's cost —
   * ⌈rows ÷ the tier's batch size⌉ requests, through `charge` — and queues its chunks. Anything that
   * stops it before it is accepted (a bad header, too many rows, the quota, the client gone) leaves
   * nothing behind.
   */
  async create(
    owner: JobOwner,
    upload: StreamedUpload,
    charge: (requests: number) => Promise<void>,
    /** The model version every row is scored with (model_version); absent, the account's default. */
    modelVersion?: string,
    /** Treatments for every row that does not name its own (docs/jobs.md → Treatments). */
    treatments?: TreatmentsRequest,
  ) {
    if (!JOB_TIERS.includes(owner.tier.name)) throw apiError('jobs_not_in_tier', { tier: owner.tier.name })
    const model: ModelInfo = this.models
      ? await this.models.resolve(owner.accountId, modelVersion)
      : this.predictions.model
    const id = newJobId()
    const treatmentDefaults = fieldsOfTreatments(treatments)
    // Only the treatments named: none named leaves every row, and the stored job, as before treatments.
    const rowDefaults = treatmentsOfFields(treatmentDefaults)
    let created = false
    let chunks = 0
    try {
      const rows = this.files.read(upload)
      let columns: string[] | undefined
      let chunk: InputRow[] = []
      let chunkText = ''
      let total = 0
      let stands = 0
      const flush = async () => {
        await this.store.addInputChunk(id, chunks, chunk[0]?.r ?? total, `[${chunkText}]`)
        chunks += 1
        chunk = []
        chunkText = ''
      }
      for await (const read of rows) {
        if ('columns' in read) {
          columns = read.columns
          continue
        }
        const item = withJobTreatments(read, rowDefaults)
        if (!created) {
          await this.store.create({
            id,
            accountId: owner.accountId,
            keyId: owner.keyId,
            tier: owner.tier.name,
            format: upload.format,
            columns: columns ?? [],
            modelVersion: model.version,
            defaults: {
              ...(upload.format === 'geojson' ? upload.defaults : {}),
              ...treatmentDefaults,
            },
            chunkRows: this.settings.chunkRows,
            expiresAt: new Date(this.now().getTime() + this.settings.ttlMs),
          })
          created = true
        }
        total += 1
        if (total > this.settings.maxRows)
          throw apiError(
            'payload_too_large',
            { maxRows: this.settings.maxRows },
            { details: { max_rows: this.settings.maxRows }, headers: { connection: 'close' } },
          )
        if (item.p) {
          stands += 1
          if (stands > this.settings.maxStands)
            throw apiError(
              'payload_too_large',
              { maxStands: this.settings.maxStands },
              { details: { max_stands: this.settings.maxStands }, headers: { connection: 'close' } },
            )
        }
        chunkText += `${chunk.length > 0 ? ',' : ''}${JSON.stringify(item)}`
        chunk.push(item)
        if (chunk.length === this.settings.chunkRows || chunkText.length >= CHUNK_TEXT_BYTES) await flush()
      }
      // The file formats refuse an upload without rows themselves, saying what it lacks.
      if (total === 0) throw invalidField('body', 'holds no rows')
      if (chunk.length > 0) await flush()
      // Rows (a GeoJSON job's points) cost as a batch does; each stand is a plan, one request.
      await charge(Math.ceil((total - stands) / owner.tier.batchSizeLimit) + stands)
      await this.store.accept(id, total, chunks)
    } catch (error) {
      if (created) await this.store.remove(id).catch(() => {})
      throw error
    }
    // Accepted and charged, the job is whole in the store: if the queue cannot take its chunks now (Redis
    // away, a cluster master failing over), the minute sweep (recover) queues them, so the upload stands.
    await this.queue
      .add(Array.from({ length: chunks }, (_, chunkIndex) => ({ jobId: id, chunkIndex })))
      .catch(() => {})
    return this.view(await this.found(id))
  }

  async status(owner: JobOwner, jobId: string): Promise<JobView> {
    return this.view(await this.owned(owner, jobId))
  }

  /** Cancels a job still queued or running; a finished job is deleted with its results. */
  async cancel(owner: JobOwner, jobId: string): Promise<{ cancelled: JobView } | { deleted: string }> {
    const job = await this.owned(owner, jobId)
    if (!FINAL.includes(job.status) && (await this.store.cancel(jobId, this.now())))
      return { cancelled: this.view(await this.found(jobId)) }
    await this.store.remove(jobId)
    return { deleted: jobId }
  }

  async results(owner: JobOwner, jobId: string, format: JobFormat): Promise<ResultsPlan> {
    const job = this.view(await this.owned(owner, jobId))
    if (job.status !== 'succeeded') throw apiError('job_not_finished', { job: jobId, status: job.status })
    const { header, trailer } = this.files.resultsFrame(job, format)
    const chunkBytes = await this.store.resultSizes(jobId, format)
    const totalBytes = chunkBytes.reduce(
      (sum, bytes) => sum + bytes,
      Buffer.byteLength(header) + Buffer.byteLength(trailer),
    )
    return { job, format, header, chunkBytes, trailer, totalBytes }
  }

  /**
   * A finished job's results summed for its report: its NDJSON results read once, a few chunks at a
   * time, each row added to the sums and let go, so a job of a million rows is never held. 409
   * job_not_finished until it has succeeded, as for its results.
   */
  async resultsSummary(
    owner: JobOwner,
    jobId: string,
  ): Promise<{ job: JobView; summary: JobResultsSummary }> {
    const job = this.view(await this.owned(owner, jobId))
    if (job.status !== 'succeeded') throw apiError('job_not_finished', { job: jobId, status: job.status })
    const tally = new JobResultsTally()
    for (let from = 0; from < job.chunksTotal; from += RESULT_PAGE) {
      const count = Math.min(RESULT_PAGE, job.chunksTotal - from)
      for (const text of await this.store.resultTexts(jobId, 'ndjson', from, count))
        for (const row of this.files.resultOutcomes(text)) tally.add(row)
    }
    return { job, summary: tally.summary() }
  }

  /** The results' chunks from `fromChunk` on, in order, read a few at a time. */
  async *resultChunks(plan: ResultsPlan, fromChunk: number): AsyncGenerator<string> {
    for (let from = fromChunk; from < plan.chunkBytes.length; from += RESULT_PAGE) {
      const count = Math.min(RESULT_PAGE, plan.chunkBytes.length - from)
      yield* await this.store.resultTexts(plan.job.id, plan.format, from, count)
    }
  }

  /**
   * Scores one chunk and writes its results once. A chunk of a job no longer running is skipped; a
   * chunk already written (a retry after a worker died) writes nothing again.
   */
  async runChunk(task: ChunkTask): Promise<void> {
    const job = await this.store.outline(task.jobId)
    if (!job || job.status === 'receiving' || FINAL.includes(job.status)) return
    if (job.status === 'queued' && !(await this.store.markRunning(task.jobId, this.now()))) return
    const text = await this.store.inputChunk(task.jobId, task.chunkIndex)
    if (text === null) return
    const rows = JSON.parse(text) as InputRow[]
    const requests = rows.flatMap((row) => (row.q ? [row.q] : []))
    const model = this.models ? await this.models.resolve(job.accountId, job.modelVersion) : undefined
    const seen = new DataVersionSeen()
    const scored = seen.through(requests.length > 0 ? await this.predictions.scoreRows(requests, model) : [])
    const rendered =
      job.format === 'geojson'
        ? this.files.renderFeatures(
            rows,
            (await this.featureOutcomes(rows, scored, model, seen))[Symbol.iterator](),
            task.chunkIndex,
          )
        : this.files.renderRows(job, rows, scored)
    if (await this.store.writeResultChunk(task.jobId, task.chunkIndex, rendered, seen.version))
      this.onChunkScored(rendered.rowsDone, rendered.rowsFailed)
    await this.store.finishIfComplete(task.jobId, this.now())
  }

  /**
   * Each checked feature's outcome in row order: points from the chunk's one batch, stands planned one
   * after another (a plan's own error fails that feature alone).
   */
  private async featureOutcomes(
    rows: readonly InputRow[],
    scored: Iterable<BatchItemResult>,
    model: SurvivalModel | undefined,
    seen: DataVersionSeen,
  ): Promise<FeatureOutcome[]> {
    const predictions = scored[Symbol.iterator]()
    const outcomes: FeatureOutcome[] = []
    for (const row of rows) {
      if (row.e) continue
      if (row.q) {
        const next = predictions.next()
        if (next.done) throw new Error('fewer results than points to score')
        outcomes.push({ kind: 'prediction', result: next.value })
      } else if (row.p) {
        if (!this.plans) throw new Error('a GeoJSON job with stands needs the stocking plan service')
        try {
          const plan = await this.plans.plan(row.p, model)
          seen.note(plan.dataVersion)
          outcomes.push({ kind: 'plan', plan })
        } catch (error) {
          if (!(error instanceof ApiError)) throw error
          outcomes.push({ kind: 'plan_failed', error })
        }
      }
    }
    return outcomes
  }

  /** A chunk that failed every attempt fails its job: its results could never be whole. */
  async chunkFailed(task: ChunkTask): Promise<void> {
    await this.store.fail(task.jobId, `chunk ${task.chunkIndex} could not be scored`, this.now())
  }

  /**
   * Queues every chunk of an unfinished job that has no results yet: after a restart, or when the
   * queue lost what it held (Redis keeps nothing on disk). Chunks still waiting are not added twice.
   */
  async recover(): Promise<number> {
    const pending = await this.store.pendingChunks()
    if (pending.length > 0) await this.queue.add(pending)
    return pending.length
  }

  async purge(): Promise<number> {
    const now = this.now()
    return this.store.purge(now, new Date(now.getTime() - this.settings.abandonedAfterMs))
  }

  private async found(jobId: string): Promise<JobRecord> {
    const job = await this.store.find(jobId)
    if (!job) throw apiError('not_found', { job: jobId })
    return job
  }

  /** The job, if it is this owner's and its upload is complete; else 404, as for no job at all. */
  private async owned(owner: JobOwner, jobId: string): Promise<JobRecord> {
    const job = /^job_[0-9a-f]{24}$/.test(jobId) ? await this.store.find(jobId) : null
    if (!job || job.accountId !== owner.accountId || job.status === 'receiving')
      throw apiError('not_found', { job: jobId })
    return job
  }

  private view(job: JobRecord): JobView {
    return { ...job, status: job.status as JobView['status'], etaSeconds: eta(job, this.now()) }
  }
}
