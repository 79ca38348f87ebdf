import { describe, expect, it } from 'vitest'
import type { ChunkQueue } from '../domain/ports/chunk-queue.ts'
import type { ChunkTask } from '../types.ts'
import { DeferredChunkQueue } from './deferred-chunk-queue.ts'

function recordingQueue() {
  const added: ChunkTask[] = []
  let closed = 0
  const queue: ChunkQueue = {
    add: async (tasks) => void added.push(...tasks),
    depth: async () => added.length,
    close: async () => {
      closed += 1
    },
  }
  return { queue, added, closedTimes: () => closed }
}

describe('DeferredChunkQueue', () => {
  it('makes its queue on the first add, once, and sends every add to it', async () => {
    const inner = recordingQueue()
    let made = 0
    const deferred = new DeferredChunkQueue(async () => {
      made += 1
      return inner.queue
    })
    expect(made).toBe(0)
    expect(await deferred.depth()).toBe(0)
    expect(made).toBe(0)
    await Promise.all([
      deferred.add([{ jobId: 'job_a', chunkIndex: 0 }]),
      deferred.add([{ jobId: 'job_a', chunkIndex: 1 }]),
    ])
    await deferred.add([{ jobId: 'job_b', chunkIndex: 0 }])
    expect(made).toBe(1)
    expect(inner.added.map((t) => `${t.jobId}-${t.chunkIndex}`)).toEqual(['job_a-0', 'job_a-1', 'job_b-0'])
    expect(await deferred.depth()).toBe(3)
    await deferred.close()
    expect(inner.closedTimes()).toBe(1)
  })

  it('closes without making anything when it was never used, and refuses work after close', async () => {
    let made = 0
    const deferred = new DeferredChunkQueue(async () => {
      made += 1
      return recordingQueue().queue
    })
    await deferred.close()
    await expect(deferred.add([{ jobId: 'job_a', chunkIndex: 0 }])).rejects.toThrow(/closed/)
    expect(made).toBe(0)
  })

  it('tries again after a failed making, and open() makes it without an add', async () => {
    const inner = recordingQueue()
    let attempts = 0
    const deferred = new DeferredChunkQueue(async () => {
      attempts += 1
      if (attempts === 1) throw new Error('redis is away')
      return inner.queue
    })
    await expect(deferred.add([{ jobId: 'job_a', chunkIndex: 0 }])).rejects.toThrow('redis is away')
    await deferred.settled()
    expect(await deferred.open()).toBe(inner.queue)
    expect(attempts).toBe(2)
    await deferred.add([{ jobId: 'job_a', chunkIndex: 0 }])
    expect(inner.added).toHaveLength(1)
  })
})
