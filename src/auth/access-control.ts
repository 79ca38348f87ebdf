import { isApiError } from '../domain/errors.ts'
import type { Metrics } from '../observability/metrics.ts'
import { annotateRequest } from '../observability/request-scope.ts'
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

  /** `req` (the Node request, when there is one) receives the caller's key id and tier for the request log. */
  async admit(apiKey: string | null | undefined, req?: object): Promise<Admission> {
    const caller = await this.authenticator.authenticate(apiKey)
    annotateRequest(req, { keyId: caller.keyId, tier: caller.tier.name })
    try {
      return { caller, quota: await this.quota.consume(caller) }
    } catch (error) {
      if (isApiError(error) && error.code === 'rate_limit_exceeded') {
        this.metrics?.quotaRejections.inc({ tier: caller.tier.name })
      }
      throw error
    }
  }
}
