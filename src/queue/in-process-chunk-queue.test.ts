import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ChunkTask } from '../types.ts'
import { type ChunkHandlers, retryDelayMs } from './chunk-worker.ts'
import { InProcessChunkQueue } from './in-process-chunk-queue.ts'

const task = (chunkIndex: number, jobId = 'job_a'): ChunkTask => ({ jobId, chunkIndex })

/** A promise the test settles itself. */
function deferred() {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Lets every pending promise callback run (the queue's bookkeeping happens in them). */
const settle = () => new Promise((resolve) => setImmediate(resolve))

/**
 * Handlers whose runs wait until the test releases them, recording what ran, how many ran at once
 * at most, and every failed attempt.
 */
function gatedHandlers() {
  const gates = new Map<string, ReturnType<typeof deferred>[]>()
  const runs: ChunkTask[] = []
  const attempts: { task: ChunkTask; final: boolean }[] = []
  const failed: ChunkTask[] = []
  let running = 0
  let maxRunning = 0
  const key = (t: ChunkTask) => `${t.jobId}-${t.chunkIndex}`
  const handlers: ChunkHandlers = {
    async run(t) {
      runs.push(t)
      running += 1
      maxRunning = Math.max(maxRunning, running)
      const gate = deferred()
      gates.set(key(t), [...(gates.get(key(t)) ?? []), gate])
      try {
        await gate.promise
      } finally {
        running -= 1
      }
    },
    attemptFailed(t, _error, final) {
      attempts.push({ task: t, final })
    },
    async failed(t) {
      failed.push(t)
    },
  }
  /** Ends the oldest unfinished run of `t` (with an error when given). */
  const release = async (t: ChunkTask, error?: unknown) => {
    const gate = gates.get(key(t))?.shift()
    if (!gate) throw new Error(`${key(t)} is not running`)
    if (error === undefined) gate.resolve()
    else gate.reject(error)
    await settle()
  }
  return {
    handlers,
    runs,
    attempts,
    failed,
    release,
    get running() {
      return running
    },
    get maxRunning() {
      return maxRunning
    },
  }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('InProcessChunkQueue', () => {
  it('holds chunks until work() starts, then scores them in the order added', async () => {
    const queue = new InProcessChunkQueue({ concurrency: 1, attempts: 1 })
    const gated = gatedHandlers()
    await queue.add([task(0), task(1)])
    expect(await queue.depth()).toBe(2)
    expect(gated.runs).toEqual([])

    queue.work(gated.handlers)
    expect(gated.runs).toEqual([task(0)])
    expect(await queue.depth()).toBe(2)
    await gated.release(task(0))
    expect(gated.runs).toEqual([task(0), task(1)])
    await gated.release(task(1))
    expect(await queue.depth()).toBe(0)
  })

  it('adds a chunk already waiting only once, in one call or across calls', async () => {
    const queue = new InProcessChunkQueue({ concurrency: 1, attempts: 1 })
    const gated = gatedHandlers()
    await queue.add([task(0), task(1), task(1)])
    await queue.add([task(1), task(0), task(0, 'job_b')])
    expect(await queue.depth()).toBe(3)

    queue.work(gated.handlers)
    for (const t of [task(0), task(1), task(0, 'job_b')]) await gated.release(t)
    expect(gated.runs).toEqual([task(0), task(1), task(0, 'job_b')])
  })

  it('ignores a chunk added again while it is being scored, and takes it again once done', async () => {
    const queue = new InProcessChunkQueue({ concurrency: 2, attempts: 1 })
    const gated = gatedHandlers()
    queue.work(gated.handlers)
    await queue.add([task(0)])
    expect(gated.runs).toEqual([task(0)])
    await queue.add([task(0)])
    expect(await queue.depth()).toBe(1)
    expect(gated.runs).toEqual([task(0)])

    await gated.release(task(0))
    await queue.add([task(0)])
    expect(gated.runs).toEqual([task(0), task(0)])
    await gated.release(task(0))
  })

  it.each([1, 2, 3])('scores at most %i chunks at once', async (concurrency) => {
    const queue = new InProcessChunkQueue({ concurrency, attempts: 1 })
    const gated = gatedHandlers()
    queue.work(gated.handlers)
    const tasks = Array.from({ length: 7 }, (_, index) => task(index))
    await queue.add(tasks)
    expect(gated.running).toBe(concurrency)
    for (const t of tasks) {
      await gated.release(t)
      expect(gated.running).toBeLessThanOrEqual(concurrency)
    }
    expect(gated.runs).toEqual(tasks)
    expect(gated.maxRunning).toBe(concurrency)
    expect(await queue.depth()).toBe(0)
  })

  it('keeps scoring the others when one chunk is slow', async () => {
    const queue = new InProcessChunkQueue({ concurrency: 2, attempts: 1 })
    const gated = gatedHandlers()
    queue.work(gated.handlers)
    await queue.add([task(0), task(1), task(2), task(3)])
    await gated.release(task(1))
    await gated.release(task(2))
    expect(gated.runs).toEqual([task(0), task(1), task(2), task(3)])
    await gated.release(task(3))
    await gated.release(task(0))
  })

  it('retries a failing chunk after 1 s, 2 s…, up to its attempts, then calls failed once', async () => {
    vi.useFakeTimers()
    const queue = new InProcessChunkQueue({ concurrency: 1, attempts: 3 })
    const errors: unknown[] = []
    const attempts: boolean[] = []
    const failed: ChunkTask[] = []
    const run = vi.fn(async (_t: ChunkTask) => {
      throw new Error(`attempt ${run.mock.calls.length}`)
    })
    queue.work({
      run,
      attemptFailed: (_t, error, final) => {
        errors.push(error)
        attempts.push(final)
      },
      failed: async (t) => {
        failed.push(t)
      },
    })
    await queue.add([task(0)])
    await vi.advanceTimersByTimeAsync(0)
    expect(run).toHaveBeenCalledTimes(1)
    expect(attempts).toEqual([false])

    await vi.advanceTimersByTimeAsync(retryDelayMs(1) - 1)
    expect(run).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(run).toHaveBeenCalledTimes(2)

    await vi.advanceTimersByTimeAsync(retryDelayMs(2) - 1)
    expect(run).toHaveBeenCalledTimes(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(run).toHaveBeenCalledTimes(3)
    expect(attempts).toEqual([false, false, true])
    expect(errors.map((error) => (error as Error).message)).toEqual(['attempt 1', 'attempt 2', 'attempt 3'])
    expect(failed).toEqual([task(0)])

    await vi.advanceTimersByTimeAsync(60_000)
    expect(run).toHaveBeenCalledTimes(3)
    expect(failed).toHaveLength(1)
    expect(await queue.depth()).toBe(0)
  })

  it('stops retrying once a retry succeeds, and never calls failed', async () => {
    vi.useFakeTimers()
    const queue = new InProcessChunkQueue({ concurrency: 1, attempts: 2 })
    const failed = vi.fn(async () => {})
    const attemptFailed = vi.fn()
    let calls = 0
    const run = vi.fn(async () => {
      calls += 1
      if (calls === 1) throw new Error('database away')
    })
    queue.work({ run, attemptFailed, failed })
    await queue.add([task(0)])
    await vi.advanceTimersByTimeAsync(retryDelayMs(1))
    expect(run).toHaveBeenCalledTimes(2)
    expect(attemptFailed).toHaveBeenCalledTimes(1)
    expect(attemptFailed).toHaveBeenCalledWith(task(0), expect.any(Error), false)
    expect(failed).not.toHaveBeenCalled()
    expect(await queue.depth()).toBe(0)
  })

  it('with one attempt, fails at once, and a failing failed() handler does not stop the queue', async () => {
    const queue = new InProcessChunkQueue({ concurrency: 1, attempts: 1 })
    const ran: ChunkTask[] = []
    const attemptFailed = vi.fn()
    queue.work({
      run: async (t) => {
        ran.push(t)
        if (t.chunkIndex === 0) throw new Error('bad chunk')
      },
      attemptFailed,
      failed: () => Promise.reject(new Error('database away')),
    })
    await queue.add([task(0), task(1)])
    await settle()
    expect(ran).toEqual([task(0), task(1)])
    expect(attemptFailed).toHaveBeenCalledExactlyOnceWith(task(0), expect.any(Error), true)
  })

  it('close() waits for the chunks being scored and starts no other', async () => {
    const queue = new InProcessChunkQueue({ concurrency: 2, attempts: 1 })
    const gated = gatedHandlers()
    queue.work(gated.handlers)
    await queue.add([task(0), task(1), task(2)])
    expect(gated.runs).toEqual([task(0), task(1)])

    let closed = false
    const closing = queue.close().then(() => {
      closed = true
    })
    await settle()
    expect(closed).toBe(false)
    await gated.release(task(0))
    expect(closed).toBe(false)
    expect(gated.runs).toEqual([task(0), task(1)])
    await gated.release(task(1))
    await closing
    expect(closed).toBe(true)
    expect(gated.runs).toEqual([task(0), task(1)])

    await queue.add([task(3)])
    await settle()
    expect(gated.runs).toEqual([task(0), task(1)])
  })

  it('close() resolves at once when nothing is being scored', async () => {
    const queue = new InProcessChunkQueue({ concurrency: 1, attempts: 1 })
    await queue.add([task(0)])
    await queue.close()
    queue.work(gatedHandlers().handlers)
    expect(await queue.depth()).toBe(1)
  })

  it('does not call failed for a chunk that fails while the queue is closing (it is queued again at start)', async () => {
    const queue = new InProcessChunkQueue({ concurrency: 1, attempts: 5 })
    const gated = gatedHandlers()
    queue.work(gated.handlers)
    await queue.add([task(0)])
    const closing = queue.close()
    await gated.release(task(0), new Error('interrupted'))
    await closing
    expect(gated.attempts).toEqual([{ task: task(0), final: true }])
    expect(gated.failed).toEqual([])
  })

  // BUG: src/queue/in-process-chunk-queue.ts, attempt(): `closing` is only looked at when an attempt
  // fails, not after the backoff (`await new Promise(... setTimeout(resolve, retryDelayMs(attempt)))`
  // then `return this.attempt(...)`). A chunk that failed just before close() keeps close() — and so
  // the server's shutdown (app.close → jobRuntime.close → queue.close) — waiting for its whole backoff
  // (1, 2, 4, 8 s with the default 5 attempts; up to 30 s with more), then is scored once more after
  // close() was called. Expected, as close()'s own comment says ("Stops taking chunks"): close()
  // resolves without waiting out the backoff and the chunk is not run again (the next start's recovery
  // queues it from PostgreSQL). Actual: close() resolves only after the backoff and a second run.
  it('close() does not wait out a retry’s backoff nor run the chunk again', async () => {
    vi.useFakeTimers()
    const queue = new InProcessChunkQueue({ concurrency: 1, attempts: 5 })
    const run = vi.fn(async () => {
      throw new Error('database away')
    })
    queue.work({ run, attemptFailed: () => {}, failed: async () => {} })
    await queue.add([task(0)])
    await vi.advanceTimersByTimeAsync(0)
    let closed = false
    void queue.close().then(() => {
      closed = true
    })
    await vi.advanceTimersByTimeAsync(0)
    expect(closed).toBe(true)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(run).toHaveBeenCalledTimes(1)
  })
})

describe('retryDelayMs', () => {
  it('doubles from 1 s and stops at 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(retryDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ])
  })
})
