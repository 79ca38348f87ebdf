/**
 * `npm run bench`: the API against the reference floor (../shared/bench-floor, or bench/baseline-server.ts
 * when that folder is absent), same load, same PostgreSQL and Redis, alternating runs (A B A B …) and
 * quoting medians.
 *
 * It creates and drops its own databases (the project's, with an unlimited hypha key, and the floor's),
 * starts the servers as child processes on 127.0.0.1, keeps the forest points every server answers, runs
 * the autocannon scenarios, prints a table and the targets of issue 10, and writes a JSON document to
 * bench/results/latest.json. A missed target is reported, not an error: the exit code is non-zero only when
 * the run itself fails.
 *
 * Env: BENCH_DURATION (s per run, 8), BENCH_ROUNDS (3), BENCH_WARMUP (s, 3), BENCH_SCENARIOS (comma-separated
 * ids, default all), BENCH_CONNECTIONS (override every scenario's connection count), BENCH_BASELINE=1 (also
 * run bench/baseline-server.ts beside the floor in the REST scenarios), BENCH_FLOOR_DIR, BENCH_ADMIN_DATABASE_URL,
 * BENCH_REDIS_URL, and the server's own (servers.ts).
 *
 * This file sets up and tears down; floor.ts installs, seeds and starts the floor, servers.ts starts every
 * process, scenarios.ts holds what is sent, runner.ts puts the load on and measures, cpu.ts reads the CPU,
 * report.ts prints and writes the results, targets.ts holds the thresholds.
 */
import postgres from 'postgres'
import { seedAll } from '../seed/seed-all.ts'
import { openDatabase } from '../src/db/connect.ts'
import { createKey } from '../src/db/keys.ts'
import { migrate } from '../src/db/migrate.ts'
import {
  FLOOR_API_KEY,
  floorDirName,
  floorPresent,
  installFloor,
  seedFloorDatabase,
  trackFloorRedisKeys,
} from './floor.ts'
import {
  type BenchOutcome,
  printReport,
  type ScenarioReport,
  scenarioReport,
  writeResults,
} from './report.ts'
import {
  checkScenario,
  countBatchStatements,
  keepAnswered,
  runScenario,
  type SanityProblem,
} from './runner.ts'
import { buildScenarios, candidateBodies, type ProcessName, type Reference } from './scenarios.ts'
import {
  buildProject,
  ProcessPool,
  type ProjectTarget,
  startBaseline,
  startFloorServer,
  startProjectServer,
} from './servers.ts'
import {
  ADMIN_DATABASE_URL,
  createDatabase,
  deleteRedisKeys,
  freePort,
  listRedisKeys,
  loadAverages,
  REDIS_URL,
  ROOT,
  randomSuffix,
  round,
} from './support.ts'
import { checkTargets } from './targets.ts'

const TIMING = {
  durationS: Number(process.env.BENCH_DURATION ?? 8),
  rounds: Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3)),
  warmupS: Number(process.env.BENCH_WARMUP ?? 3),
}
const CONNECTIONS = process.env.BENCH_CONNECTIONS ? Number(process.env.BENCH_CONNECTIONS) : undefined
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((id) => id.trim())
const WITH_BASELINE = process.env.BENCH_BASELINE === '1'
const METRICS_TOKEN = `bench-${randomSuffix()}${randomSuffix()}`
/** The issue asks for at least this many distinct coordinates in the load. */
const MIN_POINTS = 20_000
/**
 * Enough points that no process asks for one twice: a single-predict run at up to PEAK_RPS, for the
 * warm-up and every round, in each of the (at most 3) single-predict scenarios one process serves (the
 * floor answers REST predict, GraphQL predict's reference and Redis away's).
 */
const PEAK_RPS = 7_000
const SINGLE_SCENARIOS_PER_PROCESS = 3
const POINTS_WANTED =
  PEAK_RPS * (TIMING.warmupS + TIMING.rounds * TIMING.durationS) * SINGLE_SCENARIOS_PER_PROCESS

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

interface ReferenceSetup {
  kind: Reference
  description: string
  /** The floor's database (absent for the fallback, which reads the project's). */
  databaseUrl?: string
}

/** The floor installed, seeded into a database of its own and its Redis keys tracked; or the fallback. */
async function prepareReference(log: Log): Promise<ReferenceSetup> {
  if (!floorPresent()) {
    log(
      `${floorDirName()} not found: comparing with bench/baseline-server.ts instead (the issue's targets are set against the floor)`,
    )
    return {
      kind: 'baseline',
      description: `bench/baseline-server.ts (fallback: ${floorDirName()} not found)`,
    }
  }
  await installFloor(log)
  const database = await seedFloorDatabase(ADMIN_DATABASE_URL, log)
  cleanups.push(async () => {
    await database.drop()
    log(`dropped database ${database.name}`)
  })
  const tidyRedis = await trackFloorRedisKeys()
  cleanups.push(async () => log(await tidyRedis()))
  return {
    kind: 'floor',
    description: `${floorDirName()} (server.mjs, KNN=stored, database ${database.name})`,
    databaseUrl: database.url,
  }
}

