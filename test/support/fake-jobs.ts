import { JobService } from '../../src/domain/jobs/job-service.ts'
import { DEFAULT_JOB_SETTINGS, type JobSettings } from '../../src/domain/jobs/job-settings.ts'
import type { ChunkQueue } from '../../src/domain/ports/chunk-queue.ts'
import type { JobStore } from '../../src/domain/ports/jobs.ts'
import type { PredictionService } from '../../src/domain/prediction-service.ts'
import { JOB_FILE_FORMATS } from '../../src/job-files/file-formats.ts'
import type { ChunkTask, JobFormat, JobRecord, JobResultChunk, NewJob } from '../../src/types.ts'

type StoredJob = Omit<
  JobRecord,
  'chunksDone' | 'rowsDone' | 'rowsFailed' | 'errorsByCode' | 'dataVersions'
> & {
  keyId: string
}

/** JobStore in memory, with the semantics of src/db/jobs.ts (write-once result chunks, sums on read). */
export class FakeJobStore implements JobStore {
  readonly jobs = new Map<string, StoredJob>()
  readonly inputs = new Map<string, string>()
  readonly results = new Map<string, JobResultChunk>()
  readonly dataVersions = new Map<string, string | null>()

  private chunkKey(jobId: string, chunkIndex: number) {
    return `${jobId}#${chunkIndex}`
  }

  private resultChunks(jobId: string): [number, JobResultChunk][] {
    return [...this.results]
      .filter(([key]) => key.startsWith(`${jobId}#`))
      .map(([key, chunk]): [number, JobResultChunk] => [Number(key.split('#')[1]), chunk])
      .sort(([a], [b]) => a - b)
  }

  async create(job: NewJob) {
    this.jobs.set(job.id, {
      ...job,
      status: 'receiving',
      rowsTotal: 0,
      chunksTotal: 0,
      failure: null,
      createdAt: new Date(),
      startedAt: null,
      finishedAt: null,
    })
  }
  async addInputChunk(jobId: string, chunkIndex: number, _firstRow: number, rows: string) {
    this.inputs.set(this.chunkKey(jobId, chunkIndex), rows)
  }
  async accept(jobId: string, rowsTotal: number, chunksTotal: number) {
    const job = this.jobs.get(jobId)
    if (job?.status === 'receiving') Object.assign(job, { status: 'queued', rowsTotal, chunksTotal })
  }
  async remove(jobId: string) {
    this.jobs.delete(jobId)
    for (const map of [this.inputs, this.results])
      for (const key of [...map.keys()]) if (key.startsWith(`${jobId}#`)) map.delete(key)
  }
  async find(jobId: string): Promise<JobRecord | null> {
    const job = this.jobs.get(jobId)
    if (!job) return null
    const chunks = this.resultChunks(jobId).map(([, chunk]) => chunk)
    const errorsByCode: Record<string, number> = {}
    for (const chunk of chunks)
      for (const [code, count] of Object.entries(chunk.errors))
        errorsByCode[code] = (errorsByCode[code] ?? 0) + count
    return {
      ...job,
      chunksDone: chunks.length,
      rowsDone: chunks.reduce((sum, c) => sum + c.rowsDone, 0),
      rowsFailed: chunks.reduce((sum, c) => sum + c.rowsFailed, 0),
      errorsByCode,
      dataVersions: [
        ...new Set(
          this.resultChunks(jobId).flatMap(
            ([index]) => this.dataVersions.get(this.chunkKey(jobId, index)) ?? [],
          ),
        ),
      ],
    }
  }
  async outline(jobId: string) {
    const job = this.jobs.get(jobId)
    return job
      ? {
          status: job.status,
          format: job.format,
          columns: job.columns,
          accountId: job.accountId,
          modelVersion: job.modelVersion,
        }
      : null
  }
  async markRunning(jobId: string, at: Date) {
    const job = this.jobs.get(jobId)
    if (!job || (job.status !== 'queued' && job.status !== 'running')) return false
    job.status = 'running'
    job.startedAt ??= at
    return true
  }
  async inputChunk(jobId: string, chunkIndex: number) {
    return this.inputs.get(this.chunkKey(jobId, chunkIndex)) ?? null
  }
  async writeResultChunk(
    jobId: string,
    chunkIndex: number,
    result: JobResultChunk,
    dataVersion: string | null,
  ) {
    const key = this.chunkKey(jobId, chunkIndex)
    if (!this.jobs.has(jobId) || this.results.has(key)) return false
    this.results.set(key, result)
    this.dataVersions.set(key, dataVersion)
    return true
  }
  async finishIfComplete(jobId: string, at: Date) {
    const job = this.jobs.get(jobId)
    if (job?.status !== 'running' || this.resultChunks(jobId).length !== job.chunksTotal) return false
    Object.assign(job, { status: 'succeeded', finishedAt: at })
    return true
  }
  async fail(jobId: string, reason: string, at: Date) {
    const job = this.jobs.get(jobId)
    if (job && (job.status === 'queued' || job.status === 'running'))
      Object.assign(job, { status: 'failed', failure: reason, finishedAt: at })
  }
  async cancel(jobId: string, at: Date) {
    const job = this.jobs.get(jobId)
    if (!job || (job.status !== 'queued' && job.status !== 'running')) return false
    Object.assign(job, { status: 'cancelled', finishedAt: at })
    return true
  }
  async pendingChunks() {
    const pending: ChunkTask[] = []
    for (const job of this.jobs.values()) {
      if (job.status !== 'queued' && job.status !== 'running') continue
      for (let chunkIndex = 0; chunkIndex < job.chunksTotal; chunkIndex++)
        if (!this.results.has(this.chunkKey(job.id, chunkIndex))) pending.push({ jobId: job.id, chunkIndex })
    }
    return pending
  }
  async resultSizes(jobId: string, format: JobFormat) {
    return this.resultChunks(jobId).map(([, chunk]) => Buffer.byteLength(chunk[format]))
  }
  async resultTexts(jobId: string, format: JobFormat, from: number, count: number) {
    return this.resultChunks(jobId)
      .filter(([index]) => index >= from && index < from + count)
      .map(([, chunk]) => chunk[format])
  }
  async purge(now: Date, abandonedBefore: Date) {
    let purged = 0
    for (const job of [...this.jobs.values()])
      if (job.expiresAt < now || (job.status === 'receiving' && job.createdAt < abandonedBefore)) {
        await this.remove(job.id)
        purged += 1
      }
    return purged
  }
}

/** A queue that only records what was added; the test runs the chunks itself. */
export class RecordingChunkQueue implements ChunkQueue {
  readonly added: ChunkTask[] = []
  async add(tasks: readonly ChunkTask[]) {
    this.added.push(...tasks)
  }
  async depth() {
    return this.added.length
  }
  async close() {}
}

export function jobServiceOver(
  predictions: PredictionService,
  options: {
    store?: FakeJobStore
    queue?: RecordingChunkQueue
    settings?: Partial<JobSettings>
    now?: () => Date
  } = {},
) {
  const store = options.store ?? new FakeJobStore()
  const queue = options.queue ?? new RecordingChunkQueue()
  const jobs = new JobService(
    { store, queue, files: JOB_FILE_FORMATS, predictions, now: options.now },
    { ...DEFAULT_JOB_SETTINGS, ...options.settings },
  )
  return { jobs, store, queue }
}
