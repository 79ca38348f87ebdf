import { createHmac } from 'node:crypto'
import type { ApiKeyRecord, DailyUsage, IssuedKey, KeyStatus, Tier } from '../types.ts'
import { apiError } from './errors.ts'
import type { KeyAccounts } from './ports/keys.ts'

/** Days of history `usage` reports, today included. */
export const USAGE_HISTORY_DAYS = 30
const DAY_MS = 86_400_000

/**
 * What a client address is kept and counted as: its HMAC-SHA-256 under the server's secret, in hex.
 * A plain hash would give the address back to anyone with a copy of the table (every IPv4 address
 * hashes in minutes); without the secret there is nothing to try guesses against.
 */
export function hashClientAddress(addressHashKey: string, clientAddress: string): string {
  return createHmac('sha256', addressHashKey).update(clientAddress).digest('hex')
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
 * Keys their holders manage themselves: rolling a key with a grace period, and usage. Spore keys by
 * email are ./key-mail; mycel and hypha keys stay with operators (the keys CLI).
 */
export class KeyService {
  constructor(
    private readonly accounts: KeyAccounts,
    private readonly usageSource: UsageSource,
    /** The server's secret (ADDRESS_HASH_KEY) that client addresses are hashed under. */
    private readonly addressHashKey: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

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
      clientAddress === undefined ? null : hashClientAddress(this.addressHashKey, clientAddress)
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