/** How to start each process this run may need; none starts before a scenario asks for it. */
function processPool(
  project: ProjectTarget,
  reference: ReferenceSetup,
  onServerLine: (label: string) => (line: string) => void,
  log: Log,
): ProcessPool {
  const floor = reference.databaseUrl
    ? { databaseUrl: reference.databaseUrl, apiKey: FLOOR_API_KEY }
    : undefined
  return new ProcessPool(
    {
      server: () => startProjectServer('server', project, REDIS_URL, onServerLine('project')),
      // A port nothing listens on: the server keeps its quotas in memory while it retries Redis.
      server_redis_away: async () =>
        startProjectServer(
          'server_redis_away',
          project,
          `redis://127.0.0.1:${await freePort()}`,
          onServerLine('project, Redis away'),
        ),
      baseline: () => startBaseline(project, REDIS_URL),
      ...(floor && {
        floor: () => startFloorServer('floor', floor, false),
        floor_no_redis: () => startFloorServer('floor_no_redis', floor, true),
      }),
    },
    log,
  )
}

/** Counts pino lines at warn (40) or above by process and message, e.g. a quota store falling back. */
function warningCounter(counts: Map<string, number>) {
  return (label: string) => (line: string) => {
    const match = /"level":(\d+).*"msg":"([^"]*)"/.exec(line)
    if (!match || Number(match[1]) < 40) return
    const message = `${label}: ${(match[2] ?? '').slice(0, 120)}`
    counts.set(message, (counts.get(message) ?? 0) + 1)
  }
}

async function main(): Promise<void> {
  const started = performance.now()
  const loadAtStart = loadAverages()
  const log: Log = (message) =>
    console.error(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`)

  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
  cleanups.push(() => admin.end())
  const [database, reference] = await Promise.all([prepareDatabase(log), prepareReference(log)])
  const quotaKeyPrefix = `bench:${randomSuffix()}:`
  cleanups.push(async () => {
    const deleted = await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${quotaKeyPrefix}*`))
    log(`deleted ${deleted} Redis key(s) under ${quotaKeyPrefix}`)
  })
  buildProject(log)

  const serverWarnings = new Map<string, number>()
  const project = {
    databaseUrl: database.url,
    apiKey: database.apiKey,
    quotaKeyPrefix,
    metricsToken: METRICS_TOKEN,
  }
  const pool = processPool(project, reference, warningCounter(serverWarnings), log)
  cleanups.push(() => pool.stopAll())
  const [server, referenceServer] = await Promise.all([pool.get('server'), pool.get(reference.kind)])

  const candidates = candidateBodies(POINTS_WANTED)
  const points = await keepAnswered(candidates, [server, referenceServer], log)
  if (points.length < MIN_POINTS)
    log(`WARNING only ${points.length} points answered by every server (the issue asks for ${MIN_POINTS})`)
  const scenarios = buildScenarios(points, {
    reference: reference.kind,
    withBaseline: WITH_BASELINE,
    durationS: TIMING.durationS,
  }).filter((scenario) => !ONLY || ONLY.includes(scenario.id))
  log(`built ${scenarios.length} scenarios over ${points.length} points`)

  const settings = { ...TIMING, connections: CONNECTIONS, admin }
  const reports: ScenarioReport[] = []
  const sanity: SanityProblem[] = []
  for (const scenario of scenarios) {
    const processes = await pool.getAll(scenario.arms.map((arm) => arm.process))
    sanity.push(...(await checkScenario(scenario, processes, log)))
    reports.push(scenarioReport(scenario, await runScenario(scenario, processes, settings, log)))
  }

  const batchLoad = scenarios
    .find((scenario) => scenario.id === 'rest_batch_500')
    ?.arms.find((arm) => arm.process === 'server')?.load
  const statements = batchLoad ? await countBatchStatements(server, batchLoad, METRICS_TOKEN) : null
  const running = await pool.running()
  const rssMb = Object.fromEntries(running.map((p) => [p.label, round(p.rss.max(), 1)]))
  // The target is per scenario: the peak of the project's processes over every measured run (the
  // pre-pass, which pushes all the points through batches first, shows only in the whole-process line).
  const isProject = (name: ProcessName) => name === 'server' || name === 'server_redis_away'
  const projectRssMb = round(
    Math.max(
      0,
      ...reports.flatMap((report) =>
        report.arms
          .filter((arm) => isProject(arm.process))
          .flatMap((arm) => arm.runs.map((run) => run.rssMaxMb)),
      ),
    ),
    1,
  )
  const outcome: BenchOutcome = {
    config: TIMING,
    loadAtStart,
    reference: { kind: reference.kind, description: reference.description },
    points: { candidates: candidates.length, kept: points.length },
    reports,
    rssMb,
    statements,
    sanity,
    serverWarnings,
    targets: checkTargets(reports, { reference: reference.kind, statements, projectRssMb }),
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
