import type { ChunkTask } from '../types.ts'

/** What a worker does with a chunk, and what it is told when a chunk failed its last attempt. */
export interface ChunkHandlers {
  run(task: ChunkTask): Promise<void>
  /** Each failed attempt (logged, counted). */
  attemptFailed(task: ChunkTask, error: unknown, final: boolean): void
  /** The last attempt failed: the job cannot be completed. */
  failed(task: ChunkTask): Promise<void>
}

export interface WorkerSettings {
  /** Chunks scored at once by one worker process: while one waits on PostgreSQL, another runs the model. */
  concurrency: number
  /** Attempts per chunk before its job fails (a database outage is waited out meanwhile). */
  attempts: number
  /** A worker that stops renewing its lock this long is presumed dead: its chunk goes to another. */
  lockMs: number
}

/** Wait before the n-th retry (1-based): 1 s, 2 s, 4 s… capped at 30 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** (attempt - 1))
}

export function taskKey(task: ChunkTask): string {
  return `${task.jobId}-${task.chunkIndex}`
}
