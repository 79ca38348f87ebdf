/**
 * `npm run bench`: the API against its hand-written floor (bench/baseline-server.ts), same load, same
 * PostgreSQL and Redis, alternating runs (A B A B …) and quoting medians.
 *
 * It creates and drops its own database, issues an unlimited (hypha) key, starts both servers as child
 * processes on 127.0.0.1, runs the autocannon scenarios, prints a table and a JSON document (also
 * written to bench/results/latest.json) and checks the targets of the production-readiness issue.
 * A missed target is reported, not an error: the exit code is non-zero only when the run itself fails.
 *
 * Env: BENCH_DURATION (s per run, 8), BENCH_ROUNDS (3), BENCH_WARMUP (s, 3), BENCH_SCENARIOS (comma-separated
 * ids, default all), BENCH_CONNECTIONS (override every scenario's connection count), BENCH_SERVER_ENTRY
 * (default: `npm run start:prod`'s entry and node flags, built first by `npm run build`; src/main.ts measures
 * `npm start` under tsx), BENCH_CPU_PROF (a directory: the server runs under `node --cpu-prof` and writes its
 * profile there on exit), BENCH_SERVER_NODE_ARGS (extra node flags for the server, e.g. a diagnostic --import),
 * BENCH_ADMIN_DATABASE_URL, BENCH_REDIS_URL.
 *
 * This file sets up and tears down; scenarios.ts holds what is sent, runner.ts puts the load on and
 * measures, report.ts prints and writes the results, targets.ts holds the thresholds.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { seedAll } from '../seed/seed-all.ts'
import { openDatabase } from '../src/db/connect.ts'
import { createKey } from '../src/db/keys.ts'
import { migrate } from '../src/db/migrate.ts'
import {
  type BenchOutcome,
  printReport,
  type ScenarioReport,
  scenarioReport,
  writeResults,
} from './report.ts'
import { countBatchStatements, findSanityProblems, type MeasuredProcess, runScenario } from './runner.ts'
import { buildScenarios, type TargetName } from './scenarios.ts'
import {
  createDatabase,
  deleteRedisKeys,
  freePort,
  loadAverages,
  REDIS_URL,
  ROOT,
  RssSampler,
  randomSuffix,
  round,
  spawnNode,
  waitForHealthy,
} from './support.ts'
import { checkTargets } from './targets.ts'

const TIMING = {
  durationS: Number(process.env.BENCH_DURATION ?? 8),
  rounds: Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3)),
  warmupS: Number(process.env.BENCH_WARMUP ?? 3),
}
/** `npm run start:prod` (what the Docker image runs): its node flags and entry point. */
const [, ...productionCommand] = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts['start:prod']?.split(' ') ?? ['node', 'dist/src/main.js']
const PRODUCTION_ENTRY = productionCommand.at(-1) ?? 'dist/src/main.js'
const PRODUCTION_NODE_ARGS = productionCommand.slice(0, -1)
const SERVER_ENTRY = process.env.BENCH_SERVER_ENTRY ?? PRODUCTION_ENTRY
const CONNECTIONS = process.env.BENCH_CONNECTIONS ? Number(process.env.BENCH_CONNECTIONS) : undefined
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((id) => id.trim())
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF
const SERVER_NODE_ARGS = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []
const METRICS_TOKEN = `bench-${randomSuffix()}${randomSuffix()}`

type Log = (message: string) => void

const cleanups: (() => Promise<void>)[] = []
let cleaning: Promise<void> | null = null
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step()
      } catch (error) {
        console.error('cleanup step failed:', error)
      }
    }
  })()
  return cleaning
}
let interrupted = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true
    console.error(`\n${signal}: cleaning up`)
    void cleanup().then(() => process.exit(130))
  })
}

/** A fresh database, migrated and seeded, and an unlimited (hypha) key in it; dropped at cleanup. */
async function prepareDatabase(log: Log): Promise<{ url: string; apiKey: string }> {
  log('creating database')
  const database = await createDatabase('survival_bench')
  cleanups.push(async () => {
    await database.drop()
    log(`dropped database ${database.name}`)
  })
  const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 2 })
  try {
    await migrate(db.sql)
    const seedStarted = performance.now()
    await seedAll(db.sql)
    log(`migrated and seeded ${database.name} (seed ${Math.round(performance.now() - seedStarted)} ms)`)
    return { url: database.url, apiKey: (await createKey(db.sql, { tier: 'hypha', name: 'bench' })).key }
  } finally {
    await db.close()
  }
}

