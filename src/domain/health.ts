import type { Sql } from '../db/connect.ts'
import type { SurvivalModel } from '../model/index.ts'
import { API_VERSION, COVERAGE_REGIONS } from '../version.ts'

export interface ModelInfo {
  version: string
  codename: string
  series: string
}

export type QuotaStoreState = 'connected' | 'disconnected' | 'not_configured'

/**
 * The spec's health fields, plus `redis`. status: healthy = everything answers; degraded = serving,
 * but Redis is away so quotas are kept per instance; unavailable = the data store does not answer, so
 * data requests get 503.
 */
export interface HealthReport {
  status: 'healthy' | 'degraded' | 'unavailable'
  version: string
  model: ModelInfo
  coverage_regions: string[]
  database: 'connected' | 'disconnected'
  redis: QuotaStoreState
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

export class HealthMonitor {
  constructor(
    private readonly deps: {
      sql: Sql
      model: ModelInfo
      quotaStoreState: () => QuotaStoreState
      timeoutMs?: number
      now?: () => Date
    },
  ) {}

  async check(): Promise<HealthReport> {
    const connected = await databaseAnswers(this.deps.sql, this.deps.timeoutMs ?? 1000)
    const redis = this.deps.quotaStoreState()
    return {
      status: !connected ? 'unavailable' : redis === 'disconnected' ? 'degraded' : 'healthy',
      version: API_VERSION,
      model: this.deps.model,
      coverage_regions: [...COVERAGE_REGIONS],
      database: connected ? 'connected' : 'disconnected',
      redis,
      timestamp: (this.deps.now?.() ?? new Date()).toISOString(),
    }
  }
}
