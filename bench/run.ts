/**
 * `npm run bench`: the API against the reference server in bench/reference/ (or bench/baseline-server.ts
 * when that folder is absent), same load, same PostgreSQL and Redis, alternating runs (A B A B …) and
 * quoting medians.
 *
 * It creates and drops its own databases (the project's, with an unlimited hypha key, and the reference
 * server's), starts the servers as child processes on 127.0.0.1, keeps the forest points every server
 * answers, runs the autocannon scenarios (`rest_predict_cluster` on a Redis Cluster of its own,
 * scripts/engines.ts), times survivalMap under a climate in fresh server processes and the survey report over
 * 10,000 and 1,000,000 plots written into its database, prints a table and the targets (against the reference,
 * the climate's, the stocking plans' and the survey report's), and writes a JSON document to
 * bench/results/latest.json (the survey report's figures are printed only). A missed target is reported, not
 * an error: the exit code is non-zero only when the run itself fails.
 *
 * Env: BENCH_DURATION (s per run, 8), BENCH_ROUNDS (5), BENCH_WARMUP (s per arm, 12), BENCH_SCENARIOS
 * (comma-separated ids of scenarios, of `survival_map_climate` and of `survey_report`; default: all but the
 * opt-in `plan_point` and `plan_stand`, which `default` stands for in the list, e.g.
 * `default,plan_point,plan_stand`), BENCH_MAP_REPEATS (fresh processes per survival map, 7: a cached call
 * takes 45–150 ms in a fresh process, so fewer give a median of noise), BENCH_SURVEY_SIZES and
 * BENCH_SURVEY_REPEATS (survey-report.ts), BENCH_CONNECTIONS (override every scenario's connection count),
 * BENCH_BASELINE=1 (also run bench/baseline-server.ts beside the reference server in the
 * REST scenarios), BENCH_REFERENCE_DIR (default bench/reference), BENCH_ADMIN_DATABASE_URL, BENCH_REDIS_URL,
 * and the server's own (servers.ts).
 *
 * This file sets up and tears down; reference-server.ts installs, seeds and starts the reference server,
 * servers.ts starts every process, scenarios.ts holds what is sent (plans.ts the stocking plans'), runner.ts
 * puts the load on and measures, survival-map.ts times the maps, survey-report.ts the survey report, cpu.ts
 * reads the CPU, report.ts prints and writes the results, targets.ts holds the thresholds.
 */
import postgres from 'postgres'
import { startRedisCluster } from '../scripts/engines/redis-cluster.ts'
import { benchCalibrations } from './calibrations.ts'
import {
  installReference,
  REFERENCE_API_KEY,
  referencePresent,
  referenceServerName,
  seedReferenceDatabase,
  trackReferenceRedisKeys,
} from './reference-server.ts'
import {
  type BenchOutcome,
  printReport,
  type ScenarioReport,
  scenarioReport,
  writeResults,
} from './report.ts'
import {
  type BatchStatements,
  checkScenario,
  countBatchStatements,
  keepAnswered,
  runScenario,
  type SanityProblem,
} from './runner.ts'
import {
  buildScenarios,
  CALIBRATED_SCENARIO,
  candidateBodies,
  type PredictBody,
  type ProcessName,
  type Reference,
  type Scenario,
  type ScenarioOptions,
} from './scenarios.ts'
import { seededDatabase } from './seeded-database.ts'
import {
  buildProject,
  type MeasuredProcess,
  ProcessPool,
  type ProjectTarget,
  startBaseline,
  startProjectServer,
  startReferenceServer,
} from './servers.ts'
import {
  ADMIN_DATABASE_URL,
  deleteRedisKeys,
  freePort,
  listRedisKeys,
  loadAverages,
  REDIS_URL,
  ROOT,
  randomSuffix,
  round,
} from './support.ts'
import {
  measureSurveyReport,
  printSurveyReport,
  SURVEY_REPORT_ID,
  type SurveyReportOutcome,
} from './survey-report.ts'
import { measureSurvivalMap, SURVIVAL_MAP_ID, type SurvivalMapOutcome } from './survival-map.ts'
import { checkTargets } from './targets.ts'
import { checkProfiler } from './window-profiler.ts'