/** Starts the server and the baseline on free loopback ports and waits until both answer; stopped at cleanup. */
async function startProcesses(
  databaseUrl: string,
  quotaKeyPrefix: string,
  onServerLine: (line: string) => void,
  log: Log,
): Promise<Record<TargetName, MeasuredProcess>> {
  if (SERVER_ENTRY === PRODUCTION_ENTRY) {
    log('npm run build (the server runs as the Docker image runs it: compiled, no transpiler)')
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      { cwd: ROOT, stdio: 'inherit' },
    )
  }
  const [serverPort, baselinePort] = [await freePort(), await freePort()]
  const profileArgs = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []
  const server = spawnNode(
    'server',
    SERVER_ENTRY,
    {
      PORT: String(serverPort),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUOTA_KEY_PREFIX: `${quotaKeyPrefix}server:`,
      LOG_LEVEL: 'warn',
      METRICS_TOKEN,
      // One process, like the baseline: its pid is the one whose RSS and CPU are read.
      WEB_CONCURRENCY: '1',
    },
    {
      nodeArgs: [
        ...(SERVER_ENTRY === PRODUCTION_ENTRY ? PRODUCTION_NODE_ARGS : []),
        ...SERVER_NODE_ARGS,
        ...profileArgs,
      ],
      maxLines: 200,
      onLine: onServerLine,
    },
  )
  const baseline = spawnNode(
    'baseline',
    'bench/baseline-server.ts',
    {
      PORT: String(baselinePort),
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUOTA_KEY_PREFIX: `${quotaKeyPrefix}baseline:`,
    },
    { nodeArgs: profileArgs },
  )
  cleanups.push(async () => {
    await Promise.all([server.stop(), baseline.stop()])
    log('stopped server and baseline')
  })
  const serverUrl = `http://127.0.0.1:${serverPort}`
  const baselineUrl = `http://127.0.0.1:${baselinePort}`
  await Promise.all([
    waitForHealthy(`${serverUrl}/v1/health`, server, 60_000),
    waitForHealthy(`${baselineUrl}/v1/health`, baseline, 60_000),
  ])
  log(`server (pid ${server.pid}) on ${serverPort}, baseline (pid ${baseline.pid}) on ${baselinePort}`)
  const processes = {
    server: { url: serverUrl, child: server, rss: new RssSampler(server.pid) },
    baseline: { url: baselineUrl, child: baseline, rss: new RssSampler(baseline.pid) },
  }
  cleanups.push(async () => {
    processes.server.rss.stop()
    processes.baseline.rss.stop()
  })
  return processes
}

async function main(): Promise<void> {
  const started = performance.now()
  const loadAtStart = loadAverages()
  const log: Log = (message) =>
    console.error(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`)

  const database = await prepareDatabase(log)
  const prefix = `bench:${randomSuffix()}:`
  cleanups.push(async () => {
    const deleted = await deleteRedisKeys(prefix)
    log(`deleted ${deleted} Redis key(s) under ${prefix}`)
  })

  const scenarios = buildScenarios().filter((scenario) => !ONLY || ONLY.includes(scenario.id))
  log(`built request bodies for ${scenarios.length} scenarios`)

  // pino lines at warn (40) or above, by message: e.g. a quota store falling back under load.
  const serverWarnings = new Map<string, number>()
  const countServerWarning = (line: string) => {
    const match = /"level":(\d+).*"msg":"([^"]*)"/.exec(line)
    if (!match || Number(match[1]) < 40) return
    const message = (match[2] ?? '').slice(0, 120)
    serverWarnings.set(message, (serverWarnings.get(message) ?? 0) + 1)
  }
  const processes = await startProcesses(database.url, prefix, countServerWarning, log)

  const sanity = await findSanityProblems(scenarios, processes, database.apiKey, log)
  const settings = { ...TIMING, apiKey: database.apiKey, connections: CONNECTIONS }
  const reports: ScenarioReport[] = []
  for (const scenario of scenarios) {
    reports.push(scenarioReport(scenario, await runScenario(scenario, processes, settings, log)))
  }

  const batchScenario = scenarios.find((s) => s.id === 'rest_batch_500')
  const statements = batchScenario
    ? await countBatchStatements(processes.server.url, batchScenario, database.apiKey, METRICS_TOKEN)
    : null
  const serverRss = round(processes.server.rss.max(), 1)
  const outcome: BenchOutcome = {
    config: TIMING,
    loadAtStart,
    reports,
    serverRss,
    baselineRss: round(processes.baseline.rss.max(), 1),
    statements,
    sanity,
    serverWarnings,
    targets: checkTargets(reports, statements, serverRss),
  }
  printReport(outcome)
  const outFile = writeResults(outcome)
  log(`wrote ${outFile.pathname.replace(ROOT, '')}`)
}

try {
  await main()
} catch (error) {
  if (!interrupted) console.error('bench failed:', error)
  process.exitCode = 1
} finally {
  await cleanup()
}
