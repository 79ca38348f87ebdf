/**
 * `npm run bench:scale`: what the service costs as the site data set grows toward real data (Oregon and
 * Washington on a 1 km grid are ~400,000 sites, on 250 m ~6 million). For each size of BENCH_SCALE_SITES
 * the synthetic generator on a denser grid is imported as a site data version into a database of its own
 * and activated (bench/scale-data.ts: streamed in chunks, indexed once). Then:
 *
 * - per size: disk (table, GiST index, primary key), the GiST index's depth, the KNN statement the
 *   server runs (ids), median of BENCH_SCALE_REPEATS batches of 1, 10, 100 and 500 points, and the full
 *   one (a cache miss) for 500, with EXPLAIN's pages per point; and the heap a site held in a site cache
 *   costs (the request points' nearest sites, read as a miss reads them);
 * - one production server per size (`npm run start:prod`'s settings), all running at once. Each is warmed
 *   by sending every request point once through the batch endpoint (its site cache then holds what a
 *   server that has answered them holds), then BENCH_WARMUP s of single predictions. Then BENCH_ROUNDS
 *   rounds of BENCH_DURATION s of REST /v1/predict (32 connections), the sizes taking turns, each request
 *   one of BENCH_SCALE_POINTS distinct points drawn at random: points spread over the whole forest area,
 *   so the site cache misses as it does under real traffic. The same for REST batches of 500 (4
 *   connections). Per size: rps (median of the rounds), server and PostgreSQL CPU per request, the site
 *   cache's hit rate over the rounds (/metrics), peak RSS, and the share of the GiST index found in
 *   shared_buffers right after the size's own predict windows (the sizes share one PostgreSQL);
 * - the reference server (bench/reference/) seeded with 18,000 and with the judged size's count of sites
 *   (its own random points), for the batch of 500's target against it (BENCH_SCALE_REFERENCE=0 skips it).
 *
 * Targets: REST predict rps at the judged size (the one nearest 1,000,000) ≥ 0.9× at the smallest, in
 * the same run; the REST batch of 500's server CPU at the judged size ≤ 0.8× the reference's there (its
 * target in `npm run bench`); one KNN lookup at the largest size ≤ 2× at the smallest.
 *
 * Defaults take 9–14 min on a 2-core machine, ~4 of them seeding (2M sites: 1.5–3 min; the reference's
 * million: 1–2 min). Seeding streams: two chunks of 5,000 sites are the most held at once.
 *
 * Env: BENCH_SCALE_SITES ("18k,1M,2M"; k and M suffixes; the first is the one ratios are taken against),
 * BENCH_SCALE_POINTS (100000), BENCH_SCALE_REPEATS (40), BENCH_ROUNDS (3), BENCH_DURATION (8 s),
 * BENCH_WARMUP (5 s), BENCH_SCALE_SITE_CACHE (SITE_CACHE_SITES for every server; unset: the server's
 * default), BENCH_SCALE_REFERENCE (1), BENCH_CPU_PROF (a directory: each server runs under --cpu-prof),
 * BENCH_ADMIN_DATABASE_URL.
 */
import autocannon, { type AutocannonResult } from 'autocannon'
import postgres from 'postgres'
import { DEFAULT_SEARCH_RADIUS_KM, DEFAULT_SITE_CACHE_SITES } from '../src/config/config.ts'
import { openDatabase } from '../src/db/connect.ts'
import { createKey } from '../src/db/keys.ts'
import { migrate } from '../src/db/migrate.ts'
import { SPECIES } from '../src/domain/species.ts'
import { isInCoverage } from '../src/geo/coverage.ts'
import { generateSites } from '../src/seed/generate-sites.ts'
import { seedSpecies } from '../src/seed/load.ts'
import { openCpuWindow } from './cpu.ts'
import { productionCommand } from './production-command.ts'
import {
  installReference,
  REFERENCE_API_KEY,
  REFERENCE_HEALTH_PATH,
  referencePresent,
  seedReferenceDatabase,
  startReference,
} from './reference-server.ts'
import {
  type DiskUse,
  diskUse,
  gistInSharedBuffers,
  KNN_BATCHES,
  type KnnCosts,
  knnCosts,
  label,
  parseSizes,
  type Seeded,
  seedVersion,
  siteCacheBytesPerSite,
} from './scale-data.ts'
import { BENCH_ADDRESS_HASH_KEY, buildProject, databaseName } from './servers.ts'
import {
  ADMIN_DATABASE_URL,
  type Child,
  createDatabase,
  freePort,
  loadAverages,
  median,
  pairedRpsRatio,
  prng,
  RssSampler,
  randomSuffix,
  round,
  spawnNode,
  waitForHealthy,
} from './support.ts'

