/**
 * Puts load on the processes: the pre-pass that keeps the points every server answers, one checked
 * request per arm, autocannon rounds with each run's latency, RSS and CPU per process group, and /metrics reads.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import autocannon, { type AutocannonResult } from 'autocannon'
import type postgres from 'postgres'
import { type CpuUse, openCpuWindow } from './cpu.ts'
import {
  type Arm,
  type ArmKey,
  armKey,
  chunks,
  type Load,
  type PredictBody,
  type ProcessName,
  type Scenario,
} from './scenarios.ts'
import type { MeasuredProcess } from './servers.ts'
import { round } from './support.ts'
import { PROFILER, startProfile } from './window-profiler.ts'

export type Processes = ReadonlyMap<ProcessName, MeasuredProcess>

/** Where server CPU profiles of one extra run per project arm go (bench/window-profiler.ts); unset: none. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR

export interface LoadSettings {
  durationS: number
  rounds: number
  warmupS: number
  /** Replaces every scenario's own connection count when set. */
  connections: number | undefined
  /** A connection to the admin database, to find the PostgreSQL backends of each target. */
  admin: postgres.Sql
}

/** CPU time per answered request, µs, of each process group during one run. */
export interface CpuPerRequest {
  server: number | null
  postgres: number
  redis: number
  loadGenerator: number
}

export interface RunFigures {
  rps: number
  p50: number
  p90: number
  p99: number
  mean: number
  requests: number
  errors: number
  timeouts: number
  non2xx: number
  rssMaxMb: number
  cpuUs: CpuPerRequest | null
  /** Share of the machine's CPU left idle during the run, %. */
  idlePct: number
  /** The run sent more requests than the load has bodies, so some were asked twice. */
  repeated: boolean
}

export interface SanityProblem {
  scenario: string
  target: string
  problem: string
}

export interface BatchStatements {
  verified: boolean
  statements?: number
  points?: number
  note: string
}

type Log = (message: string) => void

function headersFor(apiKey: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    'x-api-key': apiKey,
  }
}

/** Where each process stands in each sequence of bodies (see Load.sequence). */
const positions = new Map<string, number>()

/**
 * One autocannon run; returns its result and how many bodies it went through (sent, or passed over as
 * refused when the load tracks refusals: see Load.refused).
 */
async function cannon(
  target: MeasuredProcess,
  load: Load,
  connections: number,
  durationS: number,
): Promise<{ result: AutocannonResult; sent: number }> {
  const position = `${target.name}:${load.sequence}`
  const { bodies, refused } = load
  const start = positions.get(position) ?? 0
  let next = start
  let sent = 0
  /** The next body's index, past those refused (all refused: the next one all the same). */
  const nextIndex = () => {
    let index = next++ % bodies.length
    for (let passed = 0; refused?.has(index) && passed < bodies.length; passed++)
      index = next++ % bodies.length
    return index
  }
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        connections,
        duration: durationS,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: load.path,
            headers: headersFor(target.apiKey),
            setupRequest: (request, context) => {
              const index = nextIndex()
              context.index = index
              request.body = bodies[index]
              sent += 1
              return request
            },
            ...(refused && {
              onResponse: (status: number, _body: string, context: Record<string, unknown>) => {
                if ((status < 200 || status > 299) && typeof context.index === 'number')
                  refused.set(context.index, status)
              },
            }),
          },
        ],
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    )
  })
  positions.set(position, next % bodies.length)
  return { result, sent: Math.max(sent, next - start) }
}

const perRequest = (ms: number, requests: number) => round((ms * 1000) / requests, 1)

function figures(result: AutocannonResult, rssMaxMb: number, cpu: CpuUse, repeated: boolean): RunFigures {
  const answered = result['2xx'] + result.non2xx
  return {
    // Successful answers per second: a fast 503 from load shedding must not count as throughput.
    rps: round(result['2xx'] / result.duration, 1),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    mean: round(result.latency.average, 2),
    requests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    rssMaxMb: round(rssMaxMb, 1),
    cpuUs:
      answered > 0
        ? {
            server: cpu.serverMs === null ? null : perRequest(cpu.serverMs, answered),
            postgres: perRequest(cpu.postgresMs, answered),
            redis: perRequest(cpu.redisMs, answered),
            loadGenerator: perRequest(cpu.loadGeneratorMs, answered),
          }
        : null,
    idlePct: round(cpu.idleShare * 100, 1),
    repeated,
  }
}

function assertAlive(processes: Processes): void {
  for (const { child } of processes.values()) {
    if (child.process.exitCode !== null || child.process.signalCode !== null)
      throw new Error(`${child.name} exited during the benchmark`)
  }
}

/** One measured run of one arm. */
async function measureArm(
  arm: Arm,
  processes: Processes,
  connections: number,
  settings: LoadSettings,
): Promise<RunFigures> {
  const target = processes.get(arm.process)
  if (!target) throw new Error(`${arm.process} is not running`)
  target.rss.reset()
  const closeWindow = await openCpuWindow(target.child.pid, target.database, settings.admin)
  const { result, sent } = await cannon(target, arm.load, connections, settings.durationS)
  const cpu = await closeWindow()
  assertAlive(processes)
  return figures(result, target.rss.reset(), cpu, sent > arm.load.bodies.length)
}

