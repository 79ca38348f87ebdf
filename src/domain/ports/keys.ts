import type { ApiKeyRecord, AuditActor, IssuedKey, Tier } from '../../types.ts'

export interface KeyDirectory {
  /** The key whose hash this is, or null. */
  findByHash(hash: string): Promise<ApiKeyRecord | null>
  /** The key with this id, or null (a report link names the key it acts for by its id). */
  findById(id: string): Promise<ApiKeyRecord | null>
  tiers(): Promise<Tier[]>
}

/** Keys their holders manage themselves: rolling a key, and reading it. */
export interface KeyAccounts {
  /**
   * Replaces an active (or deactivated) key; the old one keeps working for `graceSeconds` (0 = stops at
   * once). null when the key was already rolled or revoked. The `key.rotated` event by `actor` is
   * written with the change, in its transaction (as `issueSporeKey` writes `key.issued`).
   */
  rotate(
    keyId: string,
    graceSeconds: number,
    actor: AuditActor,
  ): Promise<{ issued: IssuedKey; previousExpiresAt: Date } | null>
  findById(keyId: string): Promise<ApiKeyRecord | null>
}
