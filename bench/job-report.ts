/**
 * The portfolio report of a 1,000,000-row job (GET /v1/jobs/{id}/report.pdf), timed against the
 * production-like server of bench/reports.ts with its RSS sampled, for the ≤ 20 s and ≤ 300 MB targets.
 *
 * The job is made cheaply: one chunk of BENCH_JOB_REPORT_CHUNK_ROWS (500) rows is scored for real by the
 * server (a CSV job through the API), and its stored results, every format as the worker rendered them,
 * are written again through the job store (src/db/store-ports.ts jobStore, as the worker writes a chunk)
 * as the chunks of a new job of the same account, until it holds BENCH_JOB_REPORT_ROWS rows; the job is
 * then finished as the last chunk's worker finishes it. The report reads those results as it reads any
 * job's: every chunk's NDJSON, once.
 */
import type { Sql } from '../src/db/connect.ts'
import { jobStore } from '../src/db/store-ports.ts'
import { newJobId } from '../src/domain/jobs/job-service.ts'
import { Metrics } from '../src/observability/metrics.ts'
import type { JobFormat, JobResultChunk, TierName } from '../src/types.ts'
import type { MeasuredProcess } from './servers.ts'
import { RssSampler, round } from './support.ts'

export const JOB_REPORT_ROWS = Number(process.env.BENCH_JOB_REPORT_ROWS ?? 1_000_000)
const CHUNK_ROWS = Number(process.env.BENCH_JOB_REPORT_CHUNK_ROWS ?? 500)
export const JOB_REPORT_TARGETS = { seconds: 20, rssMb: 300 } as const
/** Chunks written at once. */
const WRITERS = 8
const SPECIES = ['PSME', 'TSHE', 'THPL', 'PIPO', 'ABGR', 'PICO', 'ALRU', 'QUGA']

export interface JobReportFigures {
  rows: number
  chunks: number
  seconds: number
  bytes: number
  /** The server's RSS before the report was asked for, and its peak while it was made. */
  rssBeforeMb: number
  rssPeakMb: number
}

