import { apiError } from '../../domain/errors.ts'
import type { KeyDirectory } from '../../domain/ports/keys.ts'
import type { ApiKeyRecord, Tier, TierName } from '../../types.ts'
import { hashApiKey, isWellFormedApiKey } from '../api-key.ts'
import type { Caller } from '../caller.ts'

interface CachedLookup {
  record: ApiKeyRecord | null
  expiresAt: number
}

export interface AuthenticatorOptions {
  /** How long a key's status may be served from memory when no change is heard of (the backstop). */
  keyCacheMs?: number
  tierCacheMs?: number
  maxCachedKeys?: number
  now?: () => number
}

/**
 * Resolves X-API-Key to a caller. Lookups go by SHA-256 hash and are cached per process for at most
 * keyCacheMs (default 2 s). A key that changes (deactivated, rotated, revoked) is forgotten as soon as
 * the change is heard of (`forget`; `forgetAll` when changes may have been missed), so its next request
 * reads it afresh; the cache lifetime is the backstop when no change can be heard of. Expiry is judged
 * on every request against the clock, not the cache.
 */
export class Authenticator {
  private readonly keys = new Map<string, CachedLookup>()
  private readonly inflight = new Map<string, { query: Promise<CachedLookup>; generation: number }>()
  /** Moves on whenever keys are forgotten: a lookup begun before then neither fills the cache nor is shared. */
  private generation = 0
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
    return this.authenticateHash(hashApiKey(presented))
  }

  /** The key of this hash, held to the same rules (a survey upload ticket acts for its key this way). */
  async authenticateHash(keyHash: string): Promise<Caller> {
    const { record } = await this.lookup(keyHash)
    return this.callerOf(record)
  }

  /**
   * The key with this id, held to the same rules (a report link acts for its key this way). Read
   * afresh every time: a link's fetch is rare, and a key revoked since is refused at once.
   */
  async authenticateId(keyId: string): Promise<Caller> {
    return this.callerOf(await this.directory.findById(keyId))
  }

  private async callerOf(record: ApiKeyRecord | null): Promise<Caller> {
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
    // Concurrent requests with the same key share one query, unless it began before a change was heard of.
    const pending = this.inflight.get(hash)
    if (pending && pending.generation === this.generation) return pending.query
    const generation = this.generation
    const query = this.fetch(hash, generation).finally(() => {
      if (this.inflight.get(hash)?.query === query) this.inflight.delete(hash)
    })
    this.inflight.set(hash, { query, generation })
    return query
  }

  private async fetch(hash: string, generation: number): Promise<CachedLookup> {
    const record = await this.directory.findByHash(hash)
    const entry = { record, expiresAt: this.now() + this.keyCacheMs }
    if (generation !== this.generation) return entry
    if (this.keys.size >= this.maxCachedKeys) this.keys.clear()
    this.keys.set(hash, entry)
    return entry
  }

  /** The key with this id changed: its next request reads it afresh. */
  forget(keyId: string): void {
    this.generation += 1
    for (const [hash, cached] of this.keys) {
      if (cached.record?.id === keyId) this.keys.delete(hash)
    }
  }

  /** Changes may have been missed (the channel that announces them was away): every key is read afresh. */
  forgetAll(): void {
    this.generation += 1
    this.keys.clear()
  }
}