const SIZES = parseSizes(process.env.BENCH_SCALE_SITES ?? '18k,1M,2M')
const POINTS = Math.max(1000, Number(process.env.BENCH_SCALE_POINTS ?? 100_000))
const REPEATS = Math.max(5, Number(process.env.BENCH_SCALE_REPEATS ?? 40))
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const DURATION_S = Number(process.env.BENCH_DURATION ?? 8)
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 5)
const SITE_CACHE = process.env.BENCH_SCALE_SITE_CACHE
const WITH_REFERENCE = process.env.BENCH_SCALE_REFERENCE !== '0'
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF
const BATCH = 500
const PREDICT_CONNECTIONS = 32
const BATCH_CONNECTIONS = 4
const RPS_TARGET = 0.9
const BATCH_CPU_TARGET = 0.8
const LOOKUP_GROWTH_LIMIT = 2
/** The size the targets judge: the one nearest a million sites. */
const JUDGED = SIZES.reduce((best, size) =>
  Math.abs(Math.log(size / 1e6)) < Math.abs(Math.log(best / 1e6)) ? size : best,
)

const log = (message: string) => process.stderr.write(`[scale] ${message}\n`)

interface PredictBody {
  latitude: number
  longitude: number
  species_code: string
  planting_method: 'manual' | 'drone_seeded'
}

/**
 * `count` distinct points in coverage, each within half a grid step (1.75 km) of a random site of the
 * served data set: together they cover the whole forest area about evenly, and every one has a site well
 * within the search radius at every density. Species and method vary as in `npm run bench`.
 */
function requestPoints(count: number, served: readonly { latitude: number; longitude: number }[]) {
  const random = prng(0x5ca1e)
  const seen = new Set<string>()
  const bodies: PredictBody[] = []
  while (bodies.length < count) {
    const site = served[Math.floor(random() * served.length)] as { latitude: number; longitude: number }
    const latitude = round(site.latitude + (random() - 0.5) * 0.0315, 5)
    const longitude = round(site.longitude + (random() - 0.5) * 0.0445, 5)
    const key = `${latitude},${longitude}`
    if (seen.has(key) || !isInCoverage(latitude, longitude)) continue
    seen.add(key)
    const i = bodies.length
    bodies.push({
      latitude,
      longitude,
      species_code: SPECIES[(i * 7) % SPECIES.length]?.code ?? 'PSME',
      planting_method: i % 2 ? 'drone_seeded' : 'manual',
    })
  }
  return bodies
}

interface Server {
  name: string
  url: string
  apiKey: string
  database: string
  metricsToken: string | null
  child: Child
  rss: RssSampler
}

async function startServer(sites: number, databaseUrl: string, apiKey: string): Promise<Server> {
  const port = await freePort()
  const { env, nodeArgs, entry } = productionCommand()
  const name = `server ${label(sites)}`
  const metricsToken = `bench-${randomSuffix()}${randomSuffix()}`
  const child = spawnNode(
    name,
    entry,
    {
      ...env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      GRAPHIQL: 'false',
      WEB_CONCURRENCY: '1',
      METRICS_TOKEN: metricsToken,
      ADDRESS_HASH_KEY: BENCH_ADDRESS_HASH_KEY,
      ...(SITE_CACHE === undefined ? {} : { SITE_CACHE_SITES: SITE_CACHE }),
    },
    {
      nodeArgs: [
        ...nodeArgs,
        ...(CPU_PROF_DIR
          ? [
              '--cpu-prof',
              `--cpu-prof-dir=${CPU_PROF_DIR}`,
              `--cpu-prof-name=scale-${label(sites)}.cpuprofile`,
            ]
          : []),
      ],
      maxLines: 20,
    },
  )
  const url = `http://127.0.0.1:${port}`
  await healthyOrStopped(`${url}/v1/health`, child)
  return {
    name,
    url,
    apiKey,
    database: databaseName(databaseUrl),
    metricsToken,
    child,
    rss: new RssSampler(child.pid),
  }
}

