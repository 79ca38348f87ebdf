import { describe, expect, it } from 'vitest'
import { FailoverQuotaStore, type SharedQuotaStore } from './failover-quota-store.ts'
import { MemoryQuotaStore } from './memory-quota-store.ts'

const noon = new Date('2026-11-22T12:00:00Z')
const TIMEOUT_MS = 60

/**
 * A shared store that is connected (`ready`) but leaves the keys in `silent` unanswered, as a Redis
 * Cluster does for the slots of a master that failed until its replica is promoted.
 */
function clusterLike() {
  const counters = new MemoryQuotaStore()
  const silent = new Set<string>()
  const calls: string[] = []
  const store: SharedQuotaStore = {
    consume: (keyId, limit, now, count = 1) => {
      calls.push(`${keyId} ${count}`)
      return silent.has(keyId) ? new Promise(() => {}) : counters.consume(keyId, limit, now, count)
    },
    consumeEach: (keyId, limit, now, requests) => {
      calls.push(`${keyId} each ${requests}`)
      return silent.has(keyId) ? new Promise(() => {}) : counters.consumeEach(keyId, limit, now, requests)
    },
    isReady: () => true,
    close: () => counters.close(),
  }
  return { store, silent, calls }
}

function failover(primary: SharedQuotaStore) {
  const events: string[] = []
  const store = new FailoverQuotaStore(primary, new MemoryQuotaStore(), TIMEOUT_MS, {
    onFallback: () => events.push('fallback'),
    onRecover: () => events.push('recover'),
  })
  return { store, events }
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work
  return { value, ms: performance.now() - started }
}

describe('FailoverQuotaStore while a connected Redis leaves a key unanswered (a cluster master failover)', () => {
  it('waits out the timeout once, then counts that key in memory at once while one probe at a time reads Redis', async () => {
    const { store: primary, silent, calls } = clusterLike()
    const { store, events } = failover(primary)
    silent.add('acct_a')

    const first = await timed(store.consume('acct_a', 10, noon))
    expect(first.value).toEqual({ allowed: true, used: 1 })
    expect(first.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
    expect(store.degraded).toBe(true)

    const next = await timed(Promise.all([1, 2, 3].map(() => store.consume('acct_a', 10, noon))))
    expect(next.ms).toBeLessThan(TIMEOUT_MS / 2)
    expect(next.value.map((answer) => answer.used)).toEqual([2, 3, 4])
    // The counting call, then a single probe (count 0) for the three requests.
    expect(calls).toEqual(['acct_a 1', 'acct_a 0'])
    expect(events).toEqual(['fallback'])
  })

  it('keeps counting the keys Redis answers in Redis meanwhile', async () => {
    const { store: primary, silent } = clusterLike()
    const { store } = failover(primary)
    silent.add('acct_a')
    await store.consume('acct_a', 10, noon)
    await store.consume('acct_b', 10, noon, 5)
    // acct_b's count is Redis's: the primary has it.
    expect(await primary.consume('acct_b', 10, noon, 0)).toEqual({ allowed: true, used: 5 })
  })

  it('returns the key to Redis once a probe is answered; what memory counted meanwhile stays there', async () => {
    const { store: primary, silent, calls } = clusterLike()
    const { store, events } = failover(primary)
    await store.consume('acct_a', 10, noon, 2)
    silent.add('acct_a')
    await store.consume('acct_a', 10, noon)
    await store.consume('acct_a', 10, noon)
    // The replica is promoted: the key answers again.
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 20))
    silent.delete('acct_a')
    await store.consume('acct_a', 10, noon) // in memory; its probe is answered
    await new Promise((resolve) => setImmediate(resolve))
    expect(events).toEqual(['fallback', 'recover'])
    expect(store.degraded).toBe(false)
    expect(await store.consume('acct_a', 10, noon)).toEqual({ allowed: true, used: 3 })
    expect(calls.at(-1)).toBe('acct_a 1')
  })
})
