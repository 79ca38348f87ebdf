/** Puts load on the server and the baseline: autocannon rounds with each process's CPU and RSS, and /metrics reads. */
import autocannon, { type AutocannonResult } from 'autocannon'
import { type Load, type Scenario, TARGET_NAMES, type TargetName } from './scenarios.ts'
import { type Child, type RssSampler, readCpuMs, round } from './support.ts'

/** A running target: where it listens, and the process whose CPU and RSS are read. */
export interface MeasuredProcess {
  url: string
  child: Child
  rss: RssSampler
}

export interface LoadSettings {
  apiKey: string
  durationS: number
  rounds: number
  warmupS: number
  /** Replaces every scenario's own connection count when set. */
  connections: number | undefined
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
  /** CPU time the target process used per answered request (user + system), ms: robust to machine noise. */
  cpuMsPerRequest: number | null
}

export interface SanityProblem {
  scenario: string
  target: TargetName
  problem: string
}

export interface BatchStatements {
  verified: boolean
  statements?: number
  points?: number
  note: string
}

function headersFor(apiKey: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    'x-api-key': apiKey,
  }
}

function cannon(baseUrl: string, load: Load, apiKey: string, connections: number, durationS: number) {
  const bodies = load.bodies
  let next = Math.floor(Math.random() * bodies.length)
  return new Promise<AutocannonResult>((resolve, reject) => {
    autocannon(
      {
        url: baseUrl,
        connections,
        duration: durationS,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: load.path,
            headers: headersFor(apiKey),
            setupRequest: (request) => {
              request.body = bodies[next++ % bodies.length]
              return request
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
  })
}

function figures(result: AutocannonResult, rssMaxMb: number, cpuMs: number | null): RunFigures {
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
    cpuMsPerRequest: cpuMs !== null && answered > 0 ? round(cpuMs / answered, 3) : null,
  }
}

function assertAlive(processes: Record<TargetName, MeasuredProcess>): void {
  for (const { child } of Object.values(processes)) {
    if (child.process.exitCode !== null || child.process.signalCode !== null)
      throw new Error(`${child.name} exited during the benchmark`)
  }
}

/** A warm-up per target, then `rounds` alternating runs (server, baseline, server, …) of one scenario. */
export async function runScenario(
  scenario: Scenario,
  processes: Record<TargetName, MeasuredProcess>,
  settings: LoadSettings,
  log: (message: string) => void,
): Promise<Record<TargetName, RunFigures[]>> {
  const connections = settings.connections ?? scenario.connections
  const runs: Record<TargetName, RunFigures[]> = { server: [], baseline: [] }
  if (settings.warmupS > 0) {
    for (const target of TARGET_NAMES) {
      await cannon(processes[target].url, scenario[target], settings.apiKey, connections, settings.warmupS)
    }
    log(`${scenario.id}: warmed up`)
  }
  for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex++) {
    for (const target of TARGET_NAMES) {
      const { url, child, rss } = processes[target]
      rss.reset()
      const cpuBefore = readCpuMs(child.pid)
      const result = await cannon(url, scenario[target], settings.apiKey, connections, settings.durationS)
      const cpuAfter = readCpuMs(child.pid)
      assertAlive(processes)
      const cpuMs = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
      const run = figures(result, rss.reset(), cpuMs)
      runs[target].push(run)
      log(
        `${scenario.id} round ${roundIndex + 1} ${target.padEnd(8)} ${run.rps} rps, p50 ${run.p50} ms, p99 ${run.p99} ms, errors ${run.errors}, non2xx ${run.non2xx}, RSS ${run.rssMaxMb} MB, CPU ${run.cpuMsPerRequest} ms/req`,
      )
    }
  }
  return runs
}

/** Sends the load's first body once and checks the answer. */
async function sanityCheck(baseUrl: string, load: Load, apiKey: string): Promise<string | null> {
  const response = await fetch(baseUrl + load.path, {
    method: 'POST',
    headers: headersFor(apiKey),
    body: load.bodies[0],
  })
  return load.check(response.status, await response.json().catch(() => null))
}

/** One checked request per scenario and target before any load; a problem is logged and reported, not fatal. */
export async function findSanityProblems(
  scenarios: readonly Scenario[],
  processes: Record<TargetName, MeasuredProcess>,
  apiKey: string,
  log: (message: string) => void,
): Promise<SanityProblem[]> {
  const problems: SanityProblem[] = []
  for (const scenario of scenarios) {
    for (const target of TARGET_NAMES) {
      const problem = await sanityCheck(processes[target].url, scenario[target], apiKey)
      if (problem) {
        problems.push({ scenario: scenario.id, target, problem })
        log(`WARNING ${scenario.id} on ${target}: ${problem}`)
      }
    }
  }
  return problems
}

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
  baseUrl: string,
  batchScenario: Scenario,
  apiKey: string,
  metricsToken: string,
): Promise<BatchStatements> {
  // A warm request first, so the key and tier are cached and only the batch touches PostgreSQL.
  await sanityCheck(baseUrl, batchScenario.server, apiKey)
  const before = await readBatchHistogram(baseUrl, metricsToken)
  if (!before) return { verified: false, note: 'no survival_nearest_site_batch_size metric at /metrics' }
  const problem = await sanityCheck(baseUrl, batchScenario.server, apiKey)
  const after = await readBatchHistogram(baseUrl, metricsToken)
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
