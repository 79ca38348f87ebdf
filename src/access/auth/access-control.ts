import { ApiError, apiError } from '../../domain/errors.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { RequestContext } from '../../observability/request-context.ts'
import type { Caller } from '../caller.ts'
import { utcDay } from '../quota/day-window.ts'
import type { QuotaGuard, QuotaStatus } from '../quota/quota-guard.ts'
import type { Authenticator } from './authenticator.ts'
import type { UsageRecorder } from './usage-recorder.ts'

/** Accounts whose refusal is remembered; past it the memory starts again (it only decides what runs first). */
const MAX_REMEMBERED_REFUSALS = 10_000

/** Within this long of a key's end, every response says when it stops working. */
const EXPIRY_NOTICE_MS = 14 * 86_400_000

/**
 * `API-Key-Expires` (an HTTP date) on responses to a key that stops working within 14 days: it expires,
 * or it was rolled and its grace period runs out.
 */
export function keyExpiryHeaders(caller: Caller, now: Date): Record<string, string> {
  const expiresAt = caller.expiresAt
  if (!expiresAt || expiresAt.getTime() - now.getTime() > EXPIRY_NOTICE_MS) return {}
  return { 'api-key-expires': expiresAt.toUTCString() }
}

/** A request let in: who is calling and where they stand against today's quota. */
export interface Admission {
  caller: Caller
  quota: QuotaStatus
  /** When the request was let in. */
  at: Date
}

/** Authentication, then one request counted against the tier's daily quota: every keyed request passes here once. */
/** The request log learns the caller's key id and tier. */
function noted(caller: Caller, request: RequestContext | undefined): Caller {
  if (request) {
    request.keyId = caller.keyId
    request.tier = caller.tier.name
  }
  return caller
}

export class AccessControl {
  /** Accounts refused today in this process, by the UTC day of the refusal. */
  private readonly refusedToday = new Map<string, string>()

  constructor(
    private readonly authenticator: Authenticator,
    private readonly quota: QuotaGuard,
    private readonly metrics?: Metrics,
    private readonly usage?: UsageRecorder,
  ) {}

  /** `request` (when there is one) receives the caller's key id and tier for the request log. */
  async admit(apiKey: string | null | undefined, request?: RequestContext): Promise<Admission> {
    const caller = await this.identifyCaller(apiKey, request)
    return this.counted(caller, 1)
  }

  /**
   * For calls that only read (predictions): `work` starts as soon as the caller is known, while the
   * request is counted, saving the count's round trip. The outcome is the one of counting first: a
   * refusal is thrown whatever the work did (its result or error is dropped), and otherwise `work` is the
   * call's answer. An account refused in this process today is counted first from then on, so a caller
   * past its limit cannot keep the lookups busy.
   */
  async admitAlongside<T>(
    apiKey: string | null | undefined,
    request: RequestContext | undefined,
    work: (caller: Caller) => Promise<T>,
  ): Promise<{ admission: Admission; work: Promise<T> }> {
    const caller = await this.identifyCaller(apiKey, request)
    if (this.refusedToday.get(caller.accountId) === utcDay(this.quota.now())) {
      const admission = await this.counted(caller, 1)
      return { admission, work: work(caller) }
    }
    const working = work(caller)
    // Its failure is reported after the count, or not at all when the count refuses.
    working.catch(() => {})
    return { admission: await this.counted(caller, 1), work: working }
  }

  /**
   * Authentication only, for calls that read what was already paid for (a job's status and results):
   * nothing is counted, and the quota is reported as it stands.
   */
  async identify(apiKey: string | null | undefined, request?: RequestContext): Promise<Admission> {
    return this.uncounted(await this.identifyCaller(apiKey, request))
  }

  private async uncounted(caller: Caller): Promise<Admission> {
    const quota = await this.quota.peek(caller)
    return { caller, quota, at: quota.countedAt }
  }

  /**
   * The key of this hash (what a survey upload ticket acts for), authenticated as a key is and not
   * counted: the ticket's request was.
   */
  async identifyKeyHash(keyHash: string, request?: RequestContext): Promise<Admission> {
    return this.uncounted(noted(await this.authenticator.authenticateHash(keyHash), request))
  }

  /**
   * One request counted for the key with this id, which must be `accountId`'s (what a report link acts
   * for): authenticated as a key is, so a key revoked, deactivated or expired since the link was made
   * is refused as the key would be.
   */
  async admitKeyId(keyId: string, accountId: string, request?: RequestContext): Promise<Admission> {
    const caller = noted(await this.authenticator.authenticateId(keyId), request)
    if (caller.accountId !== accountId) throw apiError('invalid_api_key')
    return this.counted(caller, 1)
  }

  /**
   * Counts `count` more requests for an admitted caller (the rest of a job's cost), all or none; a
   * refusal states the whole cost, the one request already counted for the call included.
   */
  charge(admission: Admission, count: number): Promise<Admission> {
    return this.counted(admission.caller, count, 1)
  }

  private rememberRefusal(caller: Caller): void {
    if (this.refusedToday.size >= MAX_REMEMBERED_REFUSALS) this.refusedToday.clear()
    this.refusedToday.set(caller.accountId, utcDay(this.quota.now()))
  }

  private async identifyCaller(apiKey: string | null | undefined, request?: RequestContext) {
    return noted(await this.authenticator.authenticate(apiKey), request)
  }

  private async counted(caller: Caller, count: number, alreadyCounted = 0): Promise<Admission> {
    try {
      const quota = await this.quota.consume(caller, count, alreadyCounted)
      this.usage?.count(caller, quota.countedAt, count)
      return { caller, quota, at: quota.countedAt }
    } catch (error) {
      if (error instanceof ApiError && error.code === 'rate_limit_exceeded') {
        this.rememberRefusal(caller)
        this.metrics?.quotaRejections.inc({ tier: caller.tier.name })
        const notice = keyExpiryHeaders(caller, this.quota.now())
        if (notice['api-key-expires'])
          throw new ApiError(error.code, error.message, error.details, { ...error.headers, ...notice })
      }
      throw error
    }
  }
}
