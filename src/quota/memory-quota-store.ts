import { nextUtcMidnight, utcDay } from './day-window.ts'
import type { QuotaConsumption, QuotaStore } from './quota-store.ts'

/** In-process counters with the Redis store's semantics, for a single instance without REDIS_URL. */
export class MemoryQuotaStore implements QuotaStore {
  private readonly counters = new Map<string, { used: number; expiresAt: number }>()

  async consume(keyId: string, limit: number | null, now: Date, count = 1): Promise<QuotaConsumption> {
    this.evictExpired(now.getTime())
    const counterKey = `${keyId}:${utcDay(now)}`
    const counter = this.counters.get(counterKey) ?? { used: 0, expiresAt: nextUtcMidnight(now).getTime() }
    if (limit !== null && counter.used + count > limit) return { allowed: false, used: counter.used }
    counter.used += count
    this.counters.set(counterKey, counter)
    return { allowed: true, used: counter.used }
  }

  private evictExpired(nowMs: number): void {
    for (const [key, counter] of this.counters) {
      if (counter.expiresAt <= nowMs) this.counters.delete(key)
    }
  }

  async close(): Promise<void> {
    this.counters.clear()
  }
}
