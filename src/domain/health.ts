import type { ModelInfo } from '../types.ts'
import { API_VERSION, COVERAGE_REGIONS } from '../version.ts'

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

export class HealthMonitor {
  /** The database probe in flight: concurrent checks share it (health needs no key and is never shed). */
  private probing: Promise<boolean> | undefined

  constructor(
    private readonly deps: {
      /** True when the data store answers a trivial query in time; never throws. */
      databaseAnswers: () => Promise<boolean>
      model: ModelInfo
      quotaStoreState: () => QuotaStoreState
      now?: () => Date
    },
  ) {}

  async check(): Promise<HealthReport> {
    const connected = await this.databaseAnswers()
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

  /** One probe at a time however many checks arrive together; the next check after it starts a new one. */
  private databaseAnswers(): Promise<boolean> {
    this.probing ??= this.deps.databaseAnswers().finally(() => {
      this.probing = undefined
    })
    return this.probing
  }
}
