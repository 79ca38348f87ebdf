import type { SiteDataHealth } from '../domain/ports.ts'
import { withDeadline } from './availability.ts'
import type { Sql } from './connect.ts'

/** True when the data store answers a trivial query within timeoutMs; never throws. */
export async function databaseAnswers(sql: Sql, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
  })
  try {
    return await Promise.race([sql`SELECT 1`.then(() => true), timeout])
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}

/** The active site data version for health, within timeoutMs; null when none is active or on any failure. */
export async function activeSiteData(sql: Sql, timeoutMs: number): Promise<SiteDataHealth | null> {
  try {
    const [row] = await withDeadline(
      sql<{ version: string; rowCount: number; source: string; activatedAt: Date | null }[]>`
        SELECT version, row_count, source, activated_at FROM site_data_versions WHERE active`,
      timeoutMs,
    )
    if (!row) return null
    return {
      version: row.version,
      rows: Number(row.rowCount),
      source: row.source,
      activated_at: row.activatedAt?.toISOString() ?? null,
    }
  } catch {
    return null
  }
}
