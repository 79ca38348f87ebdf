/**
 * `npm run bench:soak`: every endpoint at once for ten minutes against one server process, watching its
 * memory. The lanes (soak-lanes.ts) run side by side: predictions single and in batches of 500 over REST
 * and GraphQL, survival maps across every species, method, horizon and climate, stocking plans, the
 * catalogue and service endpoints, the explorer and metrics, keys rotated and issued, bad input refused,
 * and portfolio jobs (CSV, GeoJSON points, GeoJSON stands) streamed up, scored in the server, streamed down
 * and deleted, one after another.
 *
 * The server is the production build run as `npm run start:prod` runs it, on a fresh seeded database and
 * the local Redis. Its RSS is read every second and its V8 heap from /metrics every 15 s.
 *
 * Targets: RSS below 256 MB throughout; flat: after the warm-up, the median RSS of the second half of the
 * run no more than 5 % above the first half's; every call answered as expected (status and shape); no
 * error in the server's log. A missed target is reported, not an error: the exit code is non-zero only
 * when the run itself fails. Writes bench/results/soak.json.
 *
 * Env: BENCH_SOAK_SECONDS (600), BENCH_SOAK_WARMUP (s not judged for flatness, 120), BENCH_SOAK_JOB_ROWS
 * (rows of the CSV and GeoJSON point jobs, 20000), BENCH_SOAK_JOB_STANDS (300), BENCH_ADMIN_DATABASE_URL,
 * BENCH_REDIS_URL, and the server's own (servers.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { isInCoverage } from '../src/geo/coverage.ts'
import {
  portfolioRows,
  type Site,
  writePointCollection,
  writePortfolio,
  writeStandCollection,
} from './job-files.ts'
import { type SoakMailSink, startSoakMailSink } from './mail-sink.ts'
import { seededDatabase } from './seeded-database.ts'
import { buildProject, startProjectServer } from './servers.ts'
import { LaneTally, SoakClient } from './soak-client.ts'
import { type Lane, SOAK_LANE_IDS, type SoakContext, soakLanes } from './soak-lanes.ts'
import { memoryVerdict, type Sample, TARGET_GROWTH, TARGET_RSS_MB } from './soak-memory.ts'
import { chosenLaneIds, positiveSetting } from './soak-settings.ts'
import {
  deleteRedisKeys,
  listRedisKeys,
  median,
  REDIS_URL,
  randomSuffix,
  readRssMb,
  round,
  sleep,
} from './support.ts'

const SECONDS = positiveSetting(process.env, 'BENCH_SOAK_SECONDS', 600)
const WARMUP_SECONDS = Math.min(
  positiveSetting(process.env, 'BENCH_SOAK_WARMUP', 120),
  Math.floor(SECONDS / 2),
)
const JOB_ROWS = positiveSetting(process.env, 'BENCH_SOAK_JOB_ROWS', 20_000)
const JOB_STANDS = positiveSetting(process.env, 'BENCH_SOAK_JOB_STANDS', 300)
const LANE_IDS = chosenLaneIds(SOAK_LANE_IDS, process.env.BENCH_SOAK_LANES)
const HEAP_SCRAPE_MS = 15_000

/** Rows of the portfolio outside the coverage (a site by the coast or a state line, moved): they fail. */
function rowsOutsideCoverage(sites: readonly Site[], rows: number): number {
  let outside = 0
  for (const row of portfolioRows(sites, rows))
    if (!isInCoverage(Number(row.latitude), Number(row.longitude))) outside += 1
  return outside
}

const log = (message: string) => process.stderr.write(`${message}\n`)

/** The explorer's own assets, as its page links them. */
async function explorerAssets(client: SoakClient): Promise<string[]> {
  const page = await client.send({
    method: 'GET',
    path: '/',
    headers: { accept: 'text/html' },
    expect: [200],
  })
  return [
    ...new Set(
      [...page.text.matchAll(/(?:src|href)="(\/explorer\/assets\/[^"]+)"/g)].map((m) => m[1] as string),
    ),
  ]
}

