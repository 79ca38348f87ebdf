import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/** What the metrics read of a read replica (src/db/read-replicas.ts ReplicaStatus). */
interface ReplicaView {
  name: string
  state: 'starting' | 'healthy' | 'lagging' | 'down'
  lagMs: number | null
  reads: number
  retriedOnPrimary: number
}

/** Prometheus metrics of one process, exposed at /metrics. */
export class Metrics {
  readonly registry = new Registry()

  readonly requests = new Counter({
    name: 'survival_http_requests_total',
    help: 'HTTP requests by route, GraphQL root field (operation; empty for REST), method and status',
    labelNames: ['route', 'operation', 'method', 'status'] as const,
    registers: [this.registry],
  })

  readonly requestDuration = new Histogram({
    name: 'survival_http_request_duration_seconds',
    help: 'HTTP request latency by route, GraphQL root field (operation; empty for REST), method and status',
    labelNames: ['route', 'operation', 'method', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  })

  readonly quotaRejections = new Counter({
    name: 'survival_quota_rejections_total',
    help: 'Requests refused with rate_limit_exceeded, by tier',
    labelNames: ['tier'] as const,
    registers: [this.registry],
  })

  readonly nearestSiteLookups = new Counter({
    name: 'survival_nearest_site_lookups_total',
    help: 'Points looked up for their nearest site',
    registers: [this.registry],
  })

  readonly siteCacheMisses = new Counter({
    name: 'survival_site_cache_misses_total',
    help: 'Looked-up points whose nearest site was not in the site cache (SITE_CACHE_SITES) and was read in full',
    registers: [this.registry],
  })

  readonly nearestSiteBatchSize = new Histogram({
    name: 'survival_nearest_site_batch_size',
    help: 'Points per nearest-site SQL statement',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers: [this.registry],
  })

  readonly dbQueriesInFlight = new Gauge({
    name: 'survival_db_queries_in_flight',
    help: 'Nearest-site queries waiting on PostgreSQL (pool use)',
    registers: [this.registry],
  })

  readonly fallbackEvents = new Counter({
    name: 'survival_fallback_events_total',
    help: 'Degradations by kind: quota_memory (Redis away, quotas kept in this process), load_shed (503 at capacity), data_store (a query found the database away)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  })

  readonly jobRows = new Counter({
    name: 'survival_job_rows_total',
    help: 'Job rows scored by the workers of this process, by outcome (ok, failed); rate() gives rows per second',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  })

  readonly jobChunksFailed = new Counter({
    name: 'survival_job_chunks_failed_total',
    help: 'Job chunks whose scoring failed an attempt in this process (retried; the last failure fails the job)',
    registers: [this.registry],
  })

  /** Whether this process hears of key changes as they happen (PostgreSQL mode only). */
  watchKeyChangeChannel(listening: () => boolean): void {
    new Gauge({
      name: 'survival_key_change_channel_up',
      help: '1 while this process hears key changes on the api_key_changes channel; 0 while it is away and the key cache lifetime is the backstop',
      registers: [this.registry],
      collect() {
        this.set(listening() ? 1 : 0)
      },
    })
  }

  /** Chunks waiting or being scored, read from the queue when metrics are scraped. */
  watchJobQueue(depth: () => Promise<number>): void {
    new Gauge({
      name: 'survival_job_queue_depth',
      help: 'Job chunks waiting for a worker or being scored (0 from a server that has not yet queued or scored a chunk)',
      registers: [this.registry],
      async collect() {
        this.set(await depth().catch(() => 0))
      },
    })
  }

  /**
   * Each read replica's standing, read from the pool when metrics are scraped: in rotation or not, its
   * replay lag, the reads it answered, and reads that failed on it and were answered by the primary.
   * Replicas are named host:port/database, never with credentials.
   */
  watchReplicas(replicas: () => readonly ReplicaView[], primaryReads: () => number): void {
    const states = ['starting', 'healthy', 'lagging', 'down'] as const
    new Gauge({
      name: 'survival_db_replica_up',
      help: '1 while a read replica is in rotation (answers, in recovery, replay lag within REPLICA_MAX_LAG_MS), else 0',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const replica of replicas())
          this.set({ replica: replica.name }, replica.state === 'healthy' ? 1 : 0)
      },
    })
    new Gauge({
      name: 'survival_db_replica_state',
      help: "A read replica's state at its last health check: 1 for the state it is in",
      labelNames: ['replica', 'state'] as const,
      registers: [this.registry],
      collect() {
        for (const replica of replicas())
          for (const state of states)
            this.set({ replica: replica.name, state }, replica.state === state ? 1 : 0)
      },
    })
    new Gauge({
      name: 'survival_db_replica_lag_seconds',
      help: "A read replica's replay lag behind the primary at its last health check (absent while unmeasured)",
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        for (const replica of replicas())
          if (replica.lagMs !== null) this.set({ replica: replica.name }, replica.lagMs / 1000)
      },
    })
    new Counter({
      name: 'survival_db_reads_total',
      help: 'Lag-tolerant reads (nearest sites, site table, sites in a stand) by the server that answered: a replica, or primary when none was in rotation or a replica held an older site table',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        this.inc({ server: 'primary' }, primaryReads())
        for (const replica of replicas()) this.inc({ server: replica.name }, replica.reads)
      },
    })
    new Counter({
      name: 'survival_db_replica_retries_total',
      help: 'Reads that failed on a replica (taking it out of rotation) and were run again on the primary',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        this.reset()
        for (const replica of replicas()) this.inc({ replica: replica.name }, replica.retriedOnPrimary)
      },
    })
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'survival_' })
  }

  /** Times an async database call in the in-flight gauge. */
  async trackQuery<T>(query: () => Promise<T>): Promise<T> {
    this.dbQueriesInFlight.inc()
    try {
      return await query()
    } finally {
      this.dbQueriesInFlight.dec()
    }
  }
}
