/** Result of trying to count requests against a daily limit. */
export interface QuotaConsumption {
  allowed: boolean
  /** Requests counted today, including these when allowed. */
  used: number
}

/**
 * A daily counter per key. `consume` is atomic: it counts `count` requests (default one) only while
 * the count stays within `limit` (null = unlimited, still counted), so concurrent callers can never
 * exceed the limit. `count` 0 reads the counter without changing it.
 */
export interface QuotaStore {
  consume(keyId: string, limit: number | null, now: Date, count?: number): Promise<QuotaConsumption>
  close(): Promise<void>
}
