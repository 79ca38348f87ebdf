import { describe, expect, it } from 'vitest'
import { CoalescingQuotaStore } from './coalescing-quota-store.ts'
import { MemoryQuotaStore } from './memory-quota-store.ts'
import type { QuotaStore } from './quota-store.ts'

const noon = new Date('2026-11-22T12:00:00Z')

/** A memory store that records every call made to it. */
function recording(fail = false) {
  const inner = new MemoryQuotaStore()
  const calls: string[] = []
  const store: QuotaStore = {
    consume: (keyId, limit, now, count = 1) => {
      calls.push(`consume ${keyId} ${limit} ${count}`)
      return fail ? Promise.reject(new Error('redis is away')) : inner.consume(keyId, limit, now, count)
    },
    consumeEach: (keyId, limit, now, requests) => {
      calls.push(`each ${keyId} ${limit} ${requests}`)
      return fail
        ? Promise.reject(new Error('redis is away'))
        : inner.consumeEach(keyId, limit, now, requests)
    },
    close: () => inner.close(),
  }
  return { store, calls }
}

describe('CoalescingQuotaStore', () => {
  it('counts a turn’s single requests for one key with one call, per key and limit', async () => {
    const { store, calls } = recording()
    const coalescing = new CoalescingQuotaStore(store)
    const answers = await Promise.all([
      coalescing.consume('key_a', 2, noon),
      coalescing.consume('key_b', null, noon),
      coalescing.consume('key_a', 2, noon),
      coalescing.consume('key_a', 2, noon),
      coalescing.consume('key_a', 10, noon),
    ])
    expect(calls).toEqual(['each key_a 2 3', 'consume key_b null 1', 'consume key_a 10 1'])
    expect(answers).toEqual([
      { allowed: true, used: 1 },
      { allowed: true, used: 1 },
      { allowed: true, used: 2 },
      { allowed: false, used: 2 },
      { allowed: true, used: 3 },
    ])
  })

  it('sends other counts straight through, and the next turn makes a new call', async () => {
    const { store, calls } = recording()
    const coalescing = new CoalescingQuotaStore(store)
    await coalescing.consume('key_a', null, noon, 5)
    await coalescing.consume('key_a', null, noon, 0)
    await coalescing.consume('key_a', null, noon)
    await coalescing.consume('key_a', null, noon)
    expect(calls).toEqual([
      'consume key_a null 5',
      'consume key_a null 0',
      'consume key_a null 1',
      'consume key_a null 1',
    ])
  })

  it('keeps the days apart when a turn spans midnight', async () => {
    const { store, calls } = recording()
    const coalescing = new CoalescingQuotaStore(store)
    const answers = await Promise.all([
      coalescing.consume('key_a', 1, new Date('2026-11-22T23:59:59.999Z')),
      coalescing.consume('key_a', 1, new Date('2026-11-23T00:00:00.000Z')),
    ])
    expect(calls).toHaveLength(2)
    expect(answers.every((answer) => answer.allowed)).toBe(true)
  })

  it('fails every request of the call when the store fails', async () => {
    const { store } = recording(true)
    const coalescing = new CoalescingQuotaStore(store)
    const outcomes = await Promise.allSettled([
      coalescing.consume('key_a', 5, noon),
      coalescing.consume('key_a', 5, noon),
    ])
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected'])
  })
})
