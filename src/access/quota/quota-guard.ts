import { apiError } from '../../domain/errors.ts'
import type { Caller } from '../caller.ts'
import { nextUtcMidnight, secondsUntilReset } from './day-window.ts'
import type { QuotaStore } from './quota-store.ts'

export interface QuotaStatus {
  tierName: string
  /** null = unlimited. */
  limit: number | null
  used: number
  remaining: number | null
  resetSeconds: number
  resetAt: Date
  /** When the request was counted (the quota's clock). */
  countedAt: Date
}

/**
 * Headers telling the caller where it stands: the IETF HTTPAPI RateLimit fields and the common
 * X-RateLimit-* set. An unlimited tier sends no quota policy and `X-RateLimit-Limit: unlimited`.
 */
export function rateLimitHeaders(status: QuotaStatus): Record<string, string> {
  const reset = String(Math.floor(status.resetAt.getTime() / 1000))
  if (status.limit === null) {
    return {
      'x-ratelimit-limit': 'unlimited',
      'x-ratelimit-used': String(status.used),
      'x-ratelimit-reset': reset,
    }
  }
  const remaining = String(status.remaining ?? 0)
  return {
    'ratelimit-policy': `"daily";q=${status.limit};w=86400`,
    ratelimit: `"daily";r=${remaining};t=${status.resetSeconds}`,
    'x-ratelimit-limit': String(status.limit),
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': reset,
  }
}

/** Counts requests against the caller's daily tier limit (the API spec's quota rules, docs/api.md → quota counting). */
export class QuotaGuard {
  constructor(
    private readonly store: QuotaStore,
    readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Counts `count` requests (one per call, or a job's whole cost at once), or none of them when they
   * would pass the limit: then `rate_limit_exceeded`, saying how many were needed when more than one.
   */
  async consume(caller: Caller, count = 1, alreadyCounted = 0): Promise<QuotaStatus> {
    const now = this.now()
    const limit = caller.tier.dailyRequestLimit
    // Counted per account, so a rolled key keeps its day's count.
    const { allowed, used } = await this.store.consume(caller.accountId, limit, now, count)
    const status = this.status(caller, used, now)
    if (!allowed) {
      // A job's cost is told whole: the request that carried it may have counted one already.
      const needed = count + alreadyCounted
      const remaining = (status.remaining ?? 0) + alreadyCounted
      throw apiError(
        'rate_limit_exceeded',
        needed > 1 ? { limit, tier: caller.tier.name, needed, remaining } : { limit, tier: caller.tier.name },
        {
          headers: { ...rateLimitHeaders(status), 'retry-after': String(status.resetSeconds) },
          ...(needed > 1 ? { details: { requests_needed: needed, remaining } } : {}),
        },
      )
    }
    return status
  }

  /** Where the caller stands today, counting nothing. */
  async peek(caller: Caller): Promise<QuotaStatus> {
    const now = this.now()
    const { used } = await this.store.consume(caller.accountId, caller.tier.dailyRequestLimit, now, 0)
    return this.status(caller, used, now)
  }

  private status(caller: Caller, used: number, now: Date): QuotaStatus {
    const limit = caller.tier.dailyRequestLimit
    return {
      tierName: caller.tier.name,
      limit,
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      resetSeconds: secondsUntilReset(now),
      resetAt: nextUtcMidnight(now),
      countedAt: now,
    }
  }
}
