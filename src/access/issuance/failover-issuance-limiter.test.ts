import { describe, expect, it } from 'vitest'
import { FailoverIssuanceLimiter, type SharedIssuanceLimiter } from './failover-issuance-limiter.ts'
import { MemoryIssuanceLimiter } from './memory-issuance-limiter.ts'

const LIMITS = { perAddressPerHour: 2, perHour: 100 }
const TIMEOUT_MS = 50

/** Shared counters (in memory here) that can be made to stop answering or to disconnect. */
function sharedCounters() {
  const counters = new MemoryIssuanceLimiter()
  const state = { silent: false, ready: true, calls: 0 }
  const answer = <T>(work: () => Promise<T>): Promise<T> => {
    state.calls += 1
    return state.silent ? new Promise(() => {}) : work()
  }
  const limiter: SharedIssuanceLimiter = {
    admit: (hash, limits) => answer(() => counters.admit(hash, limits)),
    issued: () => answer(() => counters.issued()),
    probe: () => answer(async () => {}),
    isReady: () => state.ready,
    close: () => counters.close(),
  }
  return { limiter, state }
}

function failover(primary: SharedIssuanceLimiter) {
  const events: string[] = []
  const limiter = new FailoverIssuanceLimiter(primary, new MemoryIssuanceLimiter(), TIMEOUT_MS, {
    onFallback: () => events.push('fallback'),
    onRecover: () => events.push('recover'),
  })
  return { limiter, events }
}

describe('FailoverIssuanceLimiter', () => {
  it('counts in memory while Redis is not connected, and in Redis again once it is', async () => {
    const shared = sharedCounters()
    const { limiter, events } = failover(shared.limiter)
    shared.state.ready = false
    expect(await limiter.admit('a', LIMITS)).toEqual({ admitted: true })
    expect(await limiter.admit('a', LIMITS)).toEqual({ admitted: true })
    expect(await limiter.admit('a', LIMITS)).toMatchObject({ admitted: false, scope: 'address' })
    expect(limiter.degraded).toBe(true)
    expect(shared.state.calls).toBe(0)
    shared.state.ready = true
    expect(await limiter.admit('a', LIMITS)).toEqual({ admitted: true })
    expect(events).toEqual(['fallback', 'recover'])
    expect(limiter.degraded).toBe(false)
  })

  it('waits out an unanswered Redis once, then counts in memory at once while one probe asks Redis', async () => {
    const shared = sharedCounters()
    const { limiter, events } = failover(shared.limiter)
    shared.state.silent = true
    const started = performance.now()
    expect(await limiter.admit('b', LIMITS)).toEqual({ admitted: true })
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
    const quick = performance.now()
    await Promise.all([limiter.admit('b', LIMITS), limiter.issued(), limiter.admit('c', LIMITS)])
    expect(performance.now() - quick).toBeLessThan(TIMEOUT_MS / 2)
    expect(await limiter.admit('b', LIMITS)).toMatchObject({ admitted: false, scope: 'address' })
    // The first call, then a single probe for all the rest.
    expect(shared.state.calls).toBe(2)
    expect(events).toEqual(['fallback'])
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 20))
    shared.state.silent = false
    await limiter.admit('d', LIMITS) // in memory; its probe is answered
    await new Promise((resolve) => setImmediate(resolve))
    expect(events).toEqual(['fallback', 'recover'])
    await limiter.admit('d', LIMITS)
    expect(shared.state.calls).toBe(4)
  })
})
