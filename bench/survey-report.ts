/**
 * `npm run bench:surveys` (and the `survey_report` step of `npm run bench`): GET /v1/surveys/report end to
 * end over 10,000 and 1,000,000 survey plots of one account each, against ≤ 200 ms and ≤ 5 s.
 *
 * The plots are written straight into survey_plots (one INSERT … SELECT over generate_series, seeded so
 * every run holds the same plots): species of the catalogue, 70 % hand planted and 30 % drone seeded,
 * 10–200 planted, alive ≤ planted around the prediction, predicted 0.05–0.95, age 0.25–10 years.
 * Then a fresh server process answers one warm-up report per account and BENCH_SURVEY_REPEATS (5) timed
 * ones, each from the request to the whole answer read; the figure is their median.
 *
 * Env: BENCH_SURVEY_SIZES (plots per account, default "10000,1000000"), BENCH_SURVEY_REPEATS (5), and,
 * run on its own, BENCH_ADMIN_DATABASE_URL and BENCH_REDIS_URL.
 */
import { pathToFileURL } from 'node:url'
import { openDatabase, type Sql } from '../src/db/connect.ts'
import { createKey } from '../src/db/keys.ts'
import { seededDatabase } from './seeded-database.ts'
import { buildProject, type MeasuredProcess, startProjectServer } from './servers.ts'
import { deleteRedisKeys, listRedisKeys, median, REDIS_URL, randomSuffix, round } from './support.ts'

/** Its id in BENCH_SCENARIOS. */
export const SURVEY_REPORT_ID = 'survey_report'

const SIZES = (process.env.BENCH_SURVEY_SIZES ?? '10000,1000000')
  .split(',')
  .map(Number)
  .filter((plots) => plots >= 1)
const REPEATS = Math.max(1, Number(process.env.BENCH_SURVEY_REPEATS ?? 5))
/** The slowest acceptable median report, by the number of plots it covers (sizes in between: the next one up). */
const TARGETS_MS = [
  { plots: 10_000, ms: 200 },
  { plots: 1_000_000, ms: 5_000 },
] as const

type Log = (message: string) => void

export interface SurveyReportSize {
  plots: number
  /** Writing the plots and ANALYZE. */
  seedSeconds: number
  /** Each timed report, ms; empty when one failed. */
  runsMs: number[]
  medianMs: number | null
  answerBytes: number
  /** Why the report could not be timed (an error status, a wrong plot count). */
  failure: string | null
}

export interface SurveyReportOutcome {
  repetitions: number
  sizes: SurveyReportSize[]
  /** The server process's peak RSS over every report. */
  serverRssMaxMb: number
}

/** `plots` plausible survey plots for the account, the same ones on every run; how long writing them took. */
async function insertPlots(sql: Sql, accountId: string, plots: number): Promise<number> {
  const started = performance.now()
  await sql.begin(async (tx) => {
    // random() follows setseed within the session: one INSERT … SELECT draws the same values every run.
    await tx`SELECT setseed(0.42)`
    await tx`
      WITH catalogue AS (SELECT array_agg(code ORDER BY code) AS codes FROM species),
      drawn AS (
        SELECT n, codes[1 + floor(random() * cardinality(codes))::int] AS species_code,
          CASE WHEN random() < 0.7 THEN 'manual' ELSE 'drone_seeded' END AS planting_method,
          10 + floor(random() * 191)::int AS planted,
          92 + floor(random() * 3561)::int AS age_days,
          0.05 + 0.9 * random() AS predicted,
          0.3 * (random() - 0.5) AS departure,
          42 + 7 * random() AS latitude,
          -124 + 7 * random() AS longitude
        FROM generate_series(1, ${plots}::int) AS n, catalogue)
      INSERT INTO survey_plots (account_id, plot_id, surveyed_on, planted_on, latitude, longitude,
        species_code, planting_method, planted, alive, site_id, matched_latitude, matched_longitude,
        match_distance_km, age_years, predicted, model_version)
      SELECT ${accountId}, 'bench-' || n, DATE '2026-06-01', DATE '2026-06-01' - age_days, latitude, longitude,
        species_code, planting_method, planted,
        floor(planted * least(1, greatest(0, predicted + departure)))::int,
        n, latitude, longitude, 0.4, age_days / 365.25, predicted, '0.2'
      FROM drawn`
  })
  await sql`ANALYZE survey_plots`
  return (performance.now() - started) / 1000
}

/** A hypha key of a new account holding `plots` survey plots. */
export async function accountWithPlots(
  sql: Sql,
  plots: number,
): Promise<{ key: string; seedSeconds: number }> {
  const issued = await createKey(sql, { tier: 'hypha', name: `bench surveys ${plots}` })
  const [row] = await sql<{ accountId: string }[]>`SELECT account_id FROM api_keys WHERE id = ${issued.id}`
  const seedSeconds = await insertPlots(sql, (row as { accountId: string }).accountId, plots)
  return { key: issued.key, seedSeconds }
}

