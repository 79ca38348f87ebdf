/**
 * The processes `npm run bench` measures: the project's server (built as `npm run start:prod` runs it, with
 * Redis up or away), the reference server in bench/reference/ (reference-server.ts) and
 * bench/baseline-server.ts, each on a free loopback port, started when a scenario first needs it and
 * stopped at the end.
 *
 * Env: BENCH_SERVER_ENTRY (default: `npm run start:prod`'s settings, entry and node flags, built first by
 * `npm run build`; src/wiring/main.ts measures `npm start` under tsx), BENCH_CPU_PROF (a directory: the server runs
 * under `node --cpu-prof` and writes its profile there on exit), BENCH_SERVER_NODE_ARGS (extra node flags
 * for the server, e.g. a diagnostic --import), BENCH_PROFILE_DIR (a directory: after its rounds, each scenario
 * runs every project arm once more with the server profiled for that run only, by V8's profiler or, with
 * BENCH_PROFILER=perf, by Linux perf; see bench/window-profiler.ts and bench/profile-report.ts).
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { productionCommand } from './production-command.ts'
import { REFERENCE_HEALTH_PATH, startReference } from './reference-server.ts'
import { PROCESS_LABELS, type ProcessName } from './scenarios.ts'
import { type Child, freePort, ROOT, RssSampler, spawnNode, waitForHealthy } from './support.ts'
import { profiledServerArgs } from './window-profiler.ts'

/** `npm run start:prod` (what the Docker image runs): its settings, node flags and entry point. */
const PRODUCTION = productionCommand()
const PRODUCTION_ENTRY = PRODUCTION.entry
export const PRODUCTION_NODE_ARGS = PRODUCTION.nodeArgs
export const PRODUCTION_ENV = PRODUCTION.env
const SERVER_ENTRY = process.env.BENCH_SERVER_ENTRY ?? PRODUCTION_ENTRY
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF
const SERVER_NODE_ARGS = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []
const PROFILE_ARGS = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []
/** BENCH_PROFILE_DIR: the project's servers can profile one load window each (bench/window-profiler.ts). */
const WINDOW_PROFILE_ARGS = profiledServerArgs()
const HEALTH_TIMEOUT_MS = 60_000

type Log = (message: string) => void

/** A running target: where it listens, the key it takes, and what is measured of it. */
export interface MeasuredProcess {
  name: ProcessName
  label: string
  url: string
  apiKey: string
  /** The database its PostgreSQL backends serve: their CPU is counted as this target's. */
  database: string
  child: Child
  rss: RssSampler
}

export const databaseName = (url: string) => new URL(url).pathname.slice(1)

/** `npm run build`, unless BENCH_SERVER_ENTRY points at something else. */
export function buildProject(log: Log): void {
  if (SERVER_ENTRY !== PRODUCTION_ENTRY) return
  log('npm run build (the server runs as the Docker image runs it: compiled, no transpiler)')
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, stdio: 'inherit' },
  )
}

/** Waits for the child's health URL; a child that never answers is stopped. */
async function measured(
  name: ProcessName,
  child: Child,
  port: number,
  healthPath: string,
  target: { apiKey: string; databaseUrl: string },
): Promise<MeasuredProcess> {
  const url = `http://127.0.0.1:${port}`
  try {
    await waitForHealthy(url + healthPath, child, HEALTH_TIMEOUT_MS)
  } catch (error) {
    await child.stop()
    throw error
  }
  return {
    name,
    label: PROCESS_LABELS[name],
    url,
    apiKey: target.apiKey,
    database: databaseName(target.databaseUrl),
    child,
    rss: new RssSampler(child.pid),
  }
}

export interface ProjectTarget {
  databaseUrl: string
  apiKey: string
  quotaKeyPrefix: string
  metricsToken: string
}

/**
 * Where the server counts quotas: one Redis (its URL may be a closed port: quotas then kept in memory),
 * or a Redis Cluster's seed nodes.
 */
export type RedisTarget = { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string }

/** The secret the bench's servers hash client addresses under (ADDRESS_HASH_KEY): one per run, shared. */
export const BENCH_ADDRESS_HASH_KEY = randomBytes(32).toString('hex')

