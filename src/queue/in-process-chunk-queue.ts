import type { ChunkQueue } from '../domain/ports/chunk-queue.ts'
import type { ChunkTask } from '../types.ts'
import { type ChunkHandlers, retryDelayMs, taskKey, type WorkerSettings } from './chunk-worker.ts'

/**
 * Chunks queued in this process's memory and scored by it: the same runner without Redis (the
 * embedded `npm start`, or PostgreSQL alone). What is queued is lost with the process; the server's
 * recovery queues it again from PostgreSQL when it starts.
 */
export class InProcessChunkQueue implements ChunkQueue {
  private readonly waiting: ChunkTask[] = []
  private readonly known = new Set<string>()
  private active = 0
  private closing = false
  private handlers: ChunkHandlers | undefined
  private readonly idle: (() => void)[] = []
  /** Wakes the chunks sleeping before a retry (close does, so it need not wait out a backoff). */
  private readonly backoffs: (() => void)[] = []

  constructor(private readonly settings: Pick<WorkerSettings, 'concurrency' | 'attempts'>) {}

  /** Starts scoring: until then chunks only wait. */
  work(handlers: ChunkHandlers): void {
    this.handlers = handlers
    this.pump()
  }

  async add(tasks: readonly ChunkTask[]): Promise<void> {
    for (const task of tasks) {
      const key = taskKey(task)
      if (this.known.has(key)) continue
      this.known.add(key)
      this.waiting.push(task)
    }
    this.pump()
  }

  async depth(): Promise<number> {
    return this.waiting.length + this.active
  }

  /**
   * Stops taking chunks and waits for those being scored; a chunk waiting to be retried is dropped
   * (the next start's recovery queues it again from PostgreSQL).
   */
  async close(): Promise<void> {
    this.closing = true
    for (const wake of this.backoffs.splice(0)) wake()
    if (this.active > 0) await new Promise<void>((resolve) => this.idle.push(resolve))
  }

  private pump(): void {
    const handlers = this.handlers
    while (handlers && !this.closing && this.active < this.settings.concurrency && this.waiting.length > 0) {
      const task = this.waiting.shift() as ChunkTask
      this.active += 1
      void this.attempt(handlers, task, 1).finally(() => {
        this.active -= 1
        this.known.delete(taskKey(task))
        if (this.active === 0) for (const resolve of this.idle.splice(0)) resolve()
        this.pump()
      })
    }
  }

  private async attempt(handlers: ChunkHandlers, task: ChunkTask, attempt: number): Promise<void> {
    try {
      await handlers.run(task)
    } catch (error) {
      const final = attempt >= this.settings.attempts || this.closing
      handlers.attemptFailed(task, error, final)
      if (final) {
        if (!this.closing) await handlers.failed(task).catch(() => {})
        return
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer)
          const index = this.backoffs.indexOf(wake)
          if (index >= 0) this.backoffs.splice(index, 1)
          resolve()
        }
        const timer = setTimeout(wake, retryDelayMs(attempt))
        this.backoffs.push(wake)
      })
      if (this.closing) return
      return this.attempt(handlers, task, attempt + 1)
    }
  }
}
