import type { Config } from '../config/config.ts'
import type { Database } from '../db/connect.ts'
import { jobStore } from '../db/store-ports.ts'
import { JobService } from '../domain/jobs/job-service.ts'
import { jobSettings } from '../domain/jobs/job-settings.ts'
import type { ModelRegistry } from '../domain/models/model-registry.ts'
import type { PredictionService } from '../domain/prediction-service.ts'
import type { StockingPlanService } from '../domain/stocking/stocking-service.ts'
import { JOB_FILE_FORMATS } from '../job-files/file-formats.ts'
import type { Logger } from '../logging/logger.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { ChunkHandlers } from '../queue/chunk-worker.ts'
import { DeferredChunkQueue } from '../queue/deferred-chunk-queue.ts'
import { InProcessChunkQueue } from '../queue/in-process-chunk-queue.ts'
import { redisTarget } from '../redis/connection.ts'

export type JobConfig = Pick<
  Config,
  | 'REDIS_URL'
  | 'REDIS_CLUSTER_NODES'
  | 'JOB_WORKERS_IN_SERVER'
  | 'JOB_CONCURRENCY'
  | 'JOB_CHUNK_ROWS'
  | 'JOB_ATTEMPTS'
  | 'JOB_LOCK_MS'
  | 'JOB_RESULT_TTL_HOURS'
  | 'JOB_QUEUE_PREFIX'
  | 'DB_QUERY_TIMEOUT_MS'
>

/** How often unfinished jobs are checked for chunks the queue lost, and expired jobs purged. */
const SWEEP_MS = 60_000

export interface JobRuntime {
  jobs: JobService
  close(): Promise<void>
}

/**
 * Jobs wired once for a server or a worker process: the queue (BullMQ on the Redis of REDIS_URL or the
 * cluster of REDIS_CLUSTER_NODES, else this process's memory), the service, workers when this process
 * runs them, and the sweep that requeues what a crash or a Redis restart lost and purges expired jobs.
 */
export function createJobRuntime(options: {
  config: JobConfig
  database: Database
  predictions: PredictionService
  /** Stands of GeoJSON jobs are planned with it. */
  plans: StockingPlanService
  /** The model versions a job may be scored with. */
  models: ModelRegistry
  metrics: Metrics
  logger: Logger
  now?: () => Date
  /**
   * Whether this process scores chunks: `at-start` (`npm run worker`), `with-first-job` (a server with
   * JOB_WORKERS_IN_SERVER) or not at all. With Redis, BullMQ is imported only when this process first
   * queues a chunk — a job it accepts, or unfinished chunks its sweep finds — and a `with-first-job`
   * worker starts then: a server that never sees a job does not carry BullMQ (~18 MB resident).
   * Without Redis the in-memory queue works from the start either way.
   */
  work: 'at-start' | 'with-first-job' | false
}): JobRuntime {
  const { config, metrics, logger } = options
  const settings = {
    concurrency: config.JOB_CONCURRENCY,
    attempts: config.JOB_ATTEMPTS,
    lockMs: config.JOB_LOCK_MS,
  }
  const redis = redisTarget(config)
  const bull = redis ? { redis, prefix: config.JOB_QUEUE_PREFIX } : undefined
  let worker: { close(): Promise<void> } | undefined
  const queue = bull
    ? new DeferredChunkQueue(async () => {
        const { BullChunkQueue, startBullWorker } = await import('../queue/bullmq-chunk-queue.ts')
        if (options.work) worker = startBullWorker({ ...bull, ...settings }, handlers)
        return new BullChunkQueue(bull, settings.attempts)
      })
    : new InProcessChunkQueue(settings)
  metrics.watchJobQueue(() => queue.depth())
  const jobs = new JobService(
    {
      store: jobStore(options.database.sql, config, metrics),
      queue,
      files: JOB_FILE_FORMATS,
      predictions: options.predictions,
      plans: options.plans,
      models: options.models,
      now: options.now,
      onChunkScored: (rows, failed) => {
        metrics.jobRows.inc({ outcome: 'ok' }, rows - failed)
        if (failed > 0) metrics.jobRows.inc({ outcome: 'failed' }, failed)
      },
    },
    jobSettings(config.JOB_CHUNK_ROWS, config.JOB_RESULT_TTL_HOURS),
  )
  const handlers: ChunkHandlers = {
    run: (task) => jobs.runChunk(task),
    attemptFailed: (task, error, final) => {
      metrics.jobChunksFailed.inc()
      logger.warn({ err: error, jobId: task.jobId, chunk: task.chunkIndex, final }, 'job chunk failed')
    },
    failed: (task) => jobs.chunkFailed(task),
  }
  if (queue instanceof InProcessChunkQueue && options.work) queue.work(handlers)
  if (queue instanceof DeferredChunkQueue && options.work === 'at-start') {
    queue.open().catch((error: unknown) => logger.error({ err: error }, 'job queue could not be opened'))
  }
  const sweep = async () => {
    try {
      const requeued = await jobs.recover()
      if (requeued > 0) logger.info({ chunks: requeued }, 'job chunks queued again after a restart')
      const purged = await jobs.purge()
      if (purged > 0) logger.info({ jobs: purged }, 'expired jobs purged')
    } catch (error) {
      logger.warn({ err: error }, 'job sweep failed; next in a minute')
    }
  }
  const firstSweep = sweep()
  const timer = setInterval(() => void sweep(), SWEEP_MS)
  timer.unref()
  return {
    jobs,
    close: async () => {
      clearInterval(timer)
      await firstSweep
      if (queue instanceof DeferredChunkQueue) await queue.settled()
      await worker?.close()
      await queue.close()
    },
  }
}
