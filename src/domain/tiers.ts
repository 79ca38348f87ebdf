import type { Sql } from '../db/connect.ts'
import type { TierName } from '../keys/key-store.ts'

export interface Tier {
  name: TierName
  /** null = unlimited. */
  dailyRequestLimit: number | null
  batchSizeLimit: number
}

export function loadTiers(sql: Sql): Promise<Tier[]> {
  return sql<Tier[]>`SELECT name, daily_request_limit, batch_size_limit FROM tiers ORDER BY batch_size_limit`
}
