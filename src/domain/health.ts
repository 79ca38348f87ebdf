import type { Sql } from '../db/connect.ts'
import type { SurvivalModel } from '../model/index.ts'
import { API_VERSION, COVERAGE_REGIONS } from '../version.ts'

export interface ModelInfo {
  version: string
  codename: string
  series: string
}

export interface HealthReport {
  status: 'healthy' | 'degraded'
  version: string
  model: ModelInfo
  coverage_regions: string[]
  database: 'connected' | 'disconnected'
  timestamp: string
}

export function modelInfo(model: SurvivalModel): ModelInfo {
  return { version: model.version, codename: model.codename, series: model.series }
}

/** True when the data store answers a trivial query within timeoutMs. */
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

export async function checkHealth(
  deps: { sql: Sql; model: ModelInfo },
  now: () => Date = () => new Date(),
): Promise<HealthReport> {
  const connected = await databaseAnswers(deps.sql, 1000)
  return {
    status: connected ? 'healthy' : 'degraded',
    version: API_VERSION,
    model: deps.model,
    coverage_regions: [...COVERAGE_REGIONS],
    database: connected ? 'connected' : 'disconnected',
    timestamp: now().toISOString(),
  }
}