/** Waits for a started server's health answer; a server that never gives one is stopped. */
async function healthyOrStopped(
  healthUrl: string,
  child: Parameters<typeof waitForHealthy>[1] & { stop(): Promise<void> },
) {
  try {
    await waitForHealthy(healthUrl, child, 60_000)
  } catch (error) {
    await child.stop()
    throw error
  }
}

async function startReferenceServer(sites: number, databaseUrl: string): Promise<Server> {
  const port = await freePort()
  const name = `reference ${label(sites)}`
  const child = startReference(name, { port, databaseUrl, noRedis: true })
  const url = `http://127.0.0.1:${port}`
  await healthyOrStopped(url + REFERENCE_HEALTH_PATH, child)
  return {
    name,
    url,
    apiKey: REFERENCE_API_KEY,
    database: databaseName(databaseUrl),
    metricsToken: null,
    child,
    rss: new RssSampler(child.pid),
  }
}

/** Points looked up and site cache misses so far, from the server's /metrics. */
async function cacheCounters(server: Server): Promise<{ lookups: number; misses: number } | null> {
  if (!server.metricsToken) return null
  const response = await fetch(`${server.url}/metrics`, {
    headers: { authorization: `Bearer ${server.metricsToken}` },
  })
  const text = await response.text()
  const counter = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
  return {
    lookups: counter('survival_nearest_site_lookups_total'),
    misses: counter('survival_site_cache_misses_total'),
  }
}

