import { type ApiError, apiError } from '../errors.ts'
import { hashClientAddress } from '../key-service.ts'
import type { IssuanceLimiter, IssuanceLimits } from '../ports/issuance.ts'
import type { KeyMailbox, RollLinkState } from '../ports/key-mailbox.ts'

/** The hourly limits of self-service keys, the counters checked before the database, and the address key. */
export interface SporeKeyRequestSettings {
  limits: IssuanceLimits
  limiter: IssuanceLimiter
  /** The server's secret (ADDRESS_HASH_KEY) that client addresses are hashed under. */
  addressHashKey: string
}

/** What a roll link's secret looks like (32 random bytes, base64url): anything else is not looked up. */
export const ROLL_LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/

/** Runs one task at a time, in arrival order; a task that fails does not hold up the next. */
class OneAtATime {
  private last: Promise<unknown> = Promise.resolve()

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.last.then(task)
    this.last = result.catch(() => {})
    return result
  }
}

/**
 * Free spore keys by email. A request is answered the same whatever the address: it is recorded and
 * its mail follows (./key-mailer.ts), a key for an address that holds none, or a notice with a link
 * to roll the key it holds. So the answer tells nobody whether an address has a key, and a key is
 * only ever in the hands of whoever reads that address's mail.
 */
export class SporeKeyRequests {
  /**
   * Recording takes the issuance lock, which serialises it anyway: one at a time in this process, so a
   * burst holds one database connection rather than one per request waiting for the lock.
   */
  private readonly recording = new OneAtATime()

  constructor(
    private readonly mailbox: KeyMailbox,
    private readonly settings: SporeKeyRequestSettings,
    /** A request was recorded or a roll confirmed: mail it now rather than at the next poll. */
    private readonly mailDue: () => void,
  ) {}

  /**
   * The hourly counters come first: a request past them is refused without touching the database, and
   * every request they let through spends its address's allowance. The database then records it
   * under its lock, with the exact hourly check over the requests it keeps.
   */
  async request(body: { email: string; name?: string | null }, clientAddress: string): Promise<void> {
    const { limits, limiter, addressHashKey } = this.settings
    const issuedFrom = hashClientAddress(addressHashKey, clientAddress)
    const admission = await limiter.admit(issuedFrom, limits)
    if (!admission.admitted) throw this.limited(admission.scope, admission.retryAfterSeconds)
    const request = { email: body.email.toLowerCase(), name: body.name ?? null, issuedFrom }
    const recording = await this.recording.run(() => this.mailbox.record(request, limits))
    if (!recording.recorded) throw this.limited(recording.scope, recording.retryAfterSeconds)
    // Every recorded request is a message sent: the ceiling over all addresses bounds the mail.
    await limiter.issued().catch(() => {})
    this.mailDue()
  }

  /** Where a roll link stands, without spending it (a mail scanner that opens links rolls nothing). */
  rollLink(token: string): Promise<RollLinkState> {
    return ROLL_LINK_TOKEN.test(token) ? this.mailbox.rollLink(token) : Promise.resolve('unknown')
  }

  /** Spends a valid roll link: the key it names is rolled and the new key mailed to its address. */
  async confirmRoll(token: string, clientAddress: string): Promise<RollLinkState> {
    if (!ROLL_LINK_TOKEN.test(token)) return 'unknown'
    const state = await this.mailbox.confirmRoll(
      token,
      hashClientAddress(this.settings.addressHashKey, clientAddress),
    )
    if (state === 'valid') this.mailDue()
    return state
  }

  private limited(scope: 'address' | 'global', retryAfterSeconds: number): ApiError {
    const { limits } = this.settings
    const limit = scope === 'address' ? limits.perAddressPerHour : limits.perHour
    return apiError(
      'rate_limit_exceeded',
      { keyIssuance: scope, limit },
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    )
  }
}
