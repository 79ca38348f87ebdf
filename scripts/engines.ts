/**
 * Real engines on 127.0.0.1 without Docker, for tests and benchmarks: a PostgreSQL 15 primary with one
 * streaming replica, and a Redis 7 Cluster of 3 masters and 3 replicas. Each lives in a fresh temporary
 * directory on free ports and is stopped by its own PIDs (never by process name); the machine's own
 * PostgreSQL (5432) and Redis (6379) are never touched.
 *
 *   npm run engines:up   # start both, print the URLs and nodes, stop them on Ctrl-C
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { appendFileSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import postgres from 'postgres'
import { freePort } from '../test/support/net.ts'
import { eventually } from '../test/support/waiting.ts'

export const PG_BIN = process.env.ENGINES_PG_BIN ?? '/usr/lib/postgresql/15/bin'
export const PG_OS_USER = 'postgres'
const HOST = '127.0.0.1'
const KILL_AFTER_MS = 10_000
const START_TIMEOUT_MS = 30_000

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

export interface RedisCluster {
  /** `host:port` of the six nodes. */
  nodes: string[]
  /** The redis-server PIDs, in the order of `nodes`. */
  pids: number[]
  /** The temporary directory holding the nodes' cluster config files. */
  dataDir: string
  stop(): Promise<void>
  startupMs: number
}

interface RunResult {
  code: number | null
  output: string
}

/** Runs a command to its end (resolves on exit, not on pipe close: daemons may keep nothing of ours open). */
function run(command: string, args: readonly string[], timeoutMs = START_TIMEOUT_MS): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${command} ${args.join(' ')} took over ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      // Let the pipes drain what the process wrote just before it exited.
      setImmediate(() => resolve({ code, output }))
    })
  })
}