function describeRun(run: RunFigures): string {
  const cpu = run.cpuUs
    ? `CPU µs/req server ${run.cpuUs.server}, PostgreSQL ${run.cpuUs.postgres}, Redis ${run.cpuUs.redis}, load ${run.cpuUs.loadGenerator}`
    : 'no CPU figures'
  return `${run.rps} rps, p50 ${run.p50} ms, p99 ${run.p99} ms, errors ${run.errors}, non2xx ${run.non2xx}, RSS ${run.rssMaxMb} MB, ${cpu}, idle ${run.idlePct} %${run.repeated ? ', REPEATED BODIES' : ''}`
}

/** A warm-up per arm, then `rounds` rounds running the arms in turn (A B A B …). */
export async function runScenario(
  scenario: Scenario,
  processes: Processes,
  settings: LoadSettings,
  log: Log,
): Promise<Partial<Record<ArmKey, RunFigures[]>>> {
  const connections = settings.connections ?? scenario.connections
  const runs: Partial<Record<ArmKey, RunFigures[]>> = Object.fromEntries(
    scenario.arms.map((arm) => [armKey(arm), []]),
  )
  if (settings.warmupS > 0) {
    for (const arm of scenario.arms) {
      const target = processes.get(arm.process)
      if (target) await cannon(target, arm.load, connections, settings.warmupS)
    }
    log(`${scenario.id}: warmed up`)
  }
  for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex++) {
    for (const arm of scenario.arms) {
      const run = await measureArm(arm, processes, connections, settings)
      runs[armKey(arm)]?.push(run)
      log(`${scenario.id} round ${roundIndex + 1} ${armKey(arm).padEnd(17)} ${describeRun(run)}`)
    }
  }
  if (PROFILE_DIR) await profileArms(scenario, processes, connections, settings, log)
  return runs
}

/**
 * BENCH_PROFILE_DIR: one more run of each project arm, not counted in the figures, with the server
 * profiled for exactly that run (bench/window-profiler.ts: V8's profiler, or perf with
 * BENCH_PROFILER=perf); its requests are written beside the profile so bench/profile-report.ts can give µs
 * per request.
 */
async function profileArms(
  scenario: Scenario,
  processes: Processes,
  connections: number,
  settings: LoadSettings,
  log: Log,
): Promise<void> {
  const dir = PROFILE_DIR as string
  mkdirSync(dir, { recursive: true })
  for (const arm of scenario.arms) {
    const target = processes.get(arm.process)
    if (!target || !arm.process.startsWith('server')) continue
    const label = `${scenario.id}__${armKey(arm).replace(':', '_')}`
    const window = await startProfile(target.child.pid, dir, label)
    const run = await measureArm(arm, processes, connections, settings)
    await window.stop()
    writeFileSync(
      join(dir, `${label}.json`),
      JSON.stringify({
        scenario: scenario.id,
        arm: armKey(arm),
        profiler: PROFILER,
        requests: run.requests,
        rps: run.rps,
        cpuUs: run.cpuUs,
      }),
    )
    log(`${scenario.id} profiled ${armKey(arm)} with ${PROFILER}: ${describeRun(run)} → ${dir}/${label}.*`)
  }
}

// --- answers before load ---------------------------------------------------------------------------

/** The server closed the kept-alive connection fetch reused (its keep-alive timeout ran out while this process was busy). */
const closedBeforeAnswer = (error: unknown) =>
  error instanceof TypeError && (error.cause as { code?: string } | undefined)?.code === 'UND_ERR_SOCKET'

/** One POST, sent again once if it went out on a connection the server had already closed. */
export async function post(target: MeasuredProcess, path: string, body: string) {
  const send = () => fetch(target.url + path, { method: 'POST', headers: headersFor(target.apiKey), body })
  const response = await send().catch((error: unknown) => {
    if (closedBeforeAnswer(error)) return send()
    throw error
  })
  return { status: response.status, body: (await response.json().catch(() => null)) as unknown }
}

const PRE_PASS_BATCH = 500
const PRE_PASS_IN_FLIGHT = 2

/** Indexes of the bodies `target` answers with a prediction, asked through its batch endpoint. */
async function answeredBy(target: MeasuredProcess, bodies: readonly PredictBody[]): Promise<Set<number>> {
  const batches = chunks(
    bodies.map((body, index) => ({ body, index })),
    PRE_PASS_BATCH,
  )
  const answered = new Set<number>()
  let next = 0
  const worker = async () => {
    for (let batch = batches[next++]; batch; batch = batches[next++]) {
      const sites = batch.map((item) => item.body)
      const { status, body } = await post(target, '/v1/predict/batch', JSON.stringify({ sites }))
      const results = (body as { results?: { index: number; prediction?: unknown }[] } | null)?.results
      if (status !== 200 || !results)
        throw new Error(
          `${target.label} pre-pass batch: status ${status}: ${JSON.stringify(body).slice(0, 300)}`,
        )
      for (const result of results) {
        const item = batch[result.index]
        if (result.prediction && item) answered.add(item.index)
      }
    }
  }
  await Promise.all(Array.from({ length: PRE_PASS_IN_FLIGHT }, worker))
  return answered
}

