import type { QuotaConsumption, QuotaStore } from './quota-store.ts'

export interface FailoverEvents {
  onFallback(error: unknown): void
  onRecover(): void
}

/** A shared store that can tell whether it is reachable right now (Redis). */
export interface SharedQuotaStore extends QuotaStore {
  isReady(): boolean
}

/**
 * Redis while it answers; this process's memory while it does not (an "insurance" limiter, as in
 * rate-limiter-flexible), back to Redis as soon as it is reachable again. During an outage each
 * instance enforces the daily limit on its own, so a key can get up to limit × instances that day.
 */
export class FailoverQuotaStore implements QuotaStore {
  private usingFallback = false

  constructor(
    private readonly primary: SharedQuotaStore,
    private readonly fallback: QuotaStore,
    private readonly timeoutMs: number,
    private readonly events: FailoverEvents,
  ) {}

  /** True while quotas are kept in this process: the last attempt failed or Redis is not connected now. */
  get degraded(): boolean {
    return this.usingFallback || !this.primary.isReady()
  }

  consume(keyId: string, limit: number | null, now: Date, count = 1): Promise<QuotaConsumption> {
    return this.either((store) => store.consume(keyId, limit, now, count))
  }

  consumeEach(keyId: string, limit: number | null, now: Date, requests: number): Promise<QuotaConsumption[]> {
    return this.either((store) => store.consumeEach(keyId, limit, now, requests))
  }

  private async either<T>(call: (store: QuotaStore) => Promise<T>): Promise<T> {
    if (this.primary.isReady()) {
      try {
        const result = await this.withTimeout(call(this.primary))
        if (this.usingFallback) {
          this.usingFallback = false
          this.events.onRecover()
        }
        return result
      } catch (error) {
        this.fallBack(error)
      }
    } else if (!this.usingFallback) {
      // Only the first request of an outage builds (and reports) an error; the rest go straight on.
      this.fallBack(new Error('Redis is not connected'))
    }
    return call(this.fallback)
  }

  private fallBack(error: unknown): void {
    if (this.usingFallback) return
    this.usingFallback = true
    this.events.onFallback(error)
  }

  private withTimeout<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      )
    })
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()])
  }
}
