import { apiError } from '../domain/errors.ts'
import { hashApiKey, isWellFormedApiKey } from '../keys/api-key.ts'
import type { ApiKeyRecord, KeyDirectory, Tier, TierName } from '../types.ts'

/** Who is calling: never the key itself. */
export interface Caller {
  keyId: string
  /** The key's rotation chain: its daily quota and usage history are shared by every key in it. */
  accountId: string
  tier: Tier
  /** When the key stops working (its expiry, or the end of a rotation grace period); null = never. */
  expiresAt: Date | null
}

interface CachedLookup {
  record: ApiKeyRecord | null
  expiresAt: number
}

export interface AuthenticatorOptions {
  /** How long a key's status may be served from memory; a CLI change reaches this process within it. */
  keyCacheMs?: number
  tierCacheMs?: number
  maxCachedKeys?: number
  now?: () => number
}

/**
 * Resolves X-API-Key to a caller. Lookups go by SHA-256 hash and are cached per process for at most
 * keyCacheMs (default 2 s), so deactivation, rotation and revocation take effect within that time.
 * Expiry is judged on every request against the clock, not the cache.
 */
export class Authenticator {
  private readonly keys = new Map<string, CachedLookup>()
  private readonly inflight = new Map<string, Promise<CachedLookup>>()
  private tiers: { byName: Map<string, Tier>; expiresAt: number } | null = null
  private readonly keyCacheMs: number
  private readonly tierCacheMs: number
  private readonly maxCachedKeys: number
  private readonly now: () => number

  constructor(
    private readonly directory: KeyDirectory,
    options: AuthenticatorOptions = {},
  ) {
    this.keyCacheMs = options.keyCacheMs ?? 2000
    this.tierCacheMs = options.tierCacheMs ?? 60_000
    this.maxCachedKeys = options.maxCachedKeys ?? 10_000
    this.now = options.now ?? Date.now
  }

  async authenticate(presented: string | null | undefined): Promise<Caller> {
    if (!presented || !isWellFormedApiKey(presented)) throw apiError('invalid_api_key')
    const { record } = await this.lookup(hashApiKey(presented))
    if (!record || record.status === 'revoked') throw apiError('invalid_api_key')
    const expiresAt = record.expiresAt
    if (expiresAt && expiresAt.getTime() <= this.now()) {
      throw apiError('invalid_api_key', {
        reason: record.status === 'rotated' ? 'rotated' : 'expired',
        at: expiresAt,
      })
    }
    // A rotated key works only inside its grace period, which always has an end.
    if (record.status === 'rotated' && !expiresAt) throw apiError('invalid_api_key')
    if (record.status === 'inactive') throw apiError('key_inactive')
    return { keyId: record.id, accountId: record.accountId, tier: await this.tier(record.tier), expiresAt }
  }

  async tier(name: TierName): Promise<Tier> {
    if (!this.tiers || this.tiers.expiresAt <= this.now()) {
      const tiers = await this.directory.tiers()
      this.tiers = {
        byName: new Map(tiers.map((t) => [t.name, t])),
        expiresAt: this.now() + this.tierCacheMs,
      }
    }
    const tier = this.tiers.byName.get(name)
    if (!tier) throw new Error(`tier ${name} is missing from the tiers table`)
    return tier
  }

  private async lookup(hash: string): Promise<CachedLookup> {
    const cached = this.keys.get(hash)
    if (cached && cached.expiresAt > this.now()) return cached
    // Concurrent requests with the same key share one query.
    const pending = this.inflight.get(hash)
    if (pending) return pending
    const query = this.fetch(hash).finally(() => this.inflight.delete(hash))
    this.inflight.set(hash, query)
    return query
  }

  private async fetch(hash: string): Promise<CachedLookup> {
    const record = await this.directory.findByHash(hash)
    const entry = { record, expiresAt: this.now() + this.keyCacheMs }
    if (this.keys.size >= this.maxCachedKeys) this.keys.clear()
    this.keys.set(hash, entry)
    return entry
  }
}
