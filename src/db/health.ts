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
