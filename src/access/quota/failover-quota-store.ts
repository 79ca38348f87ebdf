import { type FailoverEvents, RedisFallback } from '../redis-fallback.ts'
import type { QuotaConsumption, QuotaStore } from './quota-store.ts'

/** A shared store that can tell whether it is reachable right now (Redis). */
export interface SharedQuotaStore extends QuotaStore {
  isReady(): boolean
}

/** How many unanswered keys are remembered; past it they are forgotten at once (each then probes again). */
const MAX_UNANSWERED_KEYS = 10_000

/**
 * Redis while it answers; this process's memory while it does not (an "insurance" limiter, as in
 * rate-limiter-flexible), back to Redis as soon as it is reachable again. During an outage each
 * instance enforces the daily limit on its own, counting from 0, and Redis's count resumes where it was:
 * a key can get up to limit × (instances + 1) that day (test/faults/outage-bounds.test.ts).
 *
 * Redis that is connected but does not answer in time (a Redis Cluster during a master failover: the
 * cluster stays `ready` while the failed master's slots go unanswered until a replica is promoted) is
 * found out per key: once a key's call has timed out, that key's requests are counted in memory at once
 * while a read of its counter (counting nothing) probes Redis, one at a time; when a probe is answered
 * the key counts in Redis again. So only the first request of a key waits out the timeout, and keys
 * whose calls are answered (other masters' slots) keep counting in Redis throughout.
 */
export class FailoverQuotaStore implements QuotaStore {
  private readonly outage: RedisFallback
  /** Keys whose last call to Redis was not answered → whether a probe for it is out now. */
  private readonly unanswered = new Map<string, boolean>()

  constructor(
    private readonly primary: SharedQuotaStore,
    private readonly fallback: QuotaStore,
    timeoutMs: number,
    events: FailoverEvents,
  ) {
    this.outage = new RedisFallback(timeoutMs, events)
  }

  /** True while quotas are kept in this process: the last attempt failed or Redis is not connected now. */
  get degraded(): boolean {
    return this.outage.active || !this.primary.isReady()
  }

  consume(keyId: string, limit: number | null, now: Date, count = 1): Promise<QuotaConsumption> {
    return this.either(keyId, now, (store) => store.consume(keyId, limit, now, count))
  }

  consumeEach(keyId: string, limit: number | null, now: Date, requests: number): Promise<QuotaConsumption[]> {
    return this.either(keyId, now, (store) => store.consumeEach(keyId, limit, now, requests))
  }

  private async either<T>(keyId: string, now: Date, call: (store: QuotaStore) => Promise<T>): Promise<T> {
    if (this.primary.isReady()) {
      if (this.unanswered.has(keyId)) {
        this.probe(keyId, now)
        return call(this.fallback)
      }
      try {
        const result = await this.outage.withTimeout(call(this.primary))
        this.outage.recovered()
        return result
      } catch (error) {
        if (this.unanswered.size >= MAX_UNANSWERED_KEYS) this.unanswered.clear()
        this.unanswered.set(keyId, false)
        this.outage.fallBack(error)
      }
    } else if (!this.outage.active) {
      // Only the first request of an outage builds (and reports) an error; the rest go straight on.
      this.outage.fallBack(new Error('Redis is not connected'))
    }
    return call(this.fallback)
  }

  /** Reads an unanswered key's counter in Redis (count 0), unless a probe for it is out already. */
  private probe(keyId: string, now: Date): void {
    if (this.unanswered.get(keyId)) return
    this.unanswered.set(keyId, true)
    this.outage.withTimeout(this.primary.consume(keyId, null, now, 0)).then(
      () => {
        this.unanswered.delete(keyId)
        this.outage.recovered()
      },
      () => {
        if (this.unanswered.has(keyId)) this.unanswered.set(keyId, false)
      },
    )
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()])
  }
}
