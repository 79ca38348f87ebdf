import type { IssuanceAdmission, IssuanceLimiter, IssuanceLimits } from '../../domain/ports/issuance.ts'
import { type FailoverEvents, RedisFallback } from '../redis-fallback.ts'

/** Issuance counters that can tell whether they are reachable right now (Redis), and be probed. */
export interface SharedIssuanceLimiter extends IssuanceLimiter {
  isReady(): boolean
  /** Reads without counting: resolves once the counters answer again. */
  probe(): Promise<void>
}

/**
 * Redis while it answers; this process's memory while it does not, as the daily quota does
 * (src/access/quota/failover-quota-store.ts), back to Redis as soon as it answers again. During an
 * outage each process counts on its own, so an address can get its allowance once per process that
 * hour; the key store's exact check under its lock is unchanged. A Redis that is connected but leaves
 * the counters unanswered (a cluster master failing over) is waited on once: after that, requests
 * count in memory at once while one probe at a time asks Redis.
 */
export class FailoverIssuanceLimiter implements IssuanceLimiter {
  private readonly outage: RedisFallback
  private unanswered = false
  private probing = false

  constructor(
    private readonly primary: SharedIssuanceLimiter,
    private readonly fallback: IssuanceLimiter,
    timeoutMs: number,
    events: FailoverEvents,
  ) {
    this.outage = new RedisFallback(timeoutMs, events)
  }

  /** True while the counters are kept in this process. */
  get degraded(): boolean {
    return this.outage.active || !this.primary.isReady()
  }

  admit(addressHash: string, limits: IssuanceLimits): Promise<IssuanceAdmission> {
    return this.either((limiter) => limiter.admit(addressHash, limits))
  }

  issued(): Promise<void> {
    return this.either((limiter) => limiter.issued())
  }

  private async either<T>(call: (limiter: IssuanceLimiter) => Promise<T>): Promise<T> {
    if (this.primary.isReady()) {
      if (this.unanswered) {
        this.probe()
        return call(this.fallback)
      }
      try {
        const result = await this.outage.withTimeout(call(this.primary))
        this.outage.recovered()
        return result
      } catch (error) {
        this.unanswered = true
        this.outage.fallBack(error)
      }
    } else if (!this.outage.active) {
      this.outage.fallBack(new Error('Redis is not connected'))
    }
    return call(this.fallback)
  }

  private probe(): void {
    if (this.probing) return
    this.probing = true
    this.outage.withTimeout(this.primary.probe()).then(
      () => {
        this.probing = false
        this.unanswered = false
        this.outage.recovered()
      },
      () => {
        this.probing = false
      },
    )
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()])
  }
}
