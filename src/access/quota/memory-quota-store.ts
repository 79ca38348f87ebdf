import { nextUtcMidnight, utcDay } from './day-window.ts'
import { consumedInTurn, type QuotaConsumption, type QuotaStore } from './quota-store.ts'

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

  async consumeEach(
    keyId: string,
    limit: number | null,
    now: Date,
    requests: number,
  ): Promise<QuotaConsumption[]> {
    const { used: before } = await this.consume(keyId, limit, now, 0)
    const answers = consumedInTurn(before, limit, requests)
    const allowed = answers.filter((answer) => answer.allowed).length
    if (allowed > 0) await this.consume(keyId, limit, now, allowed)
    return answers
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
