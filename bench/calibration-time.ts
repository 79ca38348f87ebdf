/**
 * `npm run bench:calibration`: POST /v1/models/calibrations end to end (the plots read, the fit and its
 * five-fold cross-validation in the server's worker thread, the version kept) over 1,000 and 100,000
 * survey plots of one account each, against ≤ 2 s and ≤ 30 s. The plots are bench:surveys' (planted
 * over ten years, so the planting-year variance is estimated too). Each size is calibrated
 * BENCH_CALIBRATION_REPEATS (3) times on one fresh server; the figure is their median.
 *
 * Env: BENCH_CALIBRATION_SIZES ("1000,100000"), BENCH_CALIBRATION_REPEATS (3), BENCH_ADMIN_DATABASE_URL,
 * BENCH_REDIS_URL.
 */
import { openDatabase } from '../src/db/connect.ts'
import { seededDatabase } from './seeded-database.ts'
import { buildProject, type MeasuredProcess, startProjectServer } from './servers.ts'
import { deleteRedisKeys, listRedisKeys, median, REDIS_URL, randomSuffix, round } from './support.ts'
import { accountWithPlots } from './survey-report.ts'

const SIZES = (process.env.BENCH_CALIBRATION_SIZES ?? '1000,100000').split(',').map(Number)
const REPEATS = Math.max(1, Number(process.env.BENCH_CALIBRATION_REPEATS ?? 3))
const TARGETS_S = [
  { plots: 1_000, seconds: 2 },
  { plots: 100_000, seconds: 30 },
] as const

type Log = (message: string) => void

async function call(server: MeasuredProcess, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(server.url + path, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as { status: string; model_version: string | null; links: { self: string } }
}

/** One calibration from the request to its version, polling every 100 ms while it runs. */
async function timedCalibration(
  server: MeasuredProcess,
  key: string,
): Promise<{ seconds: number; version: string }> {
  const started = performance.now()
  let run = await call(server, key, 'POST', '/v1/models/calibrations', {})
  while (run.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 100))
    run = await call(server, key, 'GET', run.links.self)
  }
  if (run.status !== 'succeeded' || !run.model_version) throw new Error(`calibration ${run.status}`)
  return { seconds: (performance.now() - started) / 1000, version: run.model_version }
}

async function main(): Promise<void> {
  const started = performance.now()
  const log: Log = (message) =>
    console.error(
      `[calibration ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`,
    )
  const database = await seededDatabase('survival_bench_calibration', log)
  const quotaKeyPrefix = `bench:${randomSuffix()}:`
  try {
    buildProject(log)
    const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 1 })
    const accounts: { plots: number; key: string }[] = []
    try {
      for (const plots of SIZES) accounts.push({ plots, key: (await accountWithPlots(db.sql, plots)).key })
    } finally {
      await db.close()
    }
    const server = await startProjectServer(
      'server',
      {
        databaseUrl: database.url,
        apiKey: database.apiKeys[0] as string,
        quotaKeyPrefix,
        metricsToken: `bench-${randomSuffix()}${randomSuffix()}`,
      },
      { REDIS_URL },
      () => {},
    )
    const results: { plots: number; medianS: number; runs: number[] }[] = []
    try {
      for (const { plots, key } of accounts) {
        const runs: number[] = []
        for (let run = 0; run < REPEATS; run++) {
          const { seconds, version } = await timedCalibration(server, key)
          runs.push(round(seconds, 2))
          log(`${plots.toLocaleString('en-US')} plots: ${round(seconds, 2)} s → ${version}`)
        }
        results.push({ plots, medianS: round(median(runs), 2), runs })
      }
      console.log(
        `\nPOST /v1/models/calibrations to its version, median of ${REPEATS} (peak RSS ${round(server.rss.max(), 1)} MB):`,
      )
      for (const result of results)
        console.log(
          `  ${result.plots.toLocaleString('en-US').padStart(9)} plots: ${result.medianS} s (${result.runs.join(', ')})`,
        )
      console.log('\ncalibration targets (bench/calibration-time.ts):')
      for (const result of results) {
        const target = TARGETS_S.find((t) => result.plots <= t.plots)
        if (!target) continue
        console.log(
          `  ${result.medianS <= target.seconds ? 'PASS' : 'FAIL'}  calibration of ${result.plots.toLocaleString('en-US')} plots ≤ ${target.seconds} s: ${result.medianS} s`,
        )
      }
    } finally {
      server.rss.stop()
      await server.child.stop()
    }
  } finally {
    await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${quotaKeyPrefix}*`))
    await database.drop()
    log(`dropped database ${database.name}`)
  }
}

await main()
