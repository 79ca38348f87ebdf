/** Result of trying to count one request against a daily limit. */
export interface QuotaConsumption {
  allowed: boolean
  /** Requests counted today, including this one when allowed. */
  used: number
}

/**
 * A daily counter per key. `consume` is atomic: it counts the request only while the count is below
 * `limit` (null = unlimited, still counted), so concurrent callers can never exceed the limit.
 */
export interface QuotaStore {
  consume(keyId: string, limit: number | null, now: Date): Promise<QuotaConsumption>
  close(): Promise<void>
}
