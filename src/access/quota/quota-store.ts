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
  /**
   * Counts `requests` separate single requests at once, each answered as if they had come one after
   * another: the first ones while the count stays within `limit`, the rest refused.
   */
  consumeEach(keyId: string, limit: number | null, now: Date, requests: number): Promise<QuotaConsumption[]>
  close(): Promise<void>
}

/**
 * The answers to `requests` single requests counted one after another from `before`: allowed while
 * within `limit`; a refused one reads the count as the allowed ones left it.
 */
export function consumedInTurn(before: number, limit: number | null, requests: number): QuotaConsumption[] {
  const answers = new Array<QuotaConsumption>(requests)
  for (let i = 0; i < requests; i++) {
    const used = before + i + 1
    answers[i] =
      limit === null || used <= limit
        ? { allowed: true, used }
        : { allowed: false, used: Math.max(before, limit) }
  }
  return answers
}
