/** A PostgreSQL 15 primary with one streaming replica, for tests and benchmarks (scripts/engines.ts). */
import { appendFileSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { eventually } from '../../test/support/waiting.ts'
import { distinctFreePorts, HOST, isAlive, run, runOk, START_TIMEOUT_MS, waitForExit } from './processes.ts'

export const PG_BIN = process.env.ENGINES_PG_BIN ?? '/usr/lib/postgresql/15/bin'
export const PG_OS_USER = 'postgres'

export interface PostgresWithReplica {
  primaryUrl: string
  replicaUrl: string
  /** The temporary directory holding both data directories (`primary/`, `replica/`) and their logs. */
  dataDir: string
  /** The postmaster PIDs: primary first, then replica. */
  pids: number[]
  stop(): Promise<void>
  startupMs: number
}

/** A PostgreSQL binary run as the postgres OS user (we are root; PostgreSQL refuses to run as root). */
function asPostgres(binary: string, args: readonly string[], timeoutMs?: number): Promise<string> {
  return runOk('runuser', ['-u', PG_OS_USER, '--', join(PG_BIN, binary), ...args], timeoutMs)
}

/** chown to the postgres OS user and its primary group, read from /etc/passwd. */
function ownedByPostgres(path: string): void {
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith(`${PG_OS_USER}:`))
  if (!entry) throw new Error(`no ${PG_OS_USER} OS user in /etc/passwd`)
  const [, , uid, gid] = entry.split(':')
  chownSync(path, Number(uid), Number(gid))
}

function postmasterPid(dataDir: string): number {
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster PID in ${dataDir}/postmaster.pid`)
  return pid
}

const PG_HBA = [
  'local all all trust',
  `host all all ${HOST}/32 trust`,
  `host replication all ${HOST}/32 trust`,
  '',
].join('\n')

function pgSettings(port: number, socketDir: string): string {
  return [
    '',
    '# test engine (scripts/engines.ts)',
    `port = ${port}`,
    `listen_addresses = '${HOST}'`,
    `unix_socket_directories = '${socketDir}'`,
    'wal_level = replica',
    'max_wal_senders = 4',
    'hot_standby = on',
    'shared_buffers = 16MB',
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'wal_sender_timeout = 10s',
    'wal_receiver_status_interval = 1s',
    '',
  ].join('\n')
}

/**
 * A PostgreSQL 15 primary and one streaming replica (`pg_basebackup -R`) in a fresh temporary directory,
 * on free ports, trust auth on 127.0.0.1, fsync off. Resolves once the primary's pg_stat_replication
 * shows the replica streaming.
 */
export async function startPostgresWithReplica(): Promise<PostgresWithReplica> {
  const started = performance.now()
  const dataDir = mkdtempSync(join(tmpdir(), 'engines-pg-'))
  ownedByPostgres(dataDir)
  const primaryDir = join(dataDir, 'primary')
  const replicaDir = join(dataDir, 'replica')
  const socketDir = dataDir
  const running: string[] = []
  const pids: number[] = []

  const pgStart = async (dir: string) => {
    await asPostgres('pg_ctl', ['start', '-w', '-t', '30', '-D', dir, '-l', `${dir}.log`])
    running.push(dir)
    pids.push(postmasterPid(dir))
  }

  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    // Replica first, so the primary's walsender does not wait for it.
    for (const dir of [...running].reverse()) {
      await run('runuser', ['-u', PG_OS_USER, '--', join(PG_BIN, 'pg_ctl'), 'stop', '-m', 'fast', '-D', dir])
    }
    await waitForExit(pids)
    rmSync(dataDir, { recursive: true, force: true })
  }

  try {
    const [primaryPort, replicaPort] = await distinctFreePorts(2)
    await asPostgres('initdb', [
      '-D',
      primaryDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ])
    writeFileSync(join(primaryDir, 'pg_hba.conf'), PG_HBA)
    appendFileSync(join(primaryDir, 'postgresql.conf'), pgSettings(primaryPort as number, socketDir))
    await pgStart(primaryDir)

    await asPostgres('pg_basebackup', [
      '-h',
      HOST,
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ])
    // The copied postgresql.conf ends with the primary's port; a later line wins.
    appendFileSync(join(replicaDir, 'postgresql.conf'), pgSettings(replicaPort as number, socketDir))
    await pgStart(replicaDir)

    const primaryUrl = `postgres://postgres@${HOST}:${primaryPort}/postgres`
    const replicaUrl = `postgres://postgres@${HOST}:${replicaPort}/postgres`
    if (!(await replicaStreaming(primaryUrl, new Date(0))))
      throw new Error(`the replica did not start streaming; see ${replicaDir}.log`)
    return { primaryUrl, replicaUrl, dataDir, pids, stop, startupMs: Math.round(performance.now() - started) }
  } catch (error) {
    await stop().catch(() => {})
    throw error
  }
}

/**
 * Stops the replica of `pg` alone, by its own postmaster PID (pg.pids[1], checked against its
 * postmaster.pid): SIGINT is PostgreSQL's fast shutdown (sessions ended, what `pg_ctl stop -m fast`
 * sends), SIGQUIT its immediate one. Resolves once that process is gone; the primary keeps running.
 */
export async function stopReplica(
  pg: PostgresWithReplica,
  mode: 'fast' | 'immediate' = 'fast',
): Promise<void> {
  const pid = pg.pids[1]
  if (pid === undefined || !isAlive(pid)) throw new Error('the replica is not running')
  const replicaDir = join(pg.dataDir, 'replica')
  if (postmasterPid(replicaDir) !== pid) throw new Error(`PID ${pid} is not the postmaster of ${replicaDir}`)
  process.kill(pid, mode === 'fast' ? 'SIGINT' : 'SIGQUIT')
  await waitForExit([pid])
}

/**
 * Starts the stopped replica of `pg` again (`pg_ctl start -w` on its data directory, as the postgres OS
 * user). Its new postmaster PID replaces the old one in pg.pids, so pg.stop() still stops it by PID.
 * Resolves once the primary's pg_stat_replication shows it streaming again.
 */
export async function startReplica(pg: PostgresWithReplica): Promise<void> {
  const old = pg.pids[1]
  if (old !== undefined && isAlive(old)) throw new Error(`the replica is still running (PID ${old})`)
  const replicaDir = join(pg.dataDir, 'replica')
  const startedAt = new Date()
  await asPostgres('pg_ctl', ['start', '-w', '-t', '30', '-D', replicaDir, '-l', `${replicaDir}.log`])
  pg.pids[1] = postmasterPid(replicaDir)
  // A sender that started after this call: not the old one, still closing down.
  if (!(await replicaStreaming(pg.primaryUrl, startedAt)))
    throw new Error(`the replica did not stream again; see ${replicaDir}.log`)
}

/** Whether the primary shows a WAL sender streaming, started at or after `since`, within the start timeout. */
async function replicaStreaming(primaryUrl: string, since: Date): Promise<boolean> {
  const primary = postgres(primaryUrl, { max: 1, onnotice: () => {} })
  try {
    return await eventually(
      async () => {
        const rows = await primary<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_replication
          WHERE state = 'streaming' AND backend_start >= ${since}`
        return (rows[0]?.n ?? 0) >= 1
      },
      START_TIMEOUT_MS,
      50,
    )
  } finally {
    await primary.end()
  }
}