/**
 * The V8 heap in use, the heap V8 holds (in use plus free room, the young generation's semi-spaces
 * included) and the memory outside it (Buffers), MB, from the server's /metrics.
 */
async function heapMb(
  client: SoakClient,
  token: string,
): Promise<{ used: number; committed: number; external: number } | null> {
  try {
    const { text } = await client.send({
      method: 'GET',
      path: '/metrics',
      headers: { authorization: `Bearer ${token}` },
      expect: [200],
    })
    const used = /^survival_nodejs_heap_size_used_bytes (\S+)$/m.exec(text)
    const committed = /^survival_nodejs_heap_size_total_bytes (\S+)$/m.exec(text)
    const external = /^survival_nodejs_external_memory_bytes (\S+)$/m.exec(text)
    return used && committed && external
      ? {
          used: Number(used[1]) / 2 ** 20,
          committed: Number(committed[1]) / 2 ** 20,
          external: Number(external[1]) / 2 ** 20,
        }
      : null
  } catch {
    return null
  }
}

/** Runs every lane's loops until the deadline; resolves once the last step in flight has ended. */
async function runLanes(
  lanes: readonly Lane[],
  tallies: Map<string, LaneTally>,
  deadline: number,
): Promise<void> {
  const loops = lanes.flatMap((lane) =>
    Array.from({ length: lane.connections }, async () => {
      const tally = tallies.get(lane.name) as LaneTally
      while (performance.now() < deadline) {
        await lane.step(tally)
        if (lane.pauseMs) await sleep(lane.pauseMs)
      }
    }),
  )
  await Promise.all(loops)
}

/** Calls made and calls answered otherwise than expected, over every lane. */
function totals(tallies: Map<string, LaneTally>): { calls: number; unexpected: number } {
  let calls = 0
  let unexpected = 0
  for (const tally of tallies.values()) {
    calls += tally.calls
    unexpected += tally.unexpected
  }
  return { calls, unexpected }
}

const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL')

