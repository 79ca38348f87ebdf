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
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import autocannon, { type AutocannonResult } from 'autocannon'
import { Redis } from 'ioredis'
import { generateSites } from '../seed/generate-sites.ts'
import { seedAll } from '../seed/seed-all.ts'
import { openDatabase } from '../src/db/connect.ts'
import { createKey } from '../src/db/keys.ts'
import { migrate } from '../src/db/migrate.ts'
import { SPECIES } from '../src/domain/species.ts'
import { isInCoverage } from '../src/geo/coverage.ts'
import {
  type Child,
  createDatabase,
  freePort,
  median,
  REDIS_URL,
  ROOT,
  RssSampler,
  randomSuffix,
  readCpuMs,
  round,
  spawnNode,
  waitForHealthy,
} from './support.ts'

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3)
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
const RSS_LIMIT_MB = 250
const METRICS_TOKEN = `bench-${randomSuffix()}${randomSuffix()}`

// --- request bodies --------------------------------------------------------------------------------

interface PredictBody {
  latitude: number
  longitude: number
  species_code: string
  planting_method: 'manual' | 'drone_seeded'
  horizons?: number[]
}

/** Deterministic PRNG (mulberry32), so every run sends the same points. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * `count` distinct forest points: random seed sites moved by up to ~0.5 km (so every point has a site
 * well inside the 10 km radius), with species cycling through all 20 and both methods.
 */
function forestBodies(count: number): PredictBody[] {
  const sites = generateSites()
  const random = prng(0x5eed)
  const indices = sites.map((_, index) => index)
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (indices.length - i))
    ;[indices[i], indices[j]] = [indices[j] as number, indices[i] as number]
  }
  return indices.slice(0, count).map((siteIndex, i) => {
    const site = sites[siteIndex]
    if (!site) throw new Error('site index out of range')
    // Coastal sites moved offshore would be outside_coverage: keep the site itself then.
    let latitude = round(site.latitude + (random() - 0.5) * 0.008, 5)
    let longitude = round(site.longitude + (random() - 0.5) * 0.01, 5)
    if (!isInCoverage(latitude, longitude)) [latitude, longitude] = [site.latitude, site.longitude]
    const body: PredictBody = {
      latitude,
      longitude,
      species_code: (SPECIES[(i * 7) % SPECIES.length] ?? SPECIES[0])?.code ?? 'PSME',
      planting_method: i % 2 ? 'drone_seeded' : 'manual',
    }
    if (i % 4 === 3) body.horizons = [1, 5]
    return body
  })
}

const PREDICTION_SELECTION = `site { latitude longitude matchedLatitude matchedLongitude matchDistanceKm region }
  speciesCode speciesCommonName plantingMethod
  predictions { horizonYears survivalProbability riskFactors { factor impact magnitude } }
  model { version codename series } generatedAt`

const GRAPHQL_PREDICT = `query BenchPredict($input: PredictionInput!) {
  predict(input: $input) { ...P }
}
fragment P on Prediction { ${PREDICTION_SELECTION} }`

function graphqlInput(body: PredictBody) {
  return {
    latitude: body.latitude,
    longitude: body.longitude,
    speciesCode: body.species_code,
    plantingMethod: body.planting_method.toUpperCase(),
    ...(body.horizons ? { horizons: body.horizons } : {}),
  }
}

function aliasedDocument(items: readonly PredictBody[]): string {
  const fields = items.map((item, index) => {
    const input = graphqlInput(item)
    const horizons = input.horizons ? `, horizons: [${input.horizons.join(', ')}]` : ''
    return `p${index}: predict(input: {latitude: ${input.latitude}, longitude: ${input.longitude}, speciesCode: "${input.speciesCode}", plantingMethod: ${input.plantingMethod}${horizons}}) { ...P }`
  })
  return `query BenchAliased {\n${fields.join('\n')}\n}\nfragment P on Prediction { ${PREDICTION_SELECTION} }`
}

// --- scenarios -------------------------------------------------------------------------------------

type TargetName = 'server' | 'baseline'

interface Load {
  path: string
  bodies: string[]
  /** Checks one response of this load (status and shape); returns a problem or null. */
  check(status: number, body: unknown): string | null
}

interface Scenario {
  id: string
  title: string
  connections: number
  /** What the baseline runs for comparison (for GraphQL: the REST-equivalent request). */
  baselineNote: string
  server: Load
  baseline: Load
}

