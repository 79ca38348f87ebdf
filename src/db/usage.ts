import type { DailyUsage } from '../types.ts'
import type { Sql } from './connect.ts'

/** Adds request counts to each account's day, in one statement. */
export async function addUsage(
  sql: Sql,
  counts: readonly { accountId: string; day: string; requests: number }[],
): Promise<void> {
  if (counts.length === 0) return
  await sql`
    INSERT INTO key_usage_daily (account_id, day, requests)
    SELECT * FROM unnest(${counts.map((c) => c.accountId)}::text[],
                         ${counts.map((c) => c.day)}::date[],
                         ${counts.map((c) => c.requests)}::bigint[])
    ON CONFLICT (account_id, day) DO UPDATE SET requests = key_usage_daily.requests + EXCLUDED.requests`
}

/** Moves each key's last use forward (never back: several servers flush in any order). */
export async function touchKeys(sql: Sql, lastUsed: readonly { keyId: string; at: Date }[]): Promise<void> {
  if (lastUsed.length === 0) return
  await sql`
    UPDATE api_keys AS k SET last_used_at = GREATEST(k.last_used_at, u.at)
    FROM unnest(${lastUsed.map((u) => u.keyId)}::text[],
                ${lastUsed.map((u) => u.at.toISOString())}::timestamptz[]) AS u (id, at)
    WHERE k.id = u.id`
}

export async function usageHistory(sql: Sql, accountId: string, fromDay: string): Promise<DailyUsage[]> {
  const rows = await sql<{ day: string; requests: number }[]>`
    SELECT to_char(day, 'YYYY-MM-DD') AS day, requests::int AS requests
    FROM key_usage_daily WHERE account_id = ${accountId} AND day >= ${fromDay}::date
    ORDER BY day`
  return rows.map((row) => ({ day: row.day, requests: row.requests }))
}