async function runOk(command: string, args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await run(command, args, timeoutMs)
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${result.code}:\n${result.output}`)
  return result.output
}

/** A PostgreSQL binary run as the postgres OS user (we are root; PostgreSQL refuses to run as root). */
function asPostgres(binary: string, args: readonly string[], timeoutMs?: number): Promise<string> {
  return runOk('runuser', ['-u', PG_OS_USER, '--', join(PG_BIN, binary), ...args], timeoutMs)
}

/** True while a process with this PID exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Waits for every PID to be gone; SIGKILLs those still there after `timeoutMs`, then waits again. */
async function waitForExit(pids: readonly number[], timeoutMs = KILL_AFTER_MS): Promise<void> {
  const gone = () => pids.every((pid) => !isAlive(pid))
  if (await eventually(gone, timeoutMs, 50)) return
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  if (!(await eventually(gone, 5000, 50)))
    throw new Error(`processes ${pids.filter(isAlive).join(', ')} survived SIGKILL`)
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

/** True when nothing listens on 127.0.0.1:port. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, HOST, () => server.close(() => resolve(true)))
  })
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>()
  while (ports.size < count) ports.add(await freePort())
  return [...ports]
}

/**
 * Ports P for Redis Cluster nodes: P and its cluster bus port P + 10000 both free. Drawn from 20000-55000,
 * below the kernel's ephemeral range start, so P + 10000 stays a valid port.
 */
async function clusterPorts(count: number): Promise<number[]> {
  const ports: number[] = []
  for (let attempt = 0; ports.length < count && attempt < 1000; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000)
    if (ports.some((taken) => taken === port || taken === port + 10_000 || taken + 10_000 === port)) continue
    if ((await portIsFree(port)) && (await portIsFree(port + 10_000))) ports.push(port)
  }
  if (ports.length < count) throw new Error('no free ports for the Redis Cluster')
  return ports
}

async function redisCli(port: number, ...args: string[]): Promise<RunResult> {
  return run('redis-cli', ['-h', HOST, '-p', String(port), ...args], 5000)
}

/**
 * A Redis 7 Cluster of 3 masters and 3 replicas: six `redis-server` processes spawned on free ports (their
 * PIDs kept), joined by `redis-cli --cluster create --cluster-replicas 1`. Resolves once every node's
 * CLUSTER INFO says `cluster_state:ok` and knows all six nodes.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const started = performance.now()
  const dataDir = mkdtempSync(join(tmpdir(), 'engines-redis-'))
  const children: { port: number; child: ChildProcess; output: () => string }[] = []

  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    const pids = children.map(({ child }) => child.pid).filter((pid): pid is number => pid !== undefined)
    for (const { child } of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await waitForExit(pids)
    rmSync(dataDir, { recursive: true, force: true })
  }

  try {
    const ports = await clusterPorts(6)
    for (const port of ports) {
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dataDir, `nodes-${port}.conf`),
          '--bind',
          HOST,
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dataDir,
          '--daemonize',
          'no',
        ],
        // Its own process group: a Ctrl-C in the terminal reaches the CLI, which then stops the nodes in order.
        { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
      )
      let output = ''
      child.stdout?.on('data', (chunk) => {
        output += chunk
      })
      child.stderr?.on('data', (chunk) => {
        output += chunk
      })
      children.push({ port, child, output: () => output })
    }
    for (const { port, child, output } of children) {
      const up = await eventually(
        async () => {
          if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited:\n${output()}`)
          return (await redisCli(port, 'PING')).output.trim() === 'PONG'
        },
        START_TIMEOUT_MS,
        25,
      )
      if (!up) throw new Error(`redis-server on ${port} did not answer PING:\n${output()}`)
    }

    const nodes = ports.map((port) => `${HOST}:${port}`)
    await runOk('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '1', '--cluster-yes'])
    for (const port of ports) {
      const ok = await eventually(
        async () => {
          const info = (await redisCli(port, 'CLUSTER', 'INFO')).output
          return info.includes('cluster_state:ok') && info.includes('cluster_known_nodes:6')
        },
        START_TIMEOUT_MS,
        50,
      )
      if (!ok) throw new Error(`the cluster is not ok on ${HOST}:${port}`)
    }
    const pids = children.map(({ child }) => child.pid as number)
    return { nodes, pids, dataDir, stop, startupMs: Math.round(performance.now() - started) }
  } catch (error) {
    await stop().catch(() => {})
    throw error
  }
}

async function up(): Promise<void> {
  const [pgResult, redisResult] = await Promise.allSettled([startPostgresWithReplica(), startRedisCluster()])
  if (pgResult.status === 'rejected' || redisResult.status === 'rejected') {
    // The one that did start is stopped before the failure is reported.
    if (pgResult.status === 'fulfilled') await pgResult.value.stop()
    if (redisResult.status === 'fulfilled') await redisResult.value.stop()
    throw pgResult.status === 'rejected' ? pgResult.reason : (redisResult as PromiseRejectedResult).reason
  }
  const pg = pgResult.value
  const redis = redisResult.value
  console.log(`PostgreSQL primary  ${pg.primaryUrl}`)
  console.log(`PostgreSQL replica  ${pg.replicaUrl}`)
  console.log(`  data ${pg.dataDir}, PIDs ${pg.pids.join(' ')}, started in ${pg.startupMs} ms`)
  console.log(`Redis Cluster       ${redis.nodes.join(' ')}`)
  console.log(`  data ${redis.dataDir}, PIDs ${redis.pids.join(' ')}, started in ${redis.startupMs} ms`)
  console.log('Ctrl-C stops them.')
  // Listeners stay for the whole stop: tsx (and npm) relay the signal again, and a process with no
  // listener left would exit mid-stop and leave the engines running.
  let stopping = false
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      if (stopping) return
      stopping = true
      resolve()
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
  console.log('stopping…')
  await Promise.all([pg.stop(), redis.stop()])
  console.log('stopped')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2]
  if (command !== 'up') {
    console.error('usage: npm run engines:up')
    process.exit(2)
  }
  up().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}