const checkPredict = (status: number, body: unknown) =>
  status === 200 && Array.isArray((body as { predictions?: unknown }).predictions)
    ? null
    : `status ${status}: ${JSON.stringify(body).slice(0, 300)}`

const checkBatch = (size: number) => (status: number, body: unknown) => {
  const results = (body as { results?: { prediction?: unknown }[] }).results
  if (status !== 200 || !Array.isArray(results))
    return `status ${status}: ${JSON.stringify(body).slice(0, 300)}`
  const answered = results.filter((item) => item.prediction).length
  return answered === size
    ? null
    : `${answered}/${size} items answered: ${JSON.stringify(results.find((r) => !r.prediction)).slice(0, 300)}`
}

const checkGraphql = (fields: number) => (status: number, body: unknown) => {
  const { data, errors } = body as { data?: Record<string, unknown> | null; errors?: unknown[] }
  if (status !== 200 || errors?.length || !data)
    return `status ${status}: ${JSON.stringify(body).slice(0, 300)}`
  const answered = Object.values(data).filter((value) => value !== null).length
  return answered === fields ? null : `${answered}/${fields} fields answered`
}

function buildScenarios(): Scenario[] {
  const bodies = forestBodies(2000)
  const singles = bodies.slice(0, 1000)
  const batches500 = [0, 1, 2, 3].map((k) => bodies.slice(k * 500, k * 500 + 500))
  const sets100 = Array.from({ length: 10 }, (_, k) => singles.slice(k * 100, k * 100 + 100))
  const predictBodies = singles.map((body) => JSON.stringify(body))
  return [
    {
      id: 'rest_predict',
      title: 'REST POST /v1/predict (1,000 varied points)',
      connections: 40,
      baselineNote: 'baseline POST /v1/predict, same bodies',
      server: { path: '/v1/predict', bodies: predictBodies, check: checkPredict },
      baseline: { path: '/v1/predict', bodies: predictBodies, check: checkPredict },
    },
    {
      id: 'rest_batch_500',
      title: 'REST POST /v1/predict/batch (500 sites)',
      connections: 10,
      baselineNote: 'baseline POST /v1/predict/batch, same bodies',
      server: {
        path: '/v1/predict/batch',
        bodies: batches500.map((sites) => JSON.stringify({ sites })),
        check: checkBatch(500),
      },
      baseline: {
        path: '/v1/predict/batch',
        bodies: batches500.map((sites) => JSON.stringify({ sites })),
        check: checkBatch(500),
      },
    },
    {
      id: 'graphql_predict',
      title: 'GraphQL predict (1,000 varied points, variables)',
      connections: 40,
      baselineNote: 'baseline REST POST /v1/predict, same points',
      server: {
        path: '/graphql',
        bodies: singles.map((body) =>
          JSON.stringify({ query: GRAPHQL_PREDICT, variables: { input: graphqlInput(body) } }),
        ),
        check: checkGraphql(1),
      },
      baseline: { path: '/v1/predict', bodies: predictBodies, check: checkPredict },
    },
    {
      id: 'graphql_alias_100',
      title: 'GraphQL 100 aliased predicts (10 documents)',
      connections: 20,
      baselineNote: 'baseline REST POST /v1/predict/batch with the same 100 sites',
      server: {
        path: '/graphql',
        bodies: sets100.map((items) => JSON.stringify({ query: aliasedDocument(items) })),
        check: checkGraphql(100),
      },
      baseline: {
        path: '/v1/predict/batch',
        bodies: sets100.map((sites) => JSON.stringify({ sites })),
        check: checkBatch(100),
      },
    },
  ]
}

// --- running ---------------------------------------------------------------------------------------

interface RunFigures {
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

function headersFor(apiKey: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    'x-api-key': apiKey,
  }
}

