import type { ModelInfo } from '../types.ts'
import { API_VERSION, COVERAGE_REGIONS } from '../version.ts'

export type QuotaStoreState = 'connected' | 'disconnected' | 'not_configured'

/** A read replica as health reports it: named without credentials, its state and replay lag. */
export interface ReplicaHealth {
  name: string
  state: 'starting' | 'healthy' | 'lagging' | 'down'
  lag_ms: number | null
}

/**
 * The API contract's health fields, plus `redis`. status: healthy = everything answers; degraded = serving,
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
      /** The read replicas' standing; none configured = the field is left out. */
      replicas?: () => ReplicaHealth[]
      now?: () => Date
    },
  ) {}

  async check(): Promise<HealthReport> {
    const connected = await this.databaseAnswers()
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