/** The project's server, one process. */
export async function startProjectServer(
  name: ProcessName,
  target: ProjectTarget,
  redis: RedisTarget,
  onLine: (line: string) => void,
  /** Further settings of the server's (they win over the bench's own). */
  env: Record<string, string> = {},
): Promise<MeasuredProcess> {
  const port = await freePort()
  const child = spawnNode(
    name,
    SERVER_ENTRY,
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: target.databaseUrl,
      ...redis,
      QUOTA_KEY_PREFIX: target.quotaKeyPrefix,
      LOG_LEVEL: 'warn',
      METRICS_TOKEN: target.metricsToken,
      // Required with DATABASE_URL: the secret client addresses are hashed under.
      ADDRESS_HASH_KEY: BENCH_ADDRESS_HASH_KEY,
      // One process, like the reference server: its pid is the one whose RSS and CPU are read.
      WEB_CONCURRENCY: '1',
      // The bench's one key asks for survival maps more often than the default 10 a minute allows.
      SURVIVAL_MAP_PER_MINUTE: '10000',
      ...(SERVER_ENTRY === PRODUCTION_ENTRY ? PRODUCTION_ENV : {}),
      ...env,
    },
    {
      nodeArgs: [
        ...(SERVER_ENTRY === PRODUCTION_ENTRY ? PRODUCTION_NODE_ARGS : []),
        ...SERVER_NODE_ARGS,
        ...PROFILE_ARGS,
        ...WINDOW_PROFILE_ARGS,
      ],
      maxLines: 200,
      onLine,
    },
  )
  return measured(name, child, port, '/v1/health', target)
}

/** bench/baseline-server.ts on the project's database and key. */
export async function startBaseline(target: ProjectTarget, redisUrl: string): Promise<MeasuredProcess> {
  const port = await freePort()
  const child = spawnNode(
    'baseline',
    'bench/baseline-server.ts',
    {
      PORT: String(port),
      DATABASE_URL: target.databaseUrl,
      REDIS_URL: redisUrl,
      QUOTA_KEY_PREFIX: `${target.quotaKeyPrefix}baseline:`,
    },
    { nodeArgs: PROFILE_ARGS },
  )
  return measured('baseline', child, port, '/v1/health', target)
}

/** The reference server's server.mjs on its own database, with Redis or (NO_REDIS=1) without. */
export async function startReferenceServer(
  name: ProcessName,
  target: { databaseUrl: string; apiKey: string },
  noRedis: boolean,
): Promise<MeasuredProcess> {
  const port = await freePort()
  const child = startReference(name, { port, databaseUrl: target.databaseUrl, noRedis })
  return measured(name, child, port, REFERENCE_HEALTH_PATH, target)
}

/** Starts each process the first time it is asked for; stopAll() ends every one that started. */
export class ProcessPool {
  private readonly started = new Map<ProcessName, Promise<MeasuredProcess>>()

  constructor(
    private readonly starters: Partial<Record<ProcessName, () => Promise<MeasuredProcess>>>,
    private readonly log: Log,
  ) {}

  get(name: ProcessName): Promise<MeasuredProcess> {
    let process = this.started.get(name)
    if (!process) {
      const start = this.starters[name]
      if (!start) throw new Error(`no way to start ${name} in this run`)
      process = start().then((running) => {
        this.log(`${running.label} (pid ${running.child.pid}) on ${running.url}`)
        return running
      })
      this.started.set(name, process)
    }
    return process
  }

  async getAll(names: readonly ProcessName[]): Promise<Map<ProcessName, MeasuredProcess>> {
    const running = await Promise.all(names.map((name) => this.get(name)))
    return new Map(running.map((process) => [process.name, process]))
  }

  /** The processes that are up, for reading their RSS peaks. */
  async running(): Promise<MeasuredProcess[]> {
    const settled = await Promise.allSettled(this.started.values())
    return settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
  }

  async stopAll(): Promise<void> {
    const running = await this.running()
    for (const process of running) process.rss.stop()
    await Promise.all(running.map((process) => process.child.stop()))
    if (running.length) this.log(`stopped ${running.map((process) => process.label).join(', ')}`)
  }
}
