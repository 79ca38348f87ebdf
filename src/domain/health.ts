import type { ModelInfo } from '../types.ts'
import { API_VERSION, COVERAGE_REGIONS } from '../version.ts'
import type { SiteDataHealth } from './ports/site-data.ts'

export type { SiteDataHealth }

export type QuotaStoreState = 'connected' | 'disconnected' | 'not_configured'

/** A read replica as health reports it: named without credentials, its state and replay lag. */
export interface ReplicaHealth {
  name: string
  state: 'starting' | 'healthy' | 'lagging' | 'down'
  lag_ms: number | null
}

/**
 * The API contract's health fields, plus `redis` and `site_data`. status: healthy = everything answers; degraded = serving,
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
  /** Only with DATABASE_REPLICA_URLS: each replica at its last background check. */
  replicas?: ReplicaHealth[]
  /** The active site data version; null when none is active or the database does not answer. */
  site_data: SiteDataHealth | null
  timestamp: string
}

export class HealthMonitor {
  /** The database probe in flight: concurrent checks share it (health needs no key and is never shed). */
  private probing: Promise<boolean> | undefined
  private reading: Promise<SiteDataHealth | null> | undefined

  constructor(
    private readonly deps: {
      /** True when the data store answers a trivial query in time; never throws. */
      databaseAnswers: () => Promise<boolean>
      model: ModelInfo
      quotaStoreState: () => QuotaStoreState
      /** The active site data version, null when none is; never throws (null when it cannot tell). */
      siteData?: () => Promise<SiteDataHealth | null>
      /** The read replicas' standing; none configured = the field is left out. */
      replicas?: () => ReplicaHealth[]
      now?: () => Date
    },
  ) {}

  async check(): Promise<HealthReport> {
    const [connected, siteData] = await Promise.all([this.databaseAnswers(), this.siteData()])
    const redis = this.deps.quotaStoreState()
    const replicas = this.deps.replicas?.() ?? []
    return {
      status: !connected ? 'unavailable' : redis === 'disconnected' ? 'degraded' : 'healthy',
      version: API_VERSION,
      model: this.deps.model,
      coverage_regions: [...COVERAGE_REGIONS],
      database: connected ? 'connected' : 'disconnected',
      redis,
      ...(replicas.length > 0 ? { replicas } : {}),
      site_data: connected ? siteData : null,
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

  private siteData(): Promise<SiteDataHealth | null> {
    if (!this.deps.siteData) return Promise.resolve(null)
    this.reading ??= this.deps.siteData().finally(() => {
      this.reading = undefined
    })
    return this.reading
  }
}
