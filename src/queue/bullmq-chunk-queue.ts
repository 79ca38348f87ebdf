import { Queue, Worker } from 'bullmq'
import type { ChunkQueue, ChunkTask } from '../types.ts'
import { type ChunkHandlers, retryDelayMs, taskKey, type WorkerSettings } from './chunk-worker.ts'

const QUEUE_NAME = 'job-chunks'

export interface BullSettings {
  redisUrl: string
  /** Namespace of the queue's keys in Redis, so deployments (and test runs) can share one server. */
  prefix: string
}

/**
 * Chunks queued in Redis with BullMQ: any process that reaches PostgreSQL and Redis can score them
 * (`npm run worker`), which is how jobs scale past one machine. A chunk's id is its job and index, so
 * adding a chunk still waiting or being scored changes nothing.
 */
export class BullChunkQueue implements ChunkQueue {
  private readonly queue: Queue

  constructor(
    settings: BullSettings,
    private readonly attempts: number,
  ) {
    this.queue = new Queue(QUEUE_NAME, {
      connection: { url: settings.redisUrl, maxRetriesPerRequest: 1, enableOfflineQueue: false },
      prefix: settings.prefix,
    })
    this.queue.on('error', () => {})
  }

  async add(tasks: readonly ChunkTask[]): Promise<void> {
    // BullMQ adds a bulk in one MULTI; a million-row job is 2,000 chunks, sent 500 at a time.
    for (let start = 0; start < tasks.length; start += 500) {
      await this.queue.addBulk(
        tasks.slice(start, start + 500).map((task) => ({
          name: 'chunk',
          data: task,
          opts: {
            jobId: taskKey(task),
            attempts: this.attempts,
            backoff: { type: 'exponential', delay: retryDelayMs(1) },
            removeOnComplete: true,
            removeOnFail: 1000,
          },
        })),
      )
    }
  }

  async depth(): Promise<number> {
    return this.queue.getJobCountByTypes('waiting', 'active', 'delayed', 'prioritized')
  }

  async close(): Promise<void> {
    await this.queue.close()
  }
}

/** A BullMQ worker scoring chunks in this process; close() lets the chunks in hand finish. */
export function startBullWorker(
  settings: BullSettings & WorkerSettings,
  handlers: ChunkHandlers,
): { close(): Promise<void> } {
  const worker = new Worker<ChunkTask>(QUEUE_NAME, (job) => handlers.run(job.data), {
    connection: { url: settings.redisUrl, maxRetriesPerRequest: null },
    prefix: settings.prefix,
    concurrency: settings.concurrency,
    lockDuration: settings.lockMs,
    stalledInterval: Math.max(500, Math.floor(settings.lockMs / 2)),
    maxStalledCount: 2,
  })
  worker.on('error', () => {})
  worker.on('failed', (job, error) => {
    if (!job) return
    const final = job.attemptsMade >= (job.opts.attempts ?? 1)
    handlers.attemptFailed(job.data, error, final)
    if (final) void handlers.failed(job.data).catch(() => {})
  })
  return { close: () => worker.close() }
}