function load(
  server: Server,
  path: string,
  bodies: readonly string[],
  connections: number,
  durationS: number,
  seed: number,
): Promise<AutocannonResult> {
  const random = prng(seed)
  return new Promise<AutocannonResult>((resolve, reject) => {
    autocannon(
      {
        url: server.url,
        connections,
        duration: durationS,
        requests: [
          {
            method: 'POST',
            path,
            headers: { 'content-type': 'application/json', 'x-api-key': server.apiKey },
            setupRequest: (request) => {
              request.body = bodies[Math.floor(random() * bodies.length)] as string
              return request
            },
          },
        ],
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    )
  })
}

/** Every point once through the batch endpoint, two batches at a time. */
async function sendEveryPoint(server: Server, batches: readonly string[]): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < batches.length) {
      const body = batches[next++] as string
      const response = await fetch(`${server.url}/v1/predict/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': server.apiKey },
        body,
      })
      if (!response.ok) throw new Error(`${server.name}: batch answered ${response.status}`)
      await response.arrayBuffer()
    }
  }
  await Promise.all([lane(), lane()])
}

interface Window {
  rps: number
  answered: number
  non2xx: number
  serverUs: number | null
  postgresUs: number
  idleShare: number
  lookups: number
  misses: number
}

async function measureWindow(
  admin: postgres.Sql,
  server: Server,
  path: string,
  bodies: readonly string[],
  connections: number,
  seed: number,
): Promise<Window> {
  const before = await cacheCounters(server)
  const stop = await openCpuWindow(server.child.pid, server.database, admin)
  const result = await load(server, path, bodies, connections, DURATION_S, seed)
  const cpu = await stop()
  const after = await cacheCounters(server)
  const answered = result['2xx'] + result.non2xx
  if (result.non2xx > 0 || result.errors > 0)
    log(`warning: ${server.name} ${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  return {
    rps: result['2xx'] / result.duration,
    answered,
    non2xx: result.non2xx,
    serverUs: cpu.serverMs === null || answered === 0 ? null : (cpu.serverMs * 1000) / answered,
    postgresUs: answered === 0 ? 0 : (cpu.postgresMs * 1000) / answered,
    idleShare: cpu.idleShare,
    lookups: before && after ? after.lookups - before.lookups : 0,
    misses: before && after ? after.misses - before.misses : 0,
  }
}

interface Arm {
  /** The size asked for (BENCH_SCALE_SITES). */
  target: number
  /** The sites the data set holds. */
  sites: number
  server: Server
  predict: Window[]
  batch: Window[]
}

/** Rounds of one load over every arm, the arms taking turns (a different one first each round). */
async function rounds(
  admin: postgres.Sql,
  arms: readonly Arm[],
  kind: 'predict' | 'batch',
  bodies: readonly string[],
  /** Run after each window, while what it read is still in PostgreSQL's buffers. */
  afterWindow: (arm: Arm) => Promise<void> = async () => {},
): Promise<void> {
  const path = kind === 'predict' ? '/v1/predict' : '/v1/predict/batch'
  const connections = kind === 'predict' ? PREDICT_CONNECTIONS : BATCH_CONNECTIONS
  for (let round = 0; round < ROUNDS; round++) {
    for (let turn = 0; turn < arms.length; turn++) {
      const arm = arms[(round + turn) % arms.length] as Arm
      const window = await measureWindow(admin, arm.server, path, bodies, connections, 1 + round * 97 + turn)
      arm[kind].push(window)
      await afterWindow(arm)
      log(
        `${kind} round ${round + 1}, ${arm.server.name}: ${Math.round(window.rps)} rps, server ${fmt(window.serverUs, 0)} µs, postgres ${fmt(window.postgresUs, 0)} µs per request${window.lookups ? `, site cache hits ${pct(1 - window.misses / window.lookups)}` : ''}, idle ${pct(window.idleShare)}`,
      )
    }
  }
}

const fmt = (value: number | null | undefined, digits = 1) =>
  value === null || value === undefined || Number.isNaN(value)
    ? '–'
    : round(value, digits).toLocaleString('en-US')
const pct = (share: number | null | undefined) =>
  share === null || share === undefined || Number.isNaN(share) ? '–' : `${round(share * 100, 1)} %`
const mb = (bytes: number) => round(bytes / 2 ** 20, 1)

interface DataRow {
  sites: number
  seeded: Seeded
  disk: DiskUse & { gistName: string }
  knn: KnnCosts
  /** Sites the request points lead to, and the heap each costs held in a site cache. */
  memory: { held: number; bytesPerSite: number }
  gistShared: number | null
}

function summary(arm: Arm) {
  const totals = (windows: readonly Window[]) => ({
    rps: median(windows.map((w) => w.rps)),
    serverUs: median(windows.map((w) => w.serverUs ?? Number.NaN)),
    postgresUs: median(windows.map((w) => w.postgresUs)),
    hits:
      windows.reduce((sum, w) => sum + w.lookups, 0) > 0
        ? 1 - windows.reduce((sum, w) => sum + w.misses, 0) / windows.reduce((sum, w) => sum + w.lookups, 0)
        : null,
  })
  return { predict: totals(arm.predict), batch: totals(arm.batch), rssMb: arm.server.rss.max() }
}

function printTable(header: readonly string[], lines: readonly (readonly string[])[]): void {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...lines.map((line) => (line[i] ?? '').length)),
  )
  const format = (cells: readonly string[]) =>
    cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  ')
  process.stdout.write(`\n${format(header)}\n${lines.map(format).join('\n')}\n`)
}