const TIMING = {
  durationS: Number(process.env.BENCH_DURATION ?? 8),
  rounds: Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5)),
  // Long enough for V8 to have optimised a server's request path: the project's REST predict still spent
  // ~5 % of its CPU in the compiler threads 20 s into its load, and its first rounds after a 3 s warm-up
  // cost 30–50 % more CPU per request than its last (2026-11-24).
  warmupS: Number(process.env.BENCH_WARMUP ?? 12),
}
/** Seconds of load one arm of a scenario takes: its warm-up and its rounds. */
const ARM_SECONDS = TIMING.warmupS + TIMING.rounds * TIMING.durationS
const CONNECTIONS = process.env.BENCH_CONNECTIONS ? Number(process.env.BENCH_CONNECTIONS) : undefined
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((id) => id.trim())
/**
 * Whether this run measures it: named in BENCH_SCENARIOS, or that is unset (or names `default`) and it is
 * in the default set (every scenario but the opt-in ones: the stocking plans').
 */
const selected = (id: string, optIn = false) =>
  ONLY ? ONLY.includes(id) || (!optIn && ONLY.includes('default')) : !optIn
const chosen = (scenario: Scenario) => selected(scenario.id, scenario.optIn)
const MAP_REPETITIONS = Math.max(1, Number(process.env.BENCH_MAP_REPEATS ?? 7))
const WITH_BASELINE = process.env.BENCH_BASELINE === '1'
const METRICS_TOKEN = `bench-${randomSuffix()}${randomSuffix()}`
/** The least number of distinct coordinates the load should hold (a warning below it). */
const MIN_POINTS = 20_000
/** The most single predicts a second any process is expected to answer. */
const PEAK_RPS = 7_000
/**
 * At most this many candidate points: every scenario holds its own body for each (a few hundred bytes),
 * and the load then goes round them again. Neither server keeps answers by point, so a point asked
 * again costs what it cost the first time.
 */
const MAX_CANDIDATES = 1_000_000

const isProject = (name: ProcessName) =>
  name === 'server' || name === 'server_redis_away' || name === 'server_redis_cluster'

/**
 * Seconds of load (warm-ups and rounds) the busiest process takes over the pool of points in these
 * scenarios: at PEAK_RPS, enough points for that many seconds means no process asks for one twice.
 */
function pointSecondsOfBusiestProcess(scenarios: readonly Scenario[]): number {
  const seconds = new Map<ProcessName, number>()
  for (const arm of scenarios.flatMap((scenario) => scenario.arms)) {
    if (arm.load.sequence !== 'points') continue
    seconds.set(arm.process, (seconds.get(arm.process) ?? 0) + ARM_SECONDS)
  }
  return Math.max(0, ...seconds.values())
}

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
  const database = await seededDatabase('survival_bench', log)
  cleanups.push(async () => {
    await database.drop()
    log(`dropped database ${database.name}`)
  })
  return { url: database.url, apiKey: database.apiKeys[0] as string }
}

interface ReferenceSetup {
  kind: Reference
  description: string
  /** The reference server's database (absent for the fallback, which reads the project's). */
  databaseUrl?: string
  /** Whether a scenario of this run loads it (else it is neither prepared nor started). */
  used: boolean
}

/** The reference server installed, seeded into a database of its own and its Redis keys tracked; or the fallback. */
async function prepareReference(kind: Reference, log: Log): Promise<ReferenceSetup> {
  if (kind === 'baseline') {
    log(
      `${referenceServerName()} not found: comparing with bench/baseline-server.ts instead (the targets are set against the reference server)`,
    )
    return {
      kind: 'baseline',
      description: `bench/baseline-server.ts (fallback: ${referenceServerName()} not found)`,
      used: true,
    }
  }
  await installReference(log)
  const database = await seedReferenceDatabase(ADMIN_DATABASE_URL, log)
  cleanups.push(async () => {
    await database.drop()
    log(`dropped database ${database.name}`)
  })
  const tidyRedis = await trackReferenceRedisKeys()
  cleanups.push(async () => log(await tidyRedis()))
  return {
    kind: 'reference',
    description: `${referenceServerName()} (server.mjs, KNN=stored, database ${database.name})`,
    databaseUrl: database.url,
    used: true,
  }
}

