import type postgres from 'postgres'
import { withDeadline } from './availability.ts'

type Sql = postgres.Sql

/**
 * healthy: in rotation. lagging: replay further behind than the limit. down: unreachable, failing a
 * query, or not a standby at all (promoted, or a primary named by mistake). starting: not checked yet.
 */
export type ReplicaState = 'starting' | 'healthy' | 'lagging' | 'down'

export interface ReplicaStatus {
  /** host:port/database — never the user or password. */
  name: string
  state: ReplicaState
  /** Replay lag at the last check, ms; null when it could not be measured. */
  lagMs: number | null
  /** Why it is out of rotation, in words (a check's failure, a query's failure, not in recovery). */
  reason: string | null
  /** Reads this replica answered, and reads that failed on it and went to the primary. */
  reads: number
  retriedOnPrimary: number
}

/** Where reads that tolerate a little lag are sent: the replicas when some are healthy, else the primary. */
export interface ReadPool {
  read<T>(query: (sql: Sql) => Promise<T>): Promise<T>
  /** A lag-tolerant read that must be the primary's this time (a replica's copy was of another revision); counted as one. */
  readPrimary<T>(query: (sql: Sql) => Promise<T>): Promise<T>
  /** One entry per configured replica, empty without replicas. */
  replicas(): ReplicaStatus[]
  /** Reads the primary answered because no replica was in rotation. */
  primaryReads(): number
  close(): Promise<void>
}

/** No replicas: every read is the primary's. */
export function primaryOnly(primary: Sql): ReadPool {
  let reads = 0
  return {
    read: (query) => {
      reads++
      return query(primary)
    },
    readPrimary: (query) => {
      reads++
      return query(primary)
    },
    replicas: () => [],
    primaryReads: () => reads,
    close: async () => {},
  }
}

export interface ReplicaSettings {
  maxLagMs: number
  checkMs: number
  /** A health check that takes longer than this counts as a failed one. */
  checkTimeoutMs: number
  /** Told each time a replica changes state (the status after the change, and the state before). */
  onStateChange?: ReplicaStateListener
}

export type ReplicaStateListener = (replica: Readonly<ReplicaStatus>, from: ReplicaState) => void

interface Replica {
  sql: Sql
  status: ReplicaStatus
  /** When the primary's WAL position was read in the last check that found this replica caught up to it. */
  caughtUpAt: number | null
}