function report(data: readonly DataRow[], arms: readonly Arm[], references: readonly Arm[]): void {
  const load = loadAverages()
  process.stdout.write(
    `\nbench:scale ${new Date().toISOString()}, load average ${load.join(' ')}, SITE_CACHE_SITES ${SITE_CACHE ?? `${DEFAULT_SITE_CACHE_SITES} (default)`}, ${POINTS.toLocaleString('en-US')} request points, ${ROUNDS} rounds of ${DURATION_S} s\n`,
  )
  printTable(
    [
      'sites',
      'insert s',
      'index s',
      'heap MB',
      'GiST MB',
      'pkey MB',
      'total MB',
      'B/site',
      'GiST depth',
      ...KNN_BATCHES.map((n) => `KNN ${n} ms`),
      'full 500 ms',
      'pages/pt hit+read',
      'GiST in shared_buffers',
      "points' sites",
      'cache B/site',
    ],
    data.map((row) => [
      row.sites.toLocaleString('en-US'),
      fmt(row.seeded.insertSeconds),
      fmt(row.seeded.indexSeconds),
      String(mb(row.disk.heapBytes)),
      String(mb(row.disk.gistBytes)),
      String(mb(row.disk.primaryKeyBytes)),
      String(mb(row.disk.totalBytes)),
      String(Math.round(row.disk.totalBytes / row.sites)),
      String(row.disk.gistDepth ?? '–'),
      ...KNN_BATCHES.map((n) => fmt(row.knn.idsMs[n], 3)),
      fmt(row.knn.full500Ms, 2),
      `${fmt(row.knn.explain.hitPerPoint, 2)}+${fmt(row.knn.explain.readPerPoint, 2)}`,
      pct(row.gistShared),
      row.memory.held.toLocaleString('en-US'),
      String(Math.round(row.memory.bytesPerSite)),
    ]),
  )
  const base = arms[0] ? summary(arms[0]) : null
  printTable(
    [
      'sites',
      'predict rps',
      '× first',
      'server µs',
      'postgres µs',
      'cache hits',
      'batch/s',
      'batch server µs',
      '× first',
      'batch postgres µs',
      'batch cache hits',
      'RSS max MB',
    ],
    arms.map((arm) => {
      const s = summary(arm)
      return [
        arm.sites.toLocaleString('en-US'),
        fmt(s.predict.rps, 0),
        fmt(base ? s.predict.rps / base.predict.rps : null, 2),
        fmt(s.predict.serverUs, 0),
        fmt(s.predict.postgresUs, 0),
        pct(s.predict.hits),
        fmt(s.batch.rps, 1),
        fmt(s.batch.serverUs, 0),
        fmt(base ? s.batch.serverUs / base.batch.serverUs : null, 2),
        fmt(s.batch.postgresUs, 0),
        pct(s.batch.hits),
        fmt(s.rssMb, 0),
      ]
    }),
  )
  if (references.length > 0)
    printTable(
      ['reference sites', 'batch/s', 'batch server µs', 'batch postgres µs'],
      references.map((arm) => {
        const s = summary(arm)
        return [
          arm.sites.toLocaleString('en-US'),
          fmt(s.batch.rps, 1),
          fmt(s.batch.serverUs, 0),
          fmt(s.batch.postgresUs, 0),
        ]
      }),
    )
  process.stdout.write('\n')
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL')
  const judged = arms.find((arm) => arm.target === JUDGED)
  if (base && judged && judged !== arms[0]) {
    // The sizes take turns round by round: judged on the median of the rounds' own ratios (support.ts).
    const ratio = pairedRpsRatio(judged.predict, (arms[0] as Arm).predict)
    const ofMedians = summary(judged).predict.rps / base.predict.rps
    process.stdout.write(
      `  ${verdict(ratio >= RPS_TARGET)}  REST predict rps at ${judged.sites.toLocaleString('en-US')} sites ≥ ${RPS_TARGET}× at ${arms[0]?.sites.toLocaleString('en-US')}, same run, median of the rounds' ratios: ${round(ratio, 2)}× (of the medians: ${round(ofMedians, 2)}×)\n`,
    )
    const cpu = summary(judged).batch.serverUs / base.batch.serverUs
    process.stdout.write(
      `        REST batch of ${BATCH}: server CPU at ${judged.sites.toLocaleString('en-US')} sites ${round(cpu, 2)}× at ${arms[0]?.sites.toLocaleString('en-US')}\n`,
    )
  }
  const reference = references.find((arm) => arm.target === JUDGED)
  if (judged && reference) {
    const ratio = summary(judged).batch.serverUs / summary(reference).batch.serverUs
    process.stdout.write(
      `  ${verdict(ratio <= BATCH_CPU_TARGET)}  REST batch of ${BATCH} server CPU at ${judged.sites.toLocaleString('en-US')} sites ≤ ${BATCH_CPU_TARGET}× the reference's with as many sites: ${round(ratio, 2)}×\n`,
    )
  }
  const smallest = data[0]
  const largest = data.at(-1)
  if (smallest && largest && largest !== smallest) {
    const growth = (largest.knn.idsMs[1] ?? 0) / (smallest.knn.idsMs[1] ?? 1)
    process.stdout.write(
      `  ${verdict(growth <= LOOKUP_GROWTH_LIMIT)}  one KNN lookup at ${largest.sites.toLocaleString('en-US')} sites ≤ ${LOOKUP_GROWTH_LIMIT}× its cost at ${smallest.sites.toLocaleString('en-US')}: ${round(growth, 2)}× (500 points: ${round((largest.knn.idsMs[500] ?? 0) / (smallest.knn.idsMs[500] ?? 1), 2)}×)\n`,
    )
  }
}

