import type { ChunkQueue } from '../domain/ports/chunk-queue.ts'
import type { ChunkTask } from '../types.ts'

/**
 * A queue made when it is first needed: the first `add` (or `open`) makes it, and every call after goes
 * to it. Before that nothing was queued through this process, so `depth` reads 0 and `close` has
 * nothing to do. A failed making is tried again by the next call.
 */
export class DeferredChunkQueue implements ChunkQueue {
  private made: Promise<ChunkQueue> | undefined
  private closed = false

  constructor(private readonly make: () => Promise<ChunkQueue>) {}

  /** Makes the queue now rather than on the first `add`. */
  open(): Promise<ChunkQueue> {
    if (this.closed) return Promise.reject(new Error('the chunk queue is closed'))
    this.made ??= this.make().catch((error: unknown) => {
      this.made = undefined
      throw error
    })
    return this.made
  }

  async add(tasks: readonly ChunkTask[]): Promise<void> {
    await (await this.open()).add(tasks)
  }

  async depth(): Promise<number> {
    return this.made ? (await this.made).depth() : 0
  }

  /** Waits for a making under way, so whatever it started is known before it is stopped. */
  async settled(): Promise<void> {
    await this.made?.catch(() => {})
  }

  async close(): Promise<void> {
    this.closed = true
    const queue = await this.made?.catch(() => undefined)
    await queue?.close()
  }
}