function report(
  lanes: readonly Lane[],
  tallies: Map<string, LaneTally>,
  { rss, heap, committed, external }: Record<'rss' | 'heap' | 'committed' | 'external', readonly Sample[]>,
  serverErrors: readonly string[],
  seconds: number,
) {
  const memory = memoryVerdict(rss, WARMUP_SECONDS)
  const { calls, unexpected } = totals(tallies)
  const lines = [
    `## Soak: ${round(seconds / 60, 1)} minutes of every endpoint at once, one server process`,
    '',
    '| lane | connections | calls | per second | statuses | unexpected | p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|---|',
    ...lanes.map((lane) => {
      const tally = tallies.get(lane.name) as LaneTally
      const statuses = [...tally.statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status === 0 ? 'no answer' : status} ×${count.toLocaleString('en-US')}`)
        .join(', ')
      return `| ${lane.name} | ${lane.connections} | ${tally.calls.toLocaleString('en-US')} | ${round(tally.calls / seconds, 1)} | ${statuses} | ${tally.unexpected} | ${round(tally.percentile(0.5), 1)} | ${round(tally.percentile(0.99), 1)} |`
    }),
    '',
    '| minute | RSS max MB | RSS median MB | V8 heap used MB (median) | V8 heap held MB (median) | outside the heap MB (median) |',
    '|---|---|---|---|---|---|',
  ]
  const minutes = Math.ceil(seconds / 60)
  for (let minute = 0; minute < minutes; minute++) {
    const inMinute = (s: Sample) => s.second >= minute * 60 && s.second < (minute + 1) * 60
    const rssMinute = rss.filter(inMinute).map((s) => s.mb)
    const medianOf = (samples: readonly Sample[]) => {
      const inThisMinute = samples.filter(inMinute).map((s) => s.mb)
      return inThisMinute.length ? round(median(inThisMinute), 1) : '–'
    }
    if (rssMinute.length === 0) continue
    lines.push(
      `| ${minute + 1} | ${round(Math.max(...rssMinute), 1)} | ${round(median(rssMinute), 1)} | ${medianOf(heap)} | ${medianOf(committed)} | ${medianOf(external)} |`,
    )
  }
  lines.push(
    '',
    '| target | result |',
    '|---|---|',
    `| peak RSS < ${TARGET_RSS_MB} MB | ${round(memory.peakMb, 1)} MB ${pass(memory.peakPass)} |`,
    `| flat: after the first ${WARMUP_SECONDS} s, the second half's median RSS ≤ the first half's + ${TARGET_GROWTH * 100} % | ${round(memory.firstHalfMedianMb, 1)} → ${round(memory.secondHalfMedianMb, 1)} MB (${memory.growth >= 0 ? '+' : ''}${round(memory.growth * 100, 1)} %; slope ${round(memory.slopeMbPerMinute, 2)} MB/min) ${pass(memory.flatPass)} |`,
    `| every call answered as expected | ${unexpected} of ${calls.toLocaleString('en-US')} not ${pass(unexpected === 0)} |`,
    `| no error in the server's log | ${serverErrors.length} ${pass(serverErrors.length === 0)} |`,
    '',
  )
  const problems = [...tallies.values()].flatMap((tally) =>
    tally.problems.map((p) => `- ${tally.lane}: ${p}`),
  )
  if (problems.length) lines.push('Unexpected answers (first few per lane):', '', ...problems, '')
  if (serverErrors.length)
    lines.push(
      'Server errors (first few):',
      '',
      ...serverErrors.slice(0, 5).map((line) => `- ${line.slice(0, 300)}`),
      '',
    )
  return { lines, memory, unexpected, calls }
}

async function main() {
  buildProject(log)
  const database = await seededDatabase('survival_bench_soak', log, 2)
  const prefix = `bench:soak:${randomSuffix()}`
  const metricsToken = `soak-${randomSuffix()}${randomSuffix()}`
  const files: SoakContext['jobFiles'] = {
    csv: { path: join(tmpdir(), `soak-${randomSuffix()}.csv`), rows: JOB_ROWS, outside: 0 },
    points: { path: join(tmpdir(), `soak-${randomSuffix()}.geojson`), rows: JOB_ROWS, outside: 0 },
    stands: { path: join(tmpdir(), `soak-stands-${randomSuffix()}.geojson`), rows: JOB_STANDS, outside: 0 },
  }
  let server: Awaited<ReturnType<typeof startProjectServer>> | undefined
  let mailSink: SoakMailSink | undefined
  const client: { current?: SoakClient } = {}
  try {
    // Key mail goes to a sink on this machine: POST /keys is taken and each request mailed.
    mailSink = await startSoakMailSink()
    const sql = postgres(database.url, { max: 1, onnotice: () => {} })
    const sites = await sql<Site[]>`SELECT latitude, longitude FROM sites ORDER BY id`
    await sql.end()
    const outside = rowsOutsideCoverage(sites, JOB_ROWS)
    files.csv.outside = outside
    files.points.outside = outside
    await writePortfolio(files.csv.path, sites, files.csv.rows)
    await writePointCollection(files.points.path, sites, files.points.rows)
    await writeStandCollection(files.stands.path, sites, files.stands.rows)

    const serverErrors: string[] = []
    server = await startProjectServer(
      'server',
      {
        databaseUrl: database.url,
        apiKey: database.apiKeys[0] as string,
        quotaKeyPrefix: `${prefix}:quota:`,
        metricsToken,
      },
      { REDIS_URL },
      (line) => {
        // pino's error and fatal levels
        if (/"level":(50|60)/.test(line)) serverErrors.push(line)
      },
      { JOB_QUEUE_PREFIX: `${prefix}:jobs`, ...mailSink.env },
    )
    const pid = server.child.pid
    client.current = new SoakClient(new URL(server.url))
    const ctx: SoakContext = {
      url: server.url,
      client: client.current,
      key: database.apiKeys[0] as string,
      rotatingKey: database.apiKeys[1] as string,
      metricsToken,
      sites,
      jobFiles: files,
      mailSink,
    }
    const lanes = soakLanes(ctx, await explorerAssets(client.current)).filter((lane) =>
      LANE_IDS.includes(lane.id),
    )
    const tallies = new Map(lanes.map((lane) => [lane.name, new LaneTally(lane.name)]))
    log(
      `soak: ${lanes.length} lanes, ${lanes.reduce((sum, lane) => sum + lane.connections, 0)} connections, ${SECONDS} s, server pid ${pid}`,
    )

    const started = performance.now()
    const second = () => (performance.now() - started) / 1000
    const rss: Sample[] = []
    const heap: Sample[] = []
    const committed: Sample[] = []
    const external: Sample[] = []
    const rssTimer = setInterval(() => {
      const mb = readRssMb(pid)
      if (mb !== null) rss.push({ second: second(), mb })
    }, 1000)
    const heapTimer = setInterval(() => {
      void heapMb(client.current as SoakClient, metricsToken).then((mb) => {
        if (mb !== null) {
          heap.push({ second: second(), mb: mb.used })
          committed.push({ second: second(), mb: mb.committed })
          external.push({ second: second(), mb: mb.external })
        }
      })
    }, HEAP_SCRAPE_MS)
    const progressTimer = setInterval(() => {
      const { calls, unexpected } = totals(tallies)
      log(
        `  ${Math.round(second())} s: RSS ${round(rss.at(-1)?.mb ?? 0, 1)} MB, ${calls.toLocaleString('en-US')} calls, ${unexpected} unexpected`,
      )
    }, 60_000)
    try {
      await runLanes(lanes, tallies, started + SECONDS * 1000)
    } finally {
      clearInterval(rssTimer)
      clearInterval(heapTimer)
      clearInterval(progressTimer)
    }
    const elapsed = second()
    const { lines, memory, unexpected, calls } = report(
      lanes,
      tallies,
      { rss, heap, committed, external },
      serverErrors,
      elapsed,
    )
    process.stdout.write(`\n${lines.join('\n')}\n`)
    mkdirSync(new URL('results/', import.meta.url), { recursive: true })
    writeFileSync(
      new URL('results/soak.json', import.meta.url),
      `${JSON.stringify(
        {
          finishedAt: new Date().toISOString(),
          seconds: round(elapsed, 1),
          warmupSeconds: WARMUP_SECONDS,
          memory,
          calls,
          unexpected,
          serverErrors: serverErrors.length,
          lanes: lanes.map((lane) => {
            const tally = tallies.get(lane.name) as LaneTally
            return {
              name: lane.name,
              connections: lane.connections,
              calls: tally.calls,
              statuses: Object.fromEntries(tally.statuses),
              unexpected: tally.unexpected,
              problems: tally.problems,
              p50Ms: round(tally.percentile(0.5), 1),
              p99Ms: round(tally.percentile(0.99), 1),
            }
          }),
          rss: rss.map((s) => [round(s.second, 1), round(s.mb, 1)]),
          heapUsed: heap.map((s) => [round(s.second, 1), round(s.mb, 1)]),
          heapCommitted: committed.map((s) => [round(s.second, 1), round(s.mb, 1)]),
          external: external.map((s) => [round(s.second, 1), round(s.mb, 1)]),
        },
        null,
        1,
      )}\n`,
    )
  } finally {
    client.current?.close()
    if (server) {
      server.rss.stop()
      await server.child.stop()
    }
    await mailSink?.close()
    await Promise.all(Object.values(files).map((file) => rm(file.path, { force: true })))
    await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${prefix}*`))
    await database.drop()
  }
}

await main()