/**
 * The candidates every target answers (a batch item answered is a single request answered 200), so that
 * the load asks for nothing that fails, and each scenario has as many distinct points as possible.
 */
export async function keepAnswered(
  candidates: readonly PredictBody[],
  targets: readonly MeasuredProcess[],
  log: Log,
): Promise<PredictBody[]> {
  let kept = candidates.map((_, index) => index)
  for (const target of targets) {
    const started = performance.now()
    const answered = await answeredBy(target, candidates)
    kept = kept.filter((index) => answered.has(index))
    log(
      `pre-pass: ${target.label} answered ${answered.size} of ${candidates.length} points (${Math.round(performance.now() - started)} ms)`,
    )
  }
  return kept.map((index) => candidates[index] as PredictBody)
}

/** Every field path of a JSON value, keys in snake_case (GraphQL's camelCase compared with REST's), nulls left out. */
function fieldPaths(value: unknown, path = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) fieldPaths(item, `${path}[]`, into)
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (child === null) continue
      const childPath = `${path}.${key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`
      into.add(childPath)
      fieldPaths(child, childPath, into)
    }
  }
  return into
}

function fieldDifference(of: unknown, to: unknown): string | null {
  const [ofPaths, toPaths] = [fieldPaths(of), fieldPaths(to)]
  const onlyOf = [...ofPaths].filter((path) => !toPaths.has(path))
  const onlyTo = [...toPaths].filter((path) => !ofPaths.has(path))
  if (onlyOf.length === 0 && onlyTo.length === 0) return null
  const list = (paths: string[]) => (paths.length ? paths.slice(0, 8).join(' ') : '-')
  return `answers differ in fields: only in the first ${list(onlyOf)}; only in the second ${list(onlyTo)}`
}

/**
 * One request per arm before any load, checked; then, per comparison, whether both answers carry the same
 * fields (the GraphQL selection must ask what the REST answer has). Problems are logged and reported, not fatal.
 */
export async function checkScenario(
  scenario: Scenario,
  processes: Processes,
  log: Log,
): Promise<SanityProblem[]> {
  const problems: SanityProblem[] = []
  const report = (target: string, problem: string) => {
    problems.push({ scenario: scenario.id, target, problem })
    log(`WARNING ${scenario.id} on ${target}: ${problem}`)
  }
  const answers = new Map<ArmKey, unknown>()
  for (const arm of scenario.arms) {
    const target = processes.get(arm.process)
    if (!target) continue
    const { status, body } = await post(target, arm.load.path, arm.load.bodies[0] ?? '')
    const problem = arm.load.check(status, body)
    if (problem) report(armKey(arm), problem)
    else answers.set(armKey(arm), arm.load.restShape(body))
  }
  for (const { of, to, sameFields } of scenario.comparisons) {
    if (sameFields === false || !answers.has(of) || !answers.has(to)) continue
    const difference = fieldDifference(answers.get(of), answers.get(to))
    if (difference) report(`${of}/${to}`, difference)
  }
  return problems
}

// --- the server's own metrics ----------------------------------------------------------------------

/** Reads the server's nearest-site batch-size histogram from /metrics, if it exposes one. */
async function readBatchHistogram(
  baseUrl: string,
  metricsToken: string,
): Promise<{ count: number; sum: number } | null> {
  try {
    const response = await fetch(`${baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${metricsToken}` },
      signal: AbortSignal.timeout(3000),
    })
    if (response.status !== 200) {
      await response.body?.cancel()
      return null
    }
    const text = await response.text()
    const count = /^survival_nearest_site_batch_size_count(?:\{[^}]*\})? (\S+)$/m.exec(text)
    const sum = /^survival_nearest_site_batch_size_sum(?:\{[^}]*\})? (\S+)$/m.exec(text)
    return count && sum ? { count: Number(count[1]), sum: Number(sum[1]) } : null
  } catch {
    return null
  }
}

/** How many nearest-site statements one 500-site batch costs, as the server's own metric counts them. */
export async function countBatchStatements(
  server: MeasuredProcess,
  batchLoad: Load,
  metricsToken: string,
): Promise<BatchStatements> {
  const send = async () => {
    const { status, body } = await post(server, batchLoad.path, batchLoad.bodies[0] ?? '')
    return batchLoad.check(status, body)
  }
  // A warm request first, so the key and tier are cached and only the batch touches PostgreSQL.
  await send()
  const before = await readBatchHistogram(server.url, metricsToken)
  if (!before) return { verified: false, note: 'no survival_nearest_site_batch_size metric at /metrics' }
  const problem = await send()
  const after = await readBatchHistogram(server.url, metricsToken)
  if (!after) return { verified: false, note: '/metrics stopped answering' }
  const statements = after.count - before.count
  const points = after.sum - before.sum
  return {
    verified: problem === null,
    statements,
    points,
    note: problem ?? `one 500-site batch → ${statements} nearest-site statement(s) covering ${points} points`,
  }
}
