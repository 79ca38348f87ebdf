import type { AuditEvent, NewAuditEvent } from '../../types.ts'

/**
 * The audit log: what changed in each account, by whom, when, and from which client address (its
 * keyed hash). Append only: events are added and read, never changed or removed. Key changes write
 * their events in their own transactions (KeyAccounts); other changes append theirs here.
 */
export interface AuditLog {
  append(event: NewAuditEvent): Promise<void>
  /**
   * At most `limit` of an account's events, newest first, after the event `after` when given; null when
   * `after` is not an event of this account.
   */
  page(accountId: string, limit: number, after: string | null): Promise<AuditEvent[] | null>
}
