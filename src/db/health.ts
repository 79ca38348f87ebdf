import type { SiteDataHealth } from '../domain/ports/site-data.ts'
import type { Sql } from './connect.ts'

/**
 * `query`'s answer, or `fallback` when it fails or takes longer than timeoutMs; never throws. A late
 * query is left to finish rather than cancelled: a cancel request can reach the connection after the
 * query is done and stop whichever statement runs there next.
 */
async function answerWithin<T>(query: Promise<T>, timeoutMs: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), timeoutMs)
  })
  try {
    return await Promise.race([query, timeout])
  } catch {
    return fallback
  } finally {
    clearTimeout(timer)
  }
}

/** True when the data store answers a trivial query within timeoutMs; never throws. */
export function databaseAnswers(sql: Sql, timeoutMs: number): Promise<boolean> {
  return answerWithin(
    sql`SELECT 1`.then(() => true),
    timeoutMs,
    false,
  )
}

/** The active site data version for health, within timeoutMs; null when none is active or on any failure. */
export function activeSiteData(sql: Sql, timeoutMs: number): Promise<SiteDataHealth | null> {
  const read = sql<{ version: string; rowCount: number; source: string; activatedAt: Date | null }[]>`
    SELECT version, row_count, source, activated_at FROM site_data_versions WHERE active`.then(([row]) =>
    row
      ? {
          version: row.version,
          rows: Number(row.rowCount),
          source: row.source,
          activated_at: row.activatedAt?.toISOString() ?? null,
        }
      : null,
  )
  return answerWithin(read, timeoutMs, null)
}
