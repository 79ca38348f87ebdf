import { createHmac } from 'node:crypto'
import type { ApiKeyRecord, DailyUsage, IssuedKey, KeyStatus, Tier } from '../types.ts'
import { type ApiError, apiError } from './errors.ts'
import type { IssuanceLimiter, IssuanceLimits, KeyAccounts } from './ports.ts'

export type { IssuanceLimits }

/** Days of history `usage` reports, today included. */
export const USAGE_HISTORY_DAYS = 30
const DAY_MS = 86_400_000

/** Self-service issuance: its hourly limits, the counters checked before the key store, and the address key. */
export interface SelfServiceIssuance {
  limits: IssuanceLimits
  limiter: IssuanceLimiter
  /** The server's secret (ADDRESS_HASH_KEY) that client addresses are hashed under. */
  addressHashKey: string
}

/**
 * What a client address is kept and counted as: its HMAC-SHA-256 under the server's secret, in hex.
 * A plain hash would give the address back to anyone with a copy of the table (every IPv4 address
 * hashes in minutes); without the secret there is nothing to try guesses against.
 */
export function hashClientAddress(addressHashKey: string, clientAddress: string): string {
  return createHmac('sha256', addressHashKey).update(clientAddress).digest('hex')
}

/** Runs one task at a time, in arrival order; a task that fails does not hold up the next. */
class OneAtATime {
  private last: Promise<unknown> = Promise.resolve()

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.last.then(task)
    this.last = result.catch(() => {})
    return result
  }
}

/** Where usage is counted: the ledger plus what the server has not written yet. */
export interface UsageSource {
  history(accountId: string, fromDay: string): Promise<DailyUsage[]>
  lastUseOf(keyId: string): Date | null
}

/** The holder's view of their key: who it is, its limits, today, and the last 30 days. */
export interface KeyUsage {
  key: {
    id: string
    tier: string
    status: KeyStatus
    name: string | null
    createdAt: Date
    expiresAt: Date | null
    lastUsedAt: Date | null
  }
  limits: { requestsPerDay: number | null; batchSize: number }
  today: { used: number; remaining: number | null; resetsAt: Date }
  history: DailyUsage[]
}

/** Where the caller stands today, as access control counted it. */
export interface UsageSubject {
  keyId: string
  accountId: string
  tier: Tier
  used: number
  remaining: number | null
  resetsAt: Date
}

function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/** The last `days` UTC days up to `today`, each with its count (0 when none), oldest first. */
export function dailySeries(
  recorded: readonly DailyUsage[],
  today: Date,
  days = USAGE_HISTORY_DAYS,
): DailyUsage[] {
  const byDay = new Map(recorded.map((d) => [d.day, d.requests]))
  const start = Math.floor(today.getTime() / DAY_MS) - (days - 1)
  return Array.from({ length: days }, (_, i) => {
    const day = utcDay(new Date((start + i) * DAY_MS))
    return { day, requests: byDay.get(day) ?? 0 }
  })
}

/**
 * Keys their holders manage themselves: a free spore key on request (one live key per email address,
 * hourly limits per client address and overall), rolling a key with a grace period, and usage.
 * Mycel and hypha keys stay with operators (the keys CLI).
 */
export class KeyService {
  /** The key store's issuance, one at a time in this process (see issueSporeKey). */
  private readonly issuing = new OneAtATime()

  constructor(
    private readonly accounts: KeyAccounts,
    private readonly usageSource: UsageSource,
    private readonly issuance: SelfServiceIssuance,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The hourly counters come first: a request past them is refused without touching the key store, and
   * every request they let through spends its address's allowance, whatever it ends in (a key, `409
   * key_exists`, or the store's own refusal), so the door cannot be leaned on and `409` cannot be asked
   * without limit. The store then checks exactly, under its lock; its issuances run one at a time in
   * this process, because the lock serialises them anyway and more would only hold database
   * connections waiting for it.
   */
  async issueSporeKey(
    request: { email: string; name?: string | null },
    clientAddress: string,
  ): Promise<IssuedKey> {
    const { limits, limiter, addressHashKey } = this.issuance
    const issuedFrom = hashClientAddress(addressHashKey, clientAddress)
    const admission = await limiter.admit(issuedFrom, limits)
    if (!admission.admitted) throw this.limited(admission.scope, admission.retryAfterSeconds)
    const outcome = await this.issuing.run(() =>
      this.accounts.issueSporeKey({
        email: request.email.toLowerCase(),
        name: request.name ?? null,
        issuedFrom,
        ...limits,
      }),
    )
    if (outcome.kind === 'issued') {
      // The key is issued and shown once whatever happens to the count.
      await limiter.issued().catch(() => {})
      return outcome.key
    }
    if (outcome.kind === 'key_exists') throw apiError('key_exists')
    throw this.limited(outcome.scope, outcome.retryAfterSeconds)
  }

  private limited(scope: 'address' | 'global', retryAfterSeconds: number): ApiError {
    const { limits } = this.issuance
    const limit = scope === 'address' ? limits.perAddressPerHour : limits.perHour
    return apiError(
      'rate_limit_exceeded',
      { keyIssuance: scope, limit },
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    )
  }

  /**
   * Rolls the caller's key. The audit log keeps who did it (that key) and from where: the client
   * address as its keyed hash, as issuance keeps it (null when the connection was gone before it was read).
   */
  async rotate(
    keyId: string,
    graceSeconds: number,
    clientAddress: string | undefined,
  ): Promise<{ issued: IssuedKey; previousExpiresAt: Date }> {
    const addressHash =
      clientAddress === undefined ? null : hashClientAddress(this.issuance.addressHashKey, clientAddress)
    const rotation = await this.accounts.rotate(keyId, graceSeconds, { kind: 'holder', keyId, addressHash })
    if (!rotation) throw apiError('key_rotated')
    return rotation
  }

  async usage(subject: UsageSubject): Promise<KeyUsage> {
    const now = this.now()
    const fromDay = utcDay(new Date(now.getTime() - (USAGE_HISTORY_DAYS - 1) * DAY_MS))
    const [record, recorded] = await Promise.all([
      this.accounts.findById(subject.keyId),
      this.usageSource.history(subject.accountId, fromDay),
    ])
    if (!record) throw apiError('invalid_api_key')
    return {
      key: keyView(record, this.usageSource.lastUseOf(record.id)),
      limits: { requestsPerDay: subject.tier.dailyRequestLimit, batchSize: subject.tier.batchSizeLimit },
      today: { used: subject.used, remaining: subject.remaining, resetsAt: subject.resetsAt },
      history: dailySeries(recorded, now),
    }
  }
}

function keyView(record: ApiKeyRecord, unflushedUse: Date | null): KeyUsage['key'] {
  const lastUsedAt =
    unflushedUse && (!record.lastUsedAt || unflushedUse > record.lastUsedAt)
      ? unflushedUse
      : record.lastUsedAt
  return {
    id: record.id,
    tier: record.tier,
    status: record.status,
    name: record.name,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    lastUsedAt,
  }
}