function cannon(baseUrl: string, load: Load, apiKey: string, scenarioConnections: number, durationS: number) {
  const connections = CONNECTIONS ?? scenarioConnections
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

function summarize(runs: readonly RunFigures[]) {
  return {
    rps: round(median(runs.map((r) => r.rps)), 1),
    p50: round(median(runs.map((r) => r.p50)), 2),
    p90: round(median(runs.map((r) => r.p90)), 2),
    p99: round(median(runs.map((r) => r.p99)), 2),
    mean: round(median(runs.map((r) => r.mean)), 2),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    rssMaxMb: round(Math.max(...runs.map((r) => r.rssMaxMb)), 1),
    cpuMsPerRequest: round(median(runs.map((r) => r.cpuMsPerRequest ?? Number.NaN)), 3),
  }
}

async function sanityCheck(baseUrl: string, load: Load, apiKey: string): Promise<string | null> {
  const response = await fetch(baseUrl + load.path, {
    method: 'POST',
    headers: headersFor(apiKey),
    body: load.bodies[0],
  })
  return load.check(response.status, await response.json().catch(() => null))
}

/** Reads the server's nearest-site batch-size histogram from /metrics, if it exposes one. */
async function readBatchHistogram(baseUrl: string): Promise<{ count: number; sum: number } | null> {
  try {
    const response = await fetch(`${baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
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
async function batchStatements(baseUrl: string, scenario: Scenario, apiKey: string) {
  // A warm request first, so the key and tier are cached and only the batch touches PostgreSQL.
  await sanityCheck(baseUrl, scenario.server, apiKey)
  const before = await readBatchHistogram(baseUrl)
  if (!before) return { verified: false, note: 'no survival_nearest_site_batch_size metric at /metrics' }
  const problem = await sanityCheck(baseUrl, scenario.server, apiKey)
  const after = await readBatchHistogram(baseUrl)
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

// --- report ----------------------------------------------------------------------------------------

function pad(value: string | number, width: number, right = false): string {
  const text = String(value)
  return right ? text.padEnd(width) : text.padStart(width)
}

function printTable(rows: ReturnType<typeof scenarioReport>[]): void {
  const header = [
    pad('scenario', 18, true),
    pad('target', 9, true),
    pad('rps', 9),
    pad('p50 ms', 8),
    pad('p99 ms', 8),
    pad('err', 5),
    pad('non2xx', 7),
    pad('rps×', 6),
    pad('p50×', 6),
    pad('p99×', 6),
    pad('RSS MB', 7),
    pad('CPU ms/req', 10),
    pad('cpu×', 6),
  ].join(' ')
  console.log(`\n${header}\n${'-'.repeat(header.length)}`)
  for (const row of rows) {
    for (const target of ['server', 'baseline'] as const) {
      const m = row[target].median
      const ratio = target === 'server'
      console.log(
        [
          pad(target === 'server' ? row.id : '', 18, true),
          pad(target, 9, true),
          pad(m.rps, 9),
          pad(m.p50, 8),
          pad(m.p99, 8),
          pad(m.errors, 5),
          pad(m.non2xx, 7),
          pad(ratio ? row.ratios.rps.toFixed(2) : '1.00', 6),
          pad(ratio ? row.ratios.p50.toFixed(2) : '1.00', 6),
          pad(ratio ? row.ratios.p99.toFixed(2) : '1.00', 6),
          pad(m.rssMaxMb, 7),
          pad(m.cpuMsPerRequest, 10),
          pad(ratio ? row.ratios.cpu_per_request.toFixed(2) : '1.00', 6),
        ].join(' '),
      )
    }
  }
  console.log(
    `\nmedians of ${ROUNDS} alternating rounds of ${DURATION_S} s; ratios (×) = server / baseline (rps: higher is better; latency and CPU ms per request: lower is better)`,
  )
}

function scenarioReport(scenario: Scenario, runs: Record<TargetName, RunFigures[]>) {
  const server = summarize(runs.server)
  const baseline = summarize(runs.baseline)
  return {
    id: scenario.id,
    title: scenario.title,
    connections: scenario.connections,
    baseline_equivalent: scenario.baselineNote,
    server: { median: server, runs: runs.server },
    baseline: { median: baseline, runs: runs.baseline },
    ratios: {
      cpu_per_request: round(server.cpuMsPerRequest / baseline.cpuMsPerRequest, 3),
      rps: round(server.rps / baseline.rps, 3),
      p50: round(server.p50 / baseline.p50, 3),
      p99: round(server.p99 / baseline.p99, 3),
    },
  }
}

interface TargetCheck {
  id: string
  target: string
  measured: number | string | null
  /** null: could not be measured in this run. */
  pass: boolean | null
}

/** The issue's targets, for whichever scenarios ran. */
function checkTargets(
  reports: ReturnType<typeof scenarioReport>[],
  statements: Awaited<ReturnType<typeof batchStatements>> | null,
  serverRss: number,
): TargetCheck[] {
  const byId = new Map(reports.map((report) => [report.id, report]))
  const targets: TargetCheck[] = []
  const predict = byId.get('rest_predict')
  if (predict) {
    targets.push(
      {
        id: 'rest_predict_rps',
        target: 'REST /v1/predict rps ≥ 1.0× baseline',
        measured: predict.ratios.rps,
        pass: predict.ratios.rps >= 1.0,
      },
      {
        id: 'rest_predict_p99',
        target: 'REST /v1/predict p99 ≤ 1.5× baseline',
        measured: predict.ratios.p99,
        pass: predict.ratios.p99 <= 1.5,
      },
    )
  }
  const graphqlPredict = byId.get('graphql_predict')
  if (graphqlPredict) {
    targets.push({
      id: 'graphql_predict_rps',
      target: 'GraphQL single predict rps ≥ 0.8× baseline /v1/predict',
      measured: graphqlPredict.ratios.rps,
      pass: graphqlPredict.ratios.rps >= 0.8,
    })
  }
  const batch = byId.get('rest_batch_500')
  if (batch) {
    targets.push({
      id: 'batch_500_latency',
      target: '500-site batch median latency ≤ 1.3× baseline',
      measured: batch.ratios.p50,
      pass: batch.ratios.p50 <= 1.3,
    })
  }
  if (statements) {
    targets.push({
      id: 'batch_500_one_statement',
      target: '500-site batch answered with one SQL statement',
      measured: statements.verified ? (statements.statements ?? null) : statements.note,
      pass: statements.verified ? statements.statements === 1 : null,
    })
  }
  targets.push({
    id: 'rss',
    target: `server RSS ≤ ${RSS_LIMIT_MB} MB under load`,
    measured: serverRss,
    pass: serverRss <= RSS_LIMIT_MB,
  })
  return targets
}

// --- main ------------------------------------------------------------------------------------------

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

async function deleteRedisKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 })
  let deleted = 0
  try {
    let cursor = '0'
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
      cursor = nextCursor
      if (keys.length) deleted += await redis.del(...keys)
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
  return deleted
}

async function main(): Promise<void> {
  const started = performance.now()
  const loadAtStart = loadavg().map((load) => round(load, 2))
  const log = (message: string) =>
    console.error(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`)

  log('creating database')
  const database = await createDatabase('survival_bench')
  cleanups.push(async () => {
    await database.drop()
    log(`dropped database ${database.name}`)
  })
  const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 2 })
  let apiKey: string
  try {
    await migrate(db.sql)
    const seedStarted = performance.now()
    await seedAll(db.sql)
    log(`migrated and seeded ${database.name} (seed ${Math.round(performance.now() - seedStarted)} ms)`)
    apiKey = (await createKey(db.sql, { tier: 'hypha', name: 'bench' })).key
  } finally {
    await db.close()
  }

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
  if (SERVER_ENTRY === PRODUCTION_ENTRY) {
    log('npm run build (the server runs as the Docker image runs it: compiled, no transpiler)')
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: ROOT,
        stdio: 'inherit',
      },
    )
  }
  const [serverPort, baselinePort] = [await freePort(), await freePort()]
  const profileArgs = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []
  const children: Record<TargetName, Child> = {
    server: spawnNode(
      'server',
      SERVER_ENTRY,
      {
        PORT: String(serverPort),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        REDIS_URL,
        QUOTA_KEY_PREFIX: `${prefix}server:`,
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
        onLine: countServerWarning,
      },
    ),
    baseline: spawnNode(
      'baseline',
      'bench/baseline-server.ts',
      {
        PORT: String(baselinePort),
        DATABASE_URL: database.url,
        REDIS_URL,
        QUOTA_KEY_PREFIX: `${prefix}baseline:`,
      },
      { nodeArgs: profileArgs },
    ),
  }
  cleanups.push(async () => {
    await Promise.all([children.server.stop(), children.baseline.stop()])
    log('stopped server and baseline')
  })
  const urls: Record<TargetName, string> = {
    server: `http://127.0.0.1:${serverPort}`,
    baseline: `http://127.0.0.1:${baselinePort}`,
  }
  await Promise.all([
    waitForHealthy(`${urls.server}/v1/health`, children.server, 60_000),
    waitForHealthy(`${urls.baseline}/v1/health`, children.baseline, 60_000),
  ])
  log(
    `server (pid ${children.server.pid}) on ${serverPort}, baseline (pid ${children.baseline.pid}) on ${baselinePort}`,
  )

  const samplers: Record<TargetName, RssSampler> = {
    server: new RssSampler(children.server.pid),
    baseline: new RssSampler(children.baseline.pid),
  }
  cleanups.push(async () => {
    samplers.server.stop()
    samplers.baseline.stop()
  })

  const sanity: { scenario: string; target: TargetName; problem: string }[] = []
  for (const scenario of scenarios) {
    for (const target of ['server', 'baseline'] as const) {
      const problem = await sanityCheck(urls[target], scenario[target], apiKey)
      if (problem) {
        sanity.push({ scenario: scenario.id, target, problem })
        log(`WARNING ${scenario.id} on ${target}: ${problem}`)
      }
    }
  }

  const assertAlive = () => {
    for (const child of Object.values(children)) {
      if (child.process.exitCode !== null || child.process.signalCode !== null)
        throw new Error(`${child.name} exited during the benchmark`)
    }
  }

  const reports: ReturnType<typeof scenarioReport>[] = []
  for (const scenario of scenarios) {
    const runs: Record<TargetName, RunFigures[]> = { server: [], baseline: [] }
    if (WARMUP_S > 0) {
      for (const target of ['server', 'baseline'] as const) {
        await cannon(urls[target], scenario[target], apiKey, scenario.connections, WARMUP_S)
      }
      log(`${scenario.id}: warmed up`)
    }
    for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
      for (const target of ['server', 'baseline'] as const) {
        samplers[target].reset()
        const cpuBefore = readCpuMs(children[target].pid)
        const result = await cannon(urls[target], scenario[target], apiKey, scenario.connections, DURATION_S)
        const cpuAfter = readCpuMs(children[target].pid)
        assertAlive()
        const cpuMs = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null
        const run = figures(result, samplers[target].reset(), cpuMs)
        runs[target].push(run)
        log(
          `${scenario.id} round ${roundIndex + 1} ${target.padEnd(8)} ${run.rps} rps, p50 ${run.p50} ms, p99 ${run.p99} ms, errors ${run.errors}, non2xx ${run.non2xx}, RSS ${run.rssMaxMb} MB, CPU ${run.cpuMsPerRequest} ms/req`,
        )
      }
    }
    reports.push(scenarioReport(scenario, runs))
  }

  const batchScenario = scenarios.find((s) => s.id === 'rest_batch_500')
  const statements = batchScenario ? await batchStatements(urls.server, batchScenario, apiKey) : null
  const serverRss = round(samplers.server.max(), 1)
  const baselineRss = round(samplers.baseline.max(), 1)
  const targets = checkTargets(reports, statements, serverRss)

  printTable(reports)
  console.log(`\nserver RSS max ${serverRss} MB, baseline RSS max ${baselineRss} MB`)
  if (statements) console.log(`batch statements: ${statements.note}`)
  for (const [message, count] of serverWarnings) console.log(`server logged ${count}× at warn+: ${message}`)
  console.log('\ntargets:')
  for (const t of targets) {
    const verdict = t.pass === null ? 'N/A ' : t.pass ? 'PASS' : 'FAIL'
    console.log(`  ${verdict}  ${t.target}: ${typeof t.measured === 'number' ? `${t.measured}` : t.measured}`)
  }

  const document = {
    generated_at: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model,
      node: process.version,
      load_average_at_start: loadAtStart,
      load_average_at_end: loadavg().map((load) => round(load, 2)),
    },
    config: { duration_s: DURATION_S, rounds: ROUNDS, warmup_s: WARMUP_S, order: 'per scenario: A B A B…' },
    scenarios: reports,
    rss_mb: { server_max: serverRss, baseline_max: baselineRss, limit: RSS_LIMIT_MB },
    batch_statements: statements,
    sanity_problems: sanity,
    server_warnings: Object.fromEntries(serverWarnings),
    targets,
  }
  mkdirSync(new URL('results/', import.meta.url), { recursive: true })
  const outFile = new URL('results/latest.json', import.meta.url)
  writeFileSync(outFile, `${JSON.stringify(document, null, 2)}\n`)
  console.log(`\n${JSON.stringify(document, null, 2)}`)
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
