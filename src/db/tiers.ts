import type { Tier } from '../types.ts'
import type { Sql } from './connect.ts'

export function loadTiers(sql: Sql): Promise<Tier[]> {
  return sql<Tier[]>`SELECT name, daily_request_limit, batch_size_limit FROM tiers ORDER BY batch_size_limit`
}
