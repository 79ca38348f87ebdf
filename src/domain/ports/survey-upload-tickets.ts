/**
 * Survey upload tickets: a one-time right to stream one upload for the key that asked, kept by the
 * SHA-256 of its token (the token itself is never stored).
 */
export interface SurveyUploadTicketStore {
  issue(ticket: {
    tokenHash: string
    accountId: string
    keyId: string
    skipInvalid: boolean
    expiresAt: Date
  }): Promise<void>
  /** Marks the ticket used, if it is unused and unexpired at `at`; the hash of its key, or null. */
  redeem(tokenHash: string, at: Date): Promise<{ keyHash: string; skipInvalid: boolean } | null>
  /** Removes the tickets that expired before `expiredBefore`; how many. */
  sweep(expiredBefore: Date): Promise<number>
}
