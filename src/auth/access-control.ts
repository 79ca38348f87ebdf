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
  ) {}

  async admit(apiKey: string | null | undefined): Promise<Admission> {
    const caller = await this.authenticator.authenticate(apiKey)
    return { caller, quota: await this.quota.consume(caller) }
  }
}
