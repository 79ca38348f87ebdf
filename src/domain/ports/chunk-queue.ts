import type { ChunkTask } from '../../types.ts'

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
