import { type ConnectionOptions, Queue, Worker } from 'bullmq'
import type { ChunkQueue } from '../domain/ports/chunk-queue.ts'
import { openRedis, queuePrefix, type RedisTarget } from '../redis/connection.ts'
import type { ChunkTask } from '../types.ts'
import { type ChunkHandlers, retryDelayMs, taskKey, type WorkerSettings } from './chunk-worker.ts'

const QUEUE_NAME = 'job-chunks'

export interface BullSettings {
  /** A single Redis or a Redis Cluster. */
  redis: RedisTarget
  /**
   * Namespace of the queue's keys in Redis, so deployments (and test runs) can share one server. On a
   * cluster it is hash-tagged (`{…}`, see queuePrefix) so that all of the queue's keys share one slot.
   */
  prefix: string
}

/**
 * BullMQ's connection to the target: connection options for a single Redis, as BullMQ has always been
 * given them (it opens and closes its own clients), or a `Cluster` for a cluster, which BullMQ takes as
 * an instance and leaves for `release` to close. Per-node options such as `maxRetriesPerRequest` go into
 * the cluster's `redisOptions` (BullMQ reads them there, and refuses a worker whose are not `null`).
 */
function bullConnection(
  target: RedisTarget,
  options: { maxRetriesPerRequest: number | null; enableOfflineQueue?: boolean },
): { connection: ConnectionOptions; release(): void } {
  if (target.kind === 'single') return { connection: { url: target.url, ...options }, release: () => {} }
  // Lazy: a worker only duplicates it, so this one never needs to connect.
  const cluster = openRedis(target, { ...options, lazyConnect: true })
  cluster.on('error', () => {})
  return { connection: cluster, release: () => cluster.disconnect() }
}

/**
 * Chunks queued in Redis with BullMQ: any process that reaches PostgreSQL and Redis can score them
 * (`npm run worker`), which is how jobs scale past one machine. A chunk's id is its job and index, so
 * adding a chunk still waiting or being scored changes nothing.
 */
export class BullChunkQueue implements ChunkQueue {
  private readonly queue: Queue
  private readonly release: () => void

  constructor(
    settings: BullSettings,
    private readonly attempts: number,
  ) {
    const { connection, release } = bullConnection(settings.redis, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    })
    this.release = release
    this.queue = new Queue(QUEUE_NAME, { connection, prefix: queuePrefix(settings.prefix, settings.redis) })
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
    this.release()
  }
}

/** A BullMQ worker scoring chunks in this process; close() lets the chunks in hand finish. */
export function startBullWorker(
  settings: BullSettings & WorkerSettings,
  handlers: ChunkHandlers,
): { close(): Promise<void> } {
  const { connection, release } = bullConnection(settings.redis, { maxRetriesPerRequest: null })
  const worker = new Worker<ChunkTask>(QUEUE_NAME, (job) => handlers.run(job.data), {
    connection,
    prefix: queuePrefix(settings.prefix, settings.redis),
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
  return {
    close: async () => {
      await worker.close()
      release()
    },
  }
}