/** One report, timed from the request to its last byte; its size, or why it is not the expected answer. */
async function timedReport(server: MeasuredProcess, key: string, plots: number) {
  const started = performance.now()
  const response = await fetch(`${server.url}/v1/surveys/report`, { headers: { 'x-api-key': key } })
  const text = await response.text()
  const ms = performance.now() - started
  const counted = response.ok ? (JSON.parse(text) as { overall?: { plots?: number } }).overall?.plots : null
  const failure =
    response.status !== 200
      ? `status ${response.status}: ${text.slice(0, 200)}`
      : counted !== plots
        ? `the report counts ${counted} plots, not ${plots}`
        : null
  return { ms, bytes: Buffer.byteLength(text), failure }
}

async function measureSize(
  server: MeasuredProcess,
  key: string,
  size: Pick<SurveyReportSize, 'plots' | 'seedSeconds'>,
  log: Log,
) {
  const runsMs: number[] = []
  let answerBytes = 0
  for (let run = 0; run <= REPEATS; run++) {
    const { ms, bytes, failure } = await timedReport(server, key, size.plots)
    if (failure) {
      log(
        `${SURVEY_REPORT_ID} ${size.plots.toLocaleString('en-US')} plots: ${failure} after ${round(ms, 0)} ms`,
      )
      return { ...size, runsMs: [], medianMs: null, answerBytes, failure }
    }
    answerBytes = bytes
    // The first call warms the process (its key, the route, the compiled statistics) and is not counted.
    if (run > 0) runsMs.push(round(ms, 1))
    log(
      `${SURVEY_REPORT_ID} ${size.plots.toLocaleString('en-US')} plots: ${run === 0 ? 'warm-up' : `run ${run}/${REPEATS}`} ${round(ms, 0)} ms`,
    )
  }
  return { ...size, runsMs, medianMs: round(median(runsMs), 1), answerBytes, failure: null }
}

/**
 * Writes each size's plots into the database at `databaseUrl` (one new account each), then times the
 * reports on a server `startServer` starts (it is stopped here).
 */
export async function measureSurveyReport(
  databaseUrl: string,
  startServer: () => Promise<MeasuredProcess>,
  log: Log,
): Promise<SurveyReportOutcome> {
  const db = await openDatabase({ DATABASE_URL: databaseUrl, DB_POOL_MAX: 1 })
  const accounts: { plots: number; key: string; seedSeconds: number }[] = []
  try {
    for (const plots of SIZES) {
      const account = await accountWithPlots(db.sql, plots)
      log(
        `${SURVEY_REPORT_ID}: wrote ${plots.toLocaleString('en-US')} plots in ${round(account.seedSeconds, 1)} s`,
      )
      accounts.push({ plots, ...account })
    }
  } finally {
    await db.close()
  }
  const server = await startServer()
  try {
    const sizes: SurveyReportSize[] = []
    for (const { key, ...size } of accounts) sizes.push(await measureSize(server, key, size, log))
    return { repetitions: REPEATS, sizes, serverRssMaxMb: round(server.rss.max(), 1) }
  } finally {
    server.rss.stop()
    await server.child.stop()
  }
}

function targetMs(plots: number): number | null {
  return TARGETS_MS.find((target) => plots <= target.plots)?.ms ?? null
}

/** The figures, then a PASS/FAIL line per size with a target, as `npm run bench` prints its targets. */
export function printSurveyReport(outcome: SurveyReportOutcome): void {
  console.log(
    `\nGET /v1/surveys/report, median of ${outcome.repetitions} after a warm-up call, one fresh server (peak RSS ${outcome.serverRssMaxMb} MB):`,
  )
  for (const size of outcome.sizes)
    console.log(
      `  ${size.plots.toLocaleString('en-US').padStart(9)} plots: ${size.failure ?? `${size.medianMs} ms (${size.runsMs.join(', ')}), ${size.answerBytes.toLocaleString('en-US')} B answer`}; plots written in ${round(size.seedSeconds, 1)} s`,
    )
  console.log('\nsurvey report targets (bench/survey-report.ts):')
  for (const size of outcome.sizes) {
    const limit = targetMs(size.plots)
    if (limit === null) continue
    const pass = size.medianMs !== null && size.medianMs <= limit
    const figure = size.medianMs === null ? `not measured (${size.failure})` : `${size.medianMs} ms`
    console.log(
      `  ${pass ? 'PASS' : 'FAIL'}  survey report over ${size.plots.toLocaleString('en-US')} plots ≤ ${limit.toLocaleString('en-US')} ms: ${figure}`,
    )
  }
}

/** On its own: a seeded database, the production build, a server, the reports; everything removed after. */
async function main(): Promise<void> {
  const started = performance.now()
  const log: Log = (message) =>
    console.error(`[surveys ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`)
  const database = await seededDatabase('survival_bench_surveys', log)
  const quotaKeyPrefix = `bench:${randomSuffix()}:`
  try {
    buildProject(log)
    const project = {
      databaseUrl: database.url,
      apiKey: database.apiKeys[0] as string,
      quotaKeyPrefix,
      metricsToken: `bench-${randomSuffix()}${randomSuffix()}`,
    }
    const outcome = await measureSurveyReport(
      database.url,
      () => startProjectServer('server', project, { REDIS_URL }, () => {}),
      log,
    )
    printSurveyReport(outcome)
  } finally {
    await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${quotaKeyPrefix}*`))
    await database.drop()
    log(`dropped database ${database.name}`)
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