/** A CSV of `rows` points over western Oregon, species and methods in turn. */
function sampleCsv(rows: number): string {
  const lines = ['latitude,longitude,species_code,planting_method']
  for (let i = 0; i < rows; i++) {
    const latitude = 43.2 + (((i * 37) % 997) / 997) * 2.4
    const longitude = -123.9 + (((i * 61) % 991) / 991) * 1.5
    lines.push(
      `${latitude.toFixed(5)},${longitude.toFixed(5)},${SPECIES[i % SPECIES.length]},${i % 3 ? 'manual' : 'drone_seeded'}`,
    )
  }
  return `${lines.join('\n')}\n`
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text()
  if (!response.ok) throw new Error(`${response.url} → ${response.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as Record<string, unknown>
}

/** One chunk scored by the server, its id and its stored results. */
async function scoredChunk(server: MeasuredProcess, sql: Sql) {
  const headers = { 'x-api-key': server.apiKey }
  const accepted = await json(
    await fetch(`${server.url}/v1/jobs`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/csv' },
      body: sampleCsv(CHUNK_ROWS),
    }),
  )
  const id = accepted.id as string
  for (let waited = 0; ; waited += 100) {
    const status = await json(await fetch(`${server.url}/v1/jobs/${id}`, { headers }))
    if (status.status === 'succeeded') break
    if (status.status !== 'queued' && status.status !== 'running')
      throw new Error(`sample job ${status.status}`)
    if (waited > 120_000) throw new Error('the sample job did not finish in 2 minutes')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const [job] = await sql<
    { accountId: string; keyId: string; tier: TierName; columns: string[]; modelVersion: string }[]
  >`SELECT account_id, key_id, tier, columns, model_version FROM jobs WHERE id = ${id}`
  const [chunk] = await sql<(JobResultChunk & { dataVersion: string | null; chunks: number })[]>`
    SELECT rows_done, rows_failed, errors, csv, ndjson, geojson, data_version,
           (SELECT count(*)::int FROM job_result_chunks WHERE job_id = ${id}) AS chunks
    FROM job_result_chunks WHERE job_id = ${id} AND chunk_index = 0`
  if (!job || !chunk || chunk.chunks !== 1 || chunk.rowsDone !== CHUNK_ROWS)
    throw new Error(`the sample job is not one whole chunk of ${CHUNK_ROWS} rows`)
  return { job, chunk }
}

/** A finished job of JOB_REPORT_ROWS rows, its chunks written through the job store; its id. */
export async function millionRowJob(
  server: MeasuredProcess,
  sql: Sql,
  log: (message: string) => void,
): Promise<{ id: string; rows: number; chunks: number }> {
  const { job, chunk } = await scoredChunk(server, sql)
  const store = jobStore(sql, { DB_QUERY_TIMEOUT_MS: 120_000 }, new Metrics())
  const chunks = Math.ceil(JOB_REPORT_ROWS / CHUNK_ROWS)
  const id = newJobId()
  const now = new Date()
  await store.create({
    id,
    accountId: job.accountId,
    keyId: job.keyId,
    tier: job.tier,
    format: 'csv' satisfies JobFormat,
    columns: job.columns,
    chunkRows: CHUNK_ROWS,
    modelVersion: job.modelVersion,
    defaults: {},
    expiresAt: new Date(now.getTime() + 24 * 3_600_000),
  })
  await store.accept(id, chunks * CHUNK_ROWS, chunks)
  await store.markRunning(id, now)
  let next = 0
  const started = performance.now()
  const writer = async () => {
    for (let index = next++; index < chunks; index = next++) {
      await store.writeResultChunk(id, index, chunk, chunk.dataVersion)
      if (index % 400 === 399)
        log(
          `job report: ${(index + 1) * CHUNK_ROWS} rows written (${round((performance.now() - started) / 1000, 1)} s)`,
        )
    }
  }
  await Promise.all(Array.from({ length: WRITERS }, writer))
  if (!(await store.finishIfComplete(id, new Date()))) throw new Error('the million-row job did not finish')
  return { id, rows: chunks * CHUNK_ROWS, chunks }
}

/** GET the job's report once, timed to its last byte, with the server's RSS sampled every 50 ms. */
export async function timeJobReport(
  server: MeasuredProcess,
  job: { id: string; rows: number; chunks: number },
): Promise<JobReportFigures> {
  const sampler = new RssSampler(server.child.pid, 50)
  const rssBeforeMb = sampler.reset()
  try {
    const started = performance.now()
    const response = await fetch(`${server.url}/v1/jobs/${job.id}/report.pdf`, {
      headers: { 'x-api-key': server.apiKey, 'accept-language': 'en-US' },
    })
    const body = await response.arrayBuffer()
    const seconds = (performance.now() - started) / 1000
    if (response.status !== 200 || response.headers.get('content-type') !== 'application/pdf')
      throw new Error(`job report → ${response.status}: ${Buffer.from(body).toString().slice(0, 300)}`)
    return { ...job, seconds, bytes: body.byteLength, rssBeforeMb, rssPeakMb: sampler.reset() }
  } finally {
    sampler.stop()
  }
}

/** The verdict lines, as the other cases print theirs. */
export function jobReportLines(figures: JobReportFigures): string[] {
  const { seconds, rssMb } = JOB_REPORT_TARGETS
  const rows = figures.rows.toLocaleString('en-US')
  return [
    `  ${figures.seconds <= seconds ? 'PASS' : 'FAIL'}  job report of ${rows} rows ≤ ${seconds} s: ${round(figures.seconds, 2)} s (${figures.chunks} chunks, ${round(figures.bytes / 1e3, 1)} kB)`,
    `  ${figures.rssPeakMb <= rssMb ? 'PASS' : 'FAIL'}  job report of ${rows} rows, server RSS ≤ ${rssMb} MB: peak ${round(figures.rssPeakMb, 1)} MB (before it ${round(figures.rssBeforeMb, 1)} MB)`,
  ]
}
