/**
 * `npm run bench:surveys:upload`: BENCH_SURVEY_ROWS (1,000,000) survey rows in one CSV streamed to
 * `POST /v1/surveys/uploads`, end to end (read, checked, matched to a site, predicted, staged, stored in
 * one transaction), against the ≥ 250,000 rows a minute and ≤ 300 MB server RSS targets.
 *
 * The server is the production build (`npm run build`'s tsc output) on a fresh seeded database, with a
 * hypha key (1,000,000 surveys). Rows are the seeded sites moved by up to ~300 m, every species and
 * both methods in turn, planted 2016–2023 and surveyed 1 to 8 years later, so no two rows are alike.
 *
 * Env: BENCH_SURVEY_ROWS (1000000), BENCH_SURVEY_PROFILE_DIR (write the server's CPU profile there),
 * BENCH_ADMIN_DATABASE_URL, BENCH_REDIS_URL.
 */
import { createReadStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import postgres from 'postgres'
import { portfolioRows, type Site, writeFile } from './job-files.ts'
import { BENCH_ADDRESS_HASH_KEY, buildProject, PRODUCTION_ENV, PRODUCTION_NODE_ARGS } from './servers.ts'
import {
  type Child,
  createDatabase,
  deleteRedisKeys,
  freePort,
  listRedisKeys,
  REDIS_URL,
  RssSampler,
  randomSuffix,
  readCpuMsOf,
  round,
  spawnNode,
  waitForHealthy,
} from './support.ts'

const ROWS = Number(process.env.BENCH_SURVEY_ROWS ?? 1_000_000)
const TARGET_ROWS_PER_MINUTE = 250_000
const TARGET_RSS_MB = 300
const SERVER_ENTRY = 'dist/src/wiring/main.js'
/** A folder for the server's CPU profile (node --cpu-prof), to see where an upload's time goes. */
const PROFILE_DIR = process.env.BENCH_SURVEY_PROFILE_DIR

const log = (message: string) => process.stderr.write(`${message}\n`)

/** The survey file: one row per portfolio row, a plot at a seeded site with counts and dates. */
function writeSurveys(path: string, sites: readonly Site[], rows: number): Promise<number> {
  return writeFile(
    path,
    'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive\n',
    (function* () {
      for (const r of portfolioRows(sites, rows)) {
        const plantedYear = 2016 + (r.row % 8)
        const age = 1 + (r.row % 7)
        const planted = 10 + (r.row % 191)
        const alive = Math.round(planted * (0.35 + ((r.row * 7919) % 600) / 1000))
        yield `s${r.row},${r.latitude},${r.longitude},${r.species},${r.method},${plantedYear}-04-0${1 + (r.row % 9)},${Math.min(2025, plantedYear + age)}-09-15,${planted},${alive}\n`
      }
    })(),
  )
}

async function main() {
  buildProject(log)
  const database = await createDatabase('survival_bench_surveys')
  const prefix = `bench:surveys:${randomSuffix()}`
  const file = join(tmpdir(), `surveys-${ROWS}-${randomSuffix()}.csv`)
  let server: Child | undefined
  try {
    log(`database ${database.name}: migrate and seed`)
    for (const cli of ['dist/src/cli/db-migrate.js', 'dist/src/cli/db-seed.js']) {
      const child = spawnNode(cli, cli, { DATABASE_URL: database.url, LOG_LEVEL: 'warn' }, { quiet: true })
      if ((await child.exited) !== 0) throw new Error(`${cli} failed`)
    }
    const sql = postgres(database.url, { max: 1, onnotice: () => {} })
    const sites = await sql<Site[]>`SELECT latitude, longitude FROM sites ORDER BY id`
    const { createKey } = await import('../src/db/keys.ts')
    const { key } = await createKey(sql as never, { tier: 'hypha', name: 'bench' })

    const bytes = await writeSurveys(file, sites, ROWS)
    log(`surveys: ${ROWS.toLocaleString('en-US')} rows, ${round(bytes / 2 ** 20, 1)} MiB`)
    const port = await freePort()
    server = spawnNode(
      'server',
      SERVER_ENTRY,
      {
        ...PRODUCTION_ENV,
        DATABASE_URL: database.url,
        REDIS_URL,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        QUOTA_KEY_PREFIX: `${prefix}:quota:`,
        JOB_QUEUE_PREFIX: `${prefix}:jobs`,
        METRICS_TOKEN: `bench-${randomSuffix()}${randomSuffix()}`,
        ADDRESS_HASH_KEY: BENCH_ADDRESS_HASH_KEY,
      },
      {
        nodeArgs: [
          ...PRODUCTION_NODE_ARGS,
          ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
        ],
      },
    )
    const url = `http://127.0.0.1:${port}`
    await waitForHealthy(`${url}/v1/health`, server, 60_000)
    const rss = new RssSampler(server.pid, 100)
    const cpuBefore = readCpuMsOf([server.pid])
    const progress = setInterval(async () => {
      const [row] = await sql<{ rows_read: number }[]>`SELECT rows_read FROM survey_uploads`
      log(`  ${(row?.rows_read ?? 0).toLocaleString('en-US')} / ${ROWS.toLocaleString('en-US')} rows`)
    }, 15_000)
    const started = performance.now()
    const response = await fetch(`${url}/v1/surveys/uploads?skip_invalid=true`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'text/csv' },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      duplex: 'half',
    } as RequestInit)
    const answer = (await response.json()) as { stored?: number; refused_rows?: number }
    const totalMs = performance.now() - started
    clearInterval(progress)
    if (response.status !== 201)
      throw new Error(`upload answered ${response.status}: ${JSON.stringify(answer)}`)
    const cpuMs = readCpuMsOf([server.pid]) - cpuBefore
    const peak = rss.max()
    rss.stop()
    const [held] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM survey_plots`
    log(`answered in ${round(totalMs / 1000, 1)} s`)
    await sql.end()
    const rate = Math.round((ROWS / totalMs) * 60_000)
    const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
    process.stdout.write(
      [
        `## ${ROWS.toLocaleString('en-US')} survey rows uploaded end to end (CSV streamed → stored), one server`,
        '',
        '| measure | value | target |',
        '|---|---|---|',
        `| rows per minute | ${rate.toLocaleString('en-US')} | ≥ ${TARGET_ROWS_PER_MINUTE.toLocaleString('en-US')} ${pass(rate >= TARGET_ROWS_PER_MINUTE)} |`,
        `| total | ${round(totalMs / 1000, 1)} s | ≤ ${round((ROWS / TARGET_ROWS_PER_MINUTE) * 60, 0)} s |`,
        `| surveys stored (rows moved outside coverage refused) | ${(held?.n ?? 0).toLocaleString('en-US')} (${(answer.refused_rows ?? 0).toLocaleString('en-US')} refused) | = rows − refused ${pass(held?.n === ROWS - (answer.refused_rows ?? 0))} |`,
        `| server peak RSS | ${round(peak, 0)} MB | ≤ ${TARGET_RSS_MB} MB ${pass(peak <= TARGET_RSS_MB)} |`,
        `| server CPU | ${round(cpuMs / 1000, 1)} s | |`,
        '',
      ].join('\n'),
    )
  } finally {
    await server?.stop()
    await rm(file, { force: true })
    await database.drop()
    const keys = await listRedisKeys(REDIS_URL, `${prefix}:*`)
    await deleteRedisKeys(REDIS_URL, keys)
  }
}

await main()