/** The display name of a PostgreSQL URL: host, port and database, with the credentials left out. */
export function replicaName(url: string): string {
  const parsed = new URL(url)
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname || '/'}`
}

/**
 * Streaming replicas of the primary in rotation for lag-tolerant reads. A background check (every
 * checkMs) takes a replica in or out: it must answer, be in recovery, and replay within maxLagMs of the
 * primary. A read that fails on a replica takes it out at once and is run once more on the primary, so
 * the caller sees an error only when the primary fails too.
 */
export class ReadReplicas implements ReadPool {
  private readonly pool: Replica[]
  private next = 0
  private onPrimary = 0
  private timer: NodeJS.Timeout | undefined
  private checking: Promise<void> | undefined

  constructor(
    private readonly primary: Sql,
    replicas: readonly { name: string; sql: Sql }[],
    private readonly settings: ReplicaSettings,
  ) {
    this.pool = replicas.map(({ name, sql }) => ({
      sql,
      caughtUpAt: null,
      status: { name, state: 'starting', lagMs: null, reason: null, reads: 0, retriedOnPrimary: 0 },
    }))
  }

  /** Checks every replica now, then every checkMs in the background. */
  start(): Promise<void> {
    this.timer ??= setInterval(() => void this.check(), this.settings.checkMs)
    this.timer.unref()
    return this.check()
  }

  async read<T>(query: (sql: Sql) => Promise<T>): Promise<T> {
    const replica = this.pick()
    if (!replica) {
      this.onPrimary++
      return query(this.primary)
    }
    try {
      const answer = await query(replica.sql)
      replica.status.reads++
      return answer
    } catch (error) {
      this.takeOut(replica, `a query failed: ${describe(error)}`)
      replica.status.retriedOnPrimary++
      return query(this.primary)
    }
  }

  readPrimary<T>(query: (sql: Sql) => Promise<T>): Promise<T> {
    this.onPrimary++
    return query(this.primary)
  }

  replicas(): ReplicaStatus[] {
    return this.pool.map((replica) => ({ ...replica.status }))
  }

  primaryReads(): number {
    return this.onPrimary
  }

  /** One round of health checks (concurrent calls share it). */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => {
      this.checking = undefined
    })
    return this.checking
  }

  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.checking
    await Promise.all(this.pool.map((replica) => replica.sql.end({ timeout: 5 })))
  }

  /** Round robin over the replicas in rotation; undefined when none is. */
  private pick(): Replica | undefined {
    const count = this.pool.length
    for (let tried = 0; tried < count; tried++) {
      const replica = this.pool[this.next] as Replica
      this.next = (this.next + 1) % count
      if (replica.status.state === 'healthy') return replica
    }
    return undefined
  }

  private takeOut(replica: Replica, reason: string): void {
    this.enter(replica, 'down', reason, null)
  }

  private enter(replica: Replica, state: ReplicaState, reason: string | null, lagMs: number | null): void {
    const { status } = replica
    const from = status.state
    status.state = state
    status.reason = reason
    status.lagMs = lagMs
    if (from !== state) this.settings.onStateChange?.({ ...status }, from)
  }

  private async checkAll(): Promise<void> {
    // The primary's WAL position tells a replica that stopped receiving (so looks idle) from one that is
    // up to date; when the primary cannot say, the replica's own received-versus-replayed is used.
    const askedAt = Date.now()
    const primaryLsn = await withDeadline(
      this.primary<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`,
      this.settings.checkTimeoutMs,
    ).then(
      (rows) => rows[0]?.lsn ?? null,
      () => null,
    )
    await Promise.all(this.pool.map((replica) => this.checkOne(replica, primaryLsn, askedAt)))
  }

  private async checkOne(replica: Replica, primaryLsn: string | null, askedAt: number): Promise<void> {
    try {
      const [row] = await withDeadline(
        replica.sql<{ inRecovery: boolean; behind: boolean; sinceReplayMs: number | null }[]>`
          SELECT pg_is_in_recovery() AS in_recovery,
                 CASE WHEN ${primaryLsn}::pg_lsn IS NOT NULL
                      THEN pg_last_wal_replay_lsn() < ${primaryLsn}::pg_lsn
                      ELSE pg_last_wal_receive_lsn() IS DISTINCT FROM pg_last_wal_replay_lsn()
                 END AS behind,
                 (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8
                   AS since_replay_ms`,
        this.settings.checkTimeoutMs,
      )
      if (!row?.inRecovery) {
        this.enter(replica, 'down', 'not in recovery: this server is not a standby', null)
        return
      }
      // Caught up: no lag. Behind: the time since the last transaction it replayed, but no more than the
      // time since a check last found it caught up; else a write after an idle hour on the primary would
      // read as an hour of lag while the replica replays it in milliseconds.
      if (!row.behind) replica.caughtUpAt = askedAt
      const sinceReplayMs = row.sinceReplayMs ?? Number.POSITIVE_INFINITY
      const sinceCaughtUpMs =
        replica.caughtUpAt === null ? Number.POSITIVE_INFINITY : Date.now() - replica.caughtUpAt
      const lagMs = row.behind ? Math.max(0, Math.round(Math.min(sinceReplayMs, sinceCaughtUpMs))) : 0
      const measured = Number.isFinite(lagMs) ? lagMs : null
      if (lagMs > this.settings.maxLagMs)
        this.enter(replica, 'lagging', `replay lag over ${this.settings.maxLagMs} ms`, measured)
      else this.enter(replica, 'healthy', null, measured)
    } catch (error) {
      this.enter(replica, 'down', `health check failed: ${describe(error)}`, null)
    }
  }
}

/** A short, credential-free account of a failure: its code, or its message's first line. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string') return code
  return String((error as Error | null)?.message ?? error).split('\n')[0] as string
}

/** What logReplicaStates needs of a logger (pino's signature). */
interface StateLog {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
}

/**
 * One log line each time a replica leaves the rotation (warn, with why) or joins it (info): the name is
 * host:port/database and the reason is an error code or message's first line, never a credential.
 */
export function logReplicaStates(logger: StateLog): ReplicaStateListener {
  return (replica, from) => {
    const fields = { replica: replica.name, state: replica.state, from, lagMs: replica.lagMs }
    if (replica.state === 'healthy') logger.info(fields, 'read replica in rotation')
    else if (from === 'healthy' || from === 'starting')
      logger.warn(
        { ...fields, reason: replica.reason },
        'read replica out of rotation: its reads go to the primary',
      )
  }
}