async function main(): Promise<void> {
  const started = performance.now()
  buildProject(log)
  const admin = postgres(ADMIN_DATABASE_URL, { max: 2, onnotice: () => {} })
  const dropAll: (() => Promise<void>)[] = []
  const arms: Arm[] = []
  const references: Arm[] = []
  try {
    const data: DataRow[] = []
    const bodies = requestPoints(POINTS, generateSites())
    for (const sites of SIZES) {
      const database = await createDatabase(
        `survival_bench_scale_${label(sites).replace('.', '_').toLowerCase()}`,
      )
      dropAll.push(() => database.drop())
      const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 3 })
      try {
        await migrate(db.sql)
        await seedSpecies(db.sql)
        const seeded = await seedVersion(db.sql, sites, log)
        log(
          `${label(sites)}: ${seeded.sites.toLocaleString('en-US')} sites (${seeded.version}): inserted in ${round(seeded.insertSeconds, 1)} s, indexed and activated in ${round(seeded.indexSeconds, 1)} s`,
        )
        const disk = await diskUse(db.sql)
        const knn = await knnCosts(db.sql, bodies, DEFAULT_SEARCH_RADIUS_KM, REPEATS)
        const memory = await siteCacheBytesPerSite(db.sql, bodies, DEFAULT_SEARCH_RADIUS_KM)
        data.push({ sites: seeded.sites, seeded, disk, knn, memory, gistShared: null })
        const apiKey = (await createKey(db.sql, { tier: 'hypha', name: 'bench scale' })).key
        arms.push({
          target: sites,
          sites: seeded.sites,
          server: await startServer(sites, database.url, apiKey),
          predict: [],
          batch: [],
        })
      } finally {
        await db.close()
      }
    }
    const predictBodies = bodies.map((body) => JSON.stringify(body))
    const batchBodies: string[] = []
    for (let start = 0; start + BATCH <= bodies.length; start += BATCH)
      batchBodies.push(JSON.stringify({ sites: bodies.slice(start, start + BATCH) }))
    if (WITH_REFERENCE && referencePresent() && SIZES.length > 1) {
      await installReference(log)
      for (const sites of [18_000, JUDGED]) {
        const database = await seedReferenceDatabase(ADMIN_DATABASE_URL, log, sites)
        dropAll.push(() => database.drop())
        references.push({
          target: sites === 18_000 ? (SIZES[0] ?? sites) : sites,
          sites,
          server: await startReferenceServer(sites, database.url),
          predict: [],
          batch: [],
        })
      }
    }
    for (const arm of arms) {
      const warmStarted = performance.now()
      await sendEveryPoint(arm.server, batchBodies)
      await load(arm.server, '/v1/predict', predictBodies, PREDICT_CONNECTIONS, WARMUP_S, 0)
      log(`${arm.server.name}: warmed in ${round((performance.now() - warmStarted) / 1000, 1)} s`)
    }
    for (const arm of references)
      await load(arm.server, '/v1/predict/batch', batchBodies, BATCH_CONNECTIONS, WARMUP_S, 0)
    // The share of each size's GiST index in shared_buffers right after its own window (the sizes'
    // databases share one server's buffers, so an idle one's pages go while another is loaded).
    await rounds(admin, arms, 'predict', predictBodies, async (arm) => {
      const row = data[arms.indexOf(arm)]
      if (!row) return
      const db = await openDatabase({ DATABASE_URL: urlOf(arm.server.database), DB_POOL_MAX: 1 })
      try {
        const share = await gistInSharedBuffers(db.sql, row.disk.gistName)
        if (share !== null) row.gistShared = Math.max(row.gistShared ?? 0, share)
      } finally {
        await db.close()
      }
    })
    await rounds(admin, [...arms, ...references], 'batch', batchBodies)
    report(data, arms, references)
    log(`done in ${round((performance.now() - started) / 60_000, 1)} min`)
  } finally {
    for (const arm of [...arms, ...references]) {
      arm.server.rss.stop()
      await arm.server.child.stop()
    }
    for (const drop of dropAll) await drop().catch((error) => log(`drop failed: ${String(error)}`))
    await admin.end()
  }
}

function urlOf(database: string): string {
  const url = new URL(ADMIN_DATABASE_URL)
  url.pathname = `/${database}`
  return url.toString()
}

await main()
