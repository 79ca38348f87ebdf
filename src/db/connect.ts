import postgres from 'postgres'
import type { Config } from '../config/config.ts'
import { ARRAY_TYPES } from './array-types.ts'
import { type ChannelFollower, type ChannelHandlers, followChannel } from './notifications.ts'
import {
  primaryOnly,
  type ReadPool,
  ReadReplicas,
  type ReplicaSettings,
  type ReplicaStateListener,
  replicaName,
} from './read-replicas.ts'

export type Sql = postgres.Sql

/**
 * A client of one connection to the database `sql` connects to, with its settings: for a session that
 * must be its own (an advisory lock held while the pool works). Ending it ends the session.
 */
export function singleConnection(sql: Sql): Sql {
  // postgres.js takes its own parsed options back as they are (they carry `shared`), not as typed.
  const options = { ...sql.options, max: 1, idle_timeout: 0, max_lifetime: null }
  return postgres(options as unknown as postgres.Options<Record<string, never>>)
}
export type DatabaseMode = 'postgres' | 'embedded'

export interface Database {
  sql: Sql
  mode: DatabaseMode
  /** Lag-tolerant reads: spread over DATABASE_REPLICA_URLS when opened with them, else the primary. */
  reads: ReadPool
  /** Embedded mode only: the data directory as a snapshot to start from next time. */
  dumpSnapshot?: () => Promise<Blob>
  /**
   * PostgreSQL mode only: follows a NOTIFY channel on a connection of its own. The embedded store
   * serves one process, which has no one else to hear from.
   */
  follow?: (channel: string, handlers: ChannelHandlers) => ChannelFollower
  close(): Promise<void>
}

const CLIENT_OPTIONS = {
  // Column names map snake_case <-> camelCase so rows fit domain types; JSON values are left alone.
  transform: { column: { from: postgres.toCamel, to: postgres.fromCamel } },
  onnotice: () => {},
  connection: { application_name: 'survival-api' },
  // No type query on connect: its dropped promise turns a reset into an unhandled rejection (see array-types).
  fetch_types: false,
  types: ARRAY_TYPES,
} satisfies postgres.Options<Record<string, postgres.PostgresType>>

/**
 * Opens the data store: the PostgreSQL at DATABASE_URL, or, when it is unset, an in-process PGlite
 * reached over a private Unix socket (src/db/embedded.ts) so the same postgres.js queries run against both.
 */
export async function openDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DB_POOL_MAX'> &
    Partial<Pick<Config, 'DATABASE_REPLICA_URLS' | 'REPLICA_MAX_LAG_MS' | 'REPLICA_CHECK_MS'>>,
  options: {
    /** Open DATABASE_REPLICA_URLS too, for the reads that tolerate lag (servers and workers, not the CLIs). */
    readReplicas?: boolean
    /** Told when a read replica leaves or rejoins the rotation (e.g. to log it). */
    onReplicaStateChange?: ReplicaStateListener
    onQuery?: (query: string) => void
    /** Server-side statement_timeout for request-serving pools (not for migrations or seeding). */
    statementTimeoutMs?: number
    /** Embedded mode: start from this data-directory snapshot. */
    embeddedSnapshot?: Blob
  } = {},
): Promise<Database> {
  const debug = options.onQuery ? (_connection: number, query: string) => options.onQuery?.(query) : false
  if (config.DATABASE_URL) {
    const serverOptions = {
      ...CLIENT_OPTIONS,
      debug,
      max: config.DB_POOL_MAX,
      connect_timeout: 3,
      connection: {
        ...CLIENT_OPTIONS.connection,
        ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      },
    }
    const sql = postgres(config.DATABASE_URL, serverOptions)
    const url = config.DATABASE_URL
    const reads =
      options.readReplicas && config.DATABASE_REPLICA_URLS?.length
        ? await openReplicas(
            sql,
            config.DATABASE_REPLICA_URLS.map((replicaUrl) => ({
              name: replicaName(replicaUrl),
              // postgres.js waits longer after each failed connect, up to 20 s: a replica back from an
              // outage would miss every check for that long. Its checks set the pace instead.
              sql: postgres(replicaUrl, {
                ...serverOptions,
                backoff: () => (config.REPLICA_CHECK_MS ?? 1000) / 1000,
              }),
            })),
            {
              maxLagMs: config.REPLICA_MAX_LAG_MS ?? 5000,
              checkMs: config.REPLICA_CHECK_MS ?? 1000,
              onStateChange: options.onReplicaStateChange,
            },
          )
        : primaryOnly(sql)
    return {
      sql,
      mode: 'postgres',
      reads,
      // LISTEN/NOTIFY is the primary's alone: a standby neither sends nor relays notifications.
      follow: (channel, handlers) => followChannel(url, channel, handlers),
      close: async () => {
        await reads.close()
        await sql.end({ timeout: 5 })
      },
    }
  }
  // Loaded only when needed: PGlite's WASM build costs tens of MB a server with DATABASE_URL never uses.
  const { startEmbeddedPostgres } = await import('./embedded.ts')
  const embedded = await startEmbeddedPostgres({ snapshot: options.embeddedSnapshot })
  // PGlite is a single backend: one connection keeps transactions from interleaving.
  const sql = postgres({
    ...CLIENT_OPTIONS,
    debug,
    ...embedded.connection,
    database: 'postgres',
    username: 'postgres',
    max: 1,
  })
  return {
    sql,
    mode: 'embedded',
    reads: primaryOnly(sql),
    dumpSnapshot: embedded.dump,
    close: async () => {
      await sql.end({ timeout: 5 })
      await embedded.stop()
    },
  }
}

/** The replicas in rotation after one check, so healthy ones serve from the first read. */
async function openReplicas(
  primary: Sql,
  replicas: { name: string; sql: Sql }[],
  settings: Omit<ReplicaSettings, 'checkTimeoutMs'>,
): Promise<ReadReplicas> {
  const pool = new ReadReplicas(primary, replicas, {
    ...settings,
    checkTimeoutMs: Math.min(5000, Math.max(500, settings.checkMs)),
  })
  await pool.start()
  return pool
}
