/** The hourly limits of self-service issuance (SPORE_KEYS_PER_ADDRESS_PER_HOUR, SPORE_KEYS_PER_HOUR). */
export interface IssuanceLimits {
  perAddressPerHour: number
  perHour: number
}

/** Whether a `POST /keys` request may go on to the key store, or which hourly limit refuses it and for how long. */
export type IssuanceAdmission =
  | { admitted: true }
  | { admitted: false; scope: 'address' | 'global'; retryAfterSeconds: number }

/**
 * Hourly counters in front of self-service issuance, checked before the key store is asked, so that a
 * flood of requests past the limits costs no database connection: every request an address makes (not
 * only the ones that get a key), and the keys issued over all addresses. Each window lasts an hour
 * from its first count. Shared by every server process through Redis, or kept in this process's
 * memory (without Redis, or while it is away). The key store's check under its lock stays the exact one.
 */
export interface IssuanceLimiter {
  /**
   * Counts one request from a client address, named by its keyed hash (never the address itself),
   * unless `perHour` keys were issued within the hour or the address has made `perAddressPerHour`
   * requests within its hour: then it counts nothing and says which limit and for how long.
   */
  admit(addressHash: string, limits: IssuanceLimits): Promise<IssuanceAdmission>
  /** Counts a key issued toward the hourly ceiling over all addresses. */
  issued(): Promise<void>
  close(): Promise<void>
}
