import { ApiError } from '../domain/errors.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { RequestContext } from '../observability/request-context.ts'
import type { QuotaGuard, QuotaStatus } from '../quota/quota-guard.ts'
import type { Authenticator, Caller } from './authenticator.ts'

/** A request let in: who is calling and where they stand against today's quota. */
export interface Admission {
  caller: Caller
  quota: QuotaStatus
}

/** Authentication, then one request counted against the tier's daily quota: every keyed request passes here once. */
export class AccessControl {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly quota: QuotaGuard,
    private readonly metrics?: Metrics,
  ) {}

  /** `request` (when there is one) receives the caller's key id and tier for the request log. */
  async admit(apiKey: string | null | undefined, request?: RequestContext): Promise<Admission> {
    const caller = await this.authenticator.authenticate(apiKey)
    if (request) {
      request.keyId = caller.keyId
      request.tier = caller.tier.name
    }
    try {
      return { caller, quota: await this.quota.consume(caller) }
    } catch (error) {
      if (error instanceof ApiError && error.code === 'rate_limit_exceeded') {
        this.metrics?.quotaRejections.inc({ tier: caller.tier.name })
      }
      throw error
    }
  }
}