/** How to start each process this run may need; none starts before a scenario asks for it. */
function processPool(
  project: ProjectTarget,
  reference: ReferenceSetup,
  onServerLine: (label: string) => (line: string) => void,
  log: Log,
): ProcessPool {
  const referenceTarget = reference.databaseUrl
    ? { databaseUrl: reference.databaseUrl, apiKey: REFERENCE_API_KEY }
    : undefined
  return new ProcessPool(
    {
      server: () => startProjectServer('server', project, { REDIS_URL }, onServerLine('project')),
      // A port nothing listens on: the server keeps its quotas in memory while it retries Redis.
      server_redis_away: async () =>
        startProjectServer(
          'server_redis_away',
          project,
          { REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
          onServerLine('project, Redis away'),
        ),
      server_redis_cluster: async () => {
        const cluster = await startRedisCluster()
        log(`Redis Cluster of 3 masters and 3 replicas started in ${cluster.startupMs} ms`)
        // First in the list, so it runs last (cleanup() goes backwards): after the server using it stopped.
        cleanups.unshift(async () => {
          await cluster.stop()
          log('stopped the Redis Cluster')
        })
        return startProjectServer(
          'server_redis_cluster',
          project,
          { REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
          onServerLine('project, Redis Cluster'),
        )
      },
      baseline: () => startBaseline(project, REDIS_URL),
      ...(referenceTarget && {
        reference: () => startReferenceServer('reference', referenceTarget, false),
        reference_no_redis: () => startReferenceServer('reference_no_redis', referenceTarget, true),
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

interface Loaded {
  reference: ReferenceSetup
  candidates: number
  points: PredictBody[]
  reports: ScenarioReport[]
  sanity: SanityProblem[]
  statements: BatchStatements | null
}

/**
 * The autocannon scenarios asked for: the project and the reference started, the points both answer
 * kept, then each scenario checked and run.
 */
async function runScenarios(
  reference: ReferenceSetup,
  pool: ProcessPool,
  options: ScenarioOptions,
  wanted: readonly Scenario[],
  admin: postgres.Sql,
  log: Log,
): Promise<Loaded> {
  const server = await pool.get('server')
  // The points every server answers; when only the project's processes are loaded (e.g.
  // BENCH_SCENARIOS=rest_predict_climate), the points the project answers.
  const answering = reference.used ? [server, await pool.get(reference.kind)] : [server]

  const candidates = candidateBodies(
    Math.min(MAX_CANDIDATES, PEAK_RPS * pointSecondsOfBusiestProcess(wanted)),
  )
  const points = await keepAnswered(candidates, answering, log)
  if (points.length < MIN_POINTS)
    log(`WARNING only ${points.length} points answered by every server (the load should hold ${MIN_POINTS})`)
  const calibratedVersions = selected(CALIBRATED_SCENARIO) ? await benchCalibrations(server, points, log) : []
  const scenarios = buildScenarios(points, { ...options, calibratedVersions }).filter(chosen)
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
  return { reference, candidates: candidates.length, points, reports, sanity, statements }
}

/** survivalMap under a climate in fresh processes (each stopped at the end, or at cleanup if interrupted). */
async function survivalMapOutcome(
  startFresh: () => Promise<MeasuredProcess>,
  log: Log,
): Promise<SurvivalMapOutcome> {
  const started = new Set<MeasuredProcess>()
  cleanups.push(async () => {
    await Promise.all([...started].map((process) => process.child.stop()))
  })
  try {
    return await measureSurvivalMap(
      async () => {
        const process = await startFresh()
        started.add(process)
        return process
      },
      MAP_REPETITIONS,
      log,
    )
  } catch (error) {
    const reason = `failed: ${error instanceof Error ? error.message : String(error)}`
    log(`WARNING ${SURVIVAL_MAP_ID} ${reason}`)
    return { measured: false, reason }
  }
}

/** The survey report's timings on a fresh server (stopped at the end, or at cleanup if interrupted). */
async function surveyReportOutcome(
  databaseUrl: string,
  startFresh: () => Promise<MeasuredProcess>,
  log: Log,
): Promise<SurveyReportOutcome | null> {
  let started: MeasuredProcess | null = null
  cleanups.push(async () => {
    await started?.child.stop()
  })
  try {
    return await measureSurveyReport(
      databaseUrl,
      async () => {
        started = await startFresh()
        return started
      },
      log,
    )
  } catch (error) {
    log(`WARNING ${SURVEY_REPORT_ID} failed: ${error instanceof Error ? error.message : String(error)}`)
    return null
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_PROFILE_DIR) checkProfiler()
  const started = performance.now()
  const loadAtStart = loadAverages()
  const log: Log = (message) =>
    console.error(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`)

  const referenceKind: Reference = referencePresent() ? 'reference' : 'baseline'
  const options: ScenarioOptions = {
    reference: referenceKind,
    withBaseline: WITH_BASELINE,
    durationS: TIMING.durationS,
    armSeconds: ARM_SECONDS,
  }
  // The scenarios asked for, built over a small pool (~2 s) to see which processes they load and how long.
  // (rest_predict_calibrated's versions are made once the server runs: a stand-in name here.)
  const wanted = buildScenarios(candidateBodies(0), {
    ...options,
    calibratedVersions: selected(CALIBRATED_SCENARIO) ? ['0.2+cal.00000000'] : [],
  }).filter(chosen)
  const measureMap = selected(SURVIVAL_MAP_ID)
  const measureSurveys = selected(SURVEY_REPORT_ID)
  if (wanted.length === 0 && !measureMap && !measureSurveys)
    throw new Error(
      `BENCH_SCENARIOS=${ONLY?.join(',')} names no scenario nor ${SURVIVAL_MAP_ID} nor ${SURVEY_REPORT_ID}`,
    )

  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
  cleanups.push(() => admin.end())
  const referenceUsed = wanted.some((scenario) => scenario.arms.some((arm) => !isProject(arm.process)))
  const [database, reference] = await Promise.all([
    prepareDatabase(log),
    referenceUsed
      ? prepareReference(referenceKind, log)
      : { kind: referenceKind, description: 'none: no scenario run loads it', used: false },
  ])
  const quotaKeyPrefix = `bench:${randomSuffix()}:`
  cleanups.push(async () => {
    const deleted = await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${quotaKeyPrefix}*`))
    log(`deleted ${deleted} Redis key(s) under ${quotaKeyPrefix}`)
  })
  buildProject(log)

  const serverWarnings = new Map<string, number>()
  const onServerLine = warningCounter(serverWarnings)
  const project = {
    databaseUrl: database.url,
    apiKey: database.apiKey,
    quotaKeyPrefix,
    metricsToken: METRICS_TOKEN,
  }
  const pool = wanted.length ? processPool(project, reference, onServerLine, log) : null
  if (pool) cleanups.push(() => pool.stopAll())
  const loaded: Loaded = pool
    ? await runScenarios(reference, pool, options, wanted, admin, log)
    : {
        reference,
        candidates: 0,
        points: [],
        reports: [],
        sanity: [],
        statements: null,
      }
  const { reports, statements } = loaded

  const survivalMap = measureMap
    ? await survivalMapOutcome(
        () => startProjectServer('server_fresh', project, { REDIS_URL }, onServerLine('project, fresh')),
        log,
      )
    : null
  const surveyReport = measureSurveys
    ? await surveyReportOutcome(
        database.url,
        () => startProjectServer('server_fresh', project, { REDIS_URL }, onServerLine('project, surveys')),
        log,
      )
    : null

  const running = pool ? await pool.running() : []
  const rssMb = Object.fromEntries(running.map((p) => [p.label, round(p.rss.max(), 1)]))
  // The target is per scenario: the peak of the project's processes over every measured run (the
  // pre-pass, which pushes all the points through batches first, shows only in the whole-process line).
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
    reference: { kind: loaded.reference.kind, description: loaded.reference.description },
    points: { candidates: loaded.candidates, kept: loaded.points.length },
    reports,
    rssMb,
    statements,
    sanity: loaded.sanity,
    serverWarnings,
    survivalMap,
    targets: checkTargets(reports, {
      reference: loaded.reference.kind,
      statements,
      projectRssMb,
      survivalMap,
    }),
  }
  printReport(outcome)
  if (surveyReport) printSurveyReport(surveyReport)
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
