/**
 * PDF reports and planting options timed call by call (no load), on a fresh server process (compiled,
 * as `npm run start:prod` runs it): a point stocking plan as a PDF, a method comparison as a PDF, and
 * `POST /v1/plans/options` for a point over both methods and every treatment combination, and for a
 * stand of 500 ha. Each is asked once to warm it (the PDF renderer loads on the first report), then
 * BENCH_REPORT_REPEATS (30) times; the figure is the median, the client's time to the last byte. Then
 * the report of a finished job of 1,000,000 rows, asked once, with the server's peak RSS while it is
 * made (bench/job-report.ts: how the job is made without scoring a million rows).
 *
 * Run: `npm run bench:reports`. Env: BENCH_REPORT_REPEATS (30), BENCH_JOB_REPORT_ROWS (1000000),
 * BENCH_ADMIN_DATABASE_URL, BENCH_REDIS_URL. Targets: a point plan PDF ≤ 150 ms and a compare PDF ≤ 100
 * ms warm; options for a point ≤ 50 ms and for a 500 ha stand ≤ 500 ms warm; the job report ≤ 20 s in
 * ≤ 300 MB server RSS.
 */
import { openDatabase } from '../src/db/connect.ts'
import { type JobReportFigures, jobReportLines, millionRowJob, timeJobReport } from './job-report.ts'
import { seededDatabase } from './seeded-database.ts'
import { buildProject, type MeasuredProcess, startProjectServer } from './servers.ts'
import {
  deleteRedisKeys,
  listRedisKeys,
  loadAverages,
  median,
  REDIS_URL,
  randomSuffix,
  round,
} from './support.ts'

const REPEATS = Math.max(1, Number(process.env.BENCH_REPORT_REPEATS ?? 30))

const POINT = { latitude: 44.6, longitude: -123.6 }
/** About 500 ha in the Coast Range: 0.02° of latitude by 0.0281° of longitude (2.22 km each way). */
const STAND_500_HA = {
  type: 'Polygon',
  coordinates: [
    [
      [-123.614, 44.59],
      [-123.5859, 44.59],
      [-123.5859, 44.61],
      [-123.614, 44.61],
      [-123.614, 44.59],
    ],
  ],
}
const MIX = [{ species_code: 'PSME', share: 1 }]

interface Case {
  name: string
  path: string
  body: unknown
  accept: string
  targetMs: number
}

const CASES: readonly Case[] = [
  {
    name: 'point stocking plan, PDF',
    path: '/v1/plans/stocking',
    body: { ...POINT, planting_method: 'manual', species_mix: MIX, trees_per_acre: 300 },
    accept: 'application/pdf',
    targetMs: 150,
  },
  {
    name: 'method comparison, PDF',
    path: '/v1/predict/compare',
    body: { ...POINT, species_code: 'PSME' },
    accept: 'application/pdf',
    targetMs: 100,
  },
  {
    name: 'options, a point, both methods, every treatment combination',
    path: '/v1/plans/options',
    body: {
      ...POINT,
      species_mix: MIX,
      confidence: 0.9,
      treatments: {
        vegetation_control: [
          'none',
          'site_prep',
          'release_1yr',
          'release_2yr',
          'site_prep_release_1yr',
          'site_prep_release_2yr',
        ],
        animal_protection: ['none', 'mesh_tubes'],
        stock_type: ['bareroot', 'container'],
        shade: ['none', 'shade_cards'],
      },
    },
    accept: 'application/json',
    targetMs: 50,
  },
  {
    name: 'options, a 500 ha stand',
    path: '/v1/plans/options',
    body: { stand: STAND_500_HA, species_mix: MIX, confidence: 0.9 },
    accept: 'application/json',
    targetMs: 500,
  },
]

async function timed(server: MeasuredProcess, c: Case): Promise<{ ms: number; bytes: number }> {
  const started = performance.now()
  const response = await fetch(`${server.url}${c.path}`, {
    method: 'POST',
    headers: { 'x-api-key': server.apiKey, 'content-type': 'application/json', accept: c.accept },
    body: JSON.stringify(c.body),
  })
  const body = await response.arrayBuffer()
  const ms = performance.now() - started
  if (response.status !== 200)
    throw new Error(`${c.name} → ${response.status}: ${Buffer.from(body).toString().slice(0, 300)}`)
  return { ms, bytes: body.byteLength }
}

async function main(): Promise<void> {
  const started = performance.now()
  const log = (message: string) =>
    console.error(`[reports ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`)
  const database = await seededDatabase('survival_bench_reports', log)
  const quotaKeyPrefix = `bench:${randomSuffix()}:`
  try {
    buildProject(log)
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
    const results: { c: Case; firstMs: number; medianMs: number; bytes: number }[] = []
    let jobReport: JobReportFigures
    try {
      for (const c of CASES) {
        const first = await timed(server, c)
        const times: number[] = []
        for (let run = 0; run < REPEATS; run++) times.push((await timed(server, c)).ms)
        results.push({
          c,
          firstMs: round(first.ms, 1),
          medianMs: round(median(times), 1),
          bytes: first.bytes,
        })
        log(`${c.name}: first ${round(first.ms, 1)} ms, median ${round(median(times), 1)} ms`)
      }
      const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 8 })
      try {
        const job = await millionRowJob(server, db.sql, log)
        log(`job report: ${job.rows} rows in ${job.chunks} chunks written; asking for its report`)
        jobReport = await timeJobReport(server, job)
        log(`job report: ${round(jobReport.seconds, 2)} s, peak RSS ${round(jobReport.rssPeakMb, 1)} MB`)
      } finally {
        await db.close()
      }
      log(`peak RSS ${round(server.rss.max(), 1)} MB`)
    } finally {
      server.rss.stop()
      await server.child.stop()
    }
    console.log(
      `\nreports and options, medians of ${REPEATS} warm calls (load average ${loadAverages()
        .map((l) => round(l, 2))
        .join(', ')}):`,
    )
    for (const { c, firstMs, medianMs, bytes } of results)
      console.log(
        `  ${medianMs <= c.targetMs ? 'PASS' : 'FAIL'}  ${c.name} ≤ ${c.targetMs} ms: ${medianMs} ms (first ${firstMs} ms, ${round(bytes / 1e3, 1)} kB)`,
      )
    for (const line of jobReportLines(jobReport)) console.log(line)
  } finally {
    await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${quotaKeyPrefix}*`))
    await database.drop()
    log('dropped the database')
  }
}

await main()
