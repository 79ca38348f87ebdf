import type { DailyUsage } from '../../types.ts'

/** Daily request counts per account, kept where a restart of Redis or of a server cannot lose them. */
export interface UsageLedger {
  add(counts: readonly { accountId: string; day: string; requests: number }[]): Promise<void>
  touch(lastUsed: readonly { keyId: string; at: Date }[]): Promise<void>
  /** Days from `fromDay` on (inclusive) with any requests, ascending. */
  history(accountId: string, fromDay: string): Promise<DailyUsage[]>
}
