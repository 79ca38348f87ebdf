import type { JobFormat, JobOutline, JobRecord, JobResultChunk, NewJob } from '../types.ts'
import type { Sql } from './connect.ts'

interface JobRow {
  id: string
  accountId: string
  tier: JobRecord['tier']
  format: JobFormat
  columns: string[]
  modelVersion: string
  defaults: Record<string, string> | null
  status: JobRecord['status']
  rowsTotal: number
  chunkRows: number
  chunksTotal: number
  chunksDone: number
  rowsDone: number
  rowsFailed: number
  errorsByCode: Record<string, number> | null
  dataVersions: string[] | null
  failure: string | null
  createdAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  expiresAt: Date
}

export async function createJob(sql: Sql, job: NewJob): Promise<void> {
  await sql`
    INSERT INTO jobs (id, account_id, key_id, tier, format, columns, status, chunk_rows, expires_at,
                      model_version, defaults)
    VALUES (${job.id}, ${job.accountId}, ${job.keyId}, ${job.tier}, ${job.format},
            ${job.columns}::text[], 'receiving', ${job.chunkRows}, ${job.expiresAt}, ${job.modelVersion},
            ${sql.json(job.defaults)})`
}

export async function addInputChunk(
  sql: Sql,
  jobId: string,
  chunkIndex: number,
  firstRow: number,
  rows: string,
): Promise<void> {
  await sql`
    INSERT INTO job_input_chunks (job_id, chunk_index, first_row, rows)
    VALUES (${jobId}, ${chunkIndex}, ${firstRow}, ${rows})`
}

export async function acceptJob(sql: Sql, jobId: string, rowsTotal: number, chunksTotal: number) {
  await sql`
    UPDATE jobs SET status = 'queued', rows_total = ${rowsTotal}, chunks_total = ${chunksTotal}
    WHERE id = ${jobId} AND status = 'receiving'`
}

export async function removeJob(sql: Sql, jobId: string): Promise<void> {
  await sql`DELETE FROM jobs WHERE id = ${jobId}`
}

/** The job with its progress summed over the result chunks written so far. */
export async function findJob(sql: Sql, jobId: string): Promise<JobRecord | null> {
  const [row] = await sql<JobRow[]>`
    SELECT j.id, j.account_id, j.tier, j.format, j.columns, j.model_version, j.defaults, j.status, j.rows_total, j.chunk_rows,
           j.chunks_total, j.failure, j.created_at, j.started_at, j.finished_at, j.expires_at,
           coalesce(p.chunks_done, 0)::int AS chunks_done, coalesce(p.rows_done, 0)::int AS rows_done,
           coalesce(p.rows_failed, 0)::int AS rows_failed,
           (SELECT jsonb_object_agg(code, total) FROM (
              SELECT e.key AS code, sum(e.value::int)::int AS total
              FROM job_result_chunks r, jsonb_each_text(r.errors) e
              WHERE r.job_id = j.id GROUP BY e.key) codes) AS errors_by_code,
           (SELECT array_agg(version ORDER BY first_chunk) FROM (
              SELECT r.data_version AS version, min(r.chunk_index) AS first_chunk
              FROM job_result_chunks r WHERE r.job_id = j.id AND r.data_version IS NOT NULL
              GROUP BY r.data_version) seen) AS data_versions
    FROM jobs j
    LEFT JOIN LATERAL (
      SELECT count(*) AS chunks_done, sum(rows_done) AS rows_done, sum(rows_failed) AS rows_failed
      FROM job_result_chunks r WHERE r.job_id = j.id
    ) p ON true
    WHERE j.id = ${jobId}`
  if (!row) return null
  return {
    ...row,
    defaults: row.defaults ?? {},
    errorsByCode: row.errorsByCode ?? {},
    dataVersions: row.dataVersions ?? [],
  }
}

/** One row by its key: a chunk's worker reads this rather than findJob's sums over every chunk. */
export async function findJobOutline(sql: Sql, jobId: string): Promise<JobOutline | null> {
  const [row] = await sql<JobOutline[]>`
    SELECT status, format, columns, account_id, model_version FROM jobs WHERE id = ${jobId}`
  return row ?? null
}

export async function markJobRunning(sql: Sql, jobId: string, at: Date): Promise<boolean> {
  const [row] = await sql<{ status: string }[]>`
    UPDATE jobs SET status = 'running', started_at = coalesce(started_at, ${at})
    WHERE id = ${jobId} AND status IN ('queued', 'running')
    RETURNING status`
  return row !== undefined
}

export async function inputChunk(sql: Sql, jobId: string, chunkIndex: number): Promise<string | null> {
  const [row] = await sql<{ rows: string }[]>`
    SELECT rows FROM job_input_chunks WHERE job_id = ${jobId} AND chunk_index = ${chunkIndex}`
  return row?.rows ?? null
}

/** One statement, so a chunk's results are there whole or not at all; a second write changes nothing. */
export async function writeResultChunk(
  sql: Sql,
  jobId: string,
  chunkIndex: number,
  result: JobResultChunk,
  dataVersion: string | null = null,
): Promise<boolean> {
  const inserted = await sql`
    INSERT INTO job_result_chunks
      (job_id, chunk_index, rows_done, rows_failed, errors, csv, csv_bytes, ndjson, ndjson_bytes, geojson, geojson_bytes,
       data_version)
    SELECT ${jobId}, ${chunkIndex}, ${result.rowsDone}, ${result.rowsFailed}, ${sql.json(result.errors)},
           ${result.csv}, ${Buffer.byteLength(result.csv)}, ${result.ndjson}, ${Buffer.byteLength(result.ndjson)},
           ${result.geojson}, ${Buffer.byteLength(result.geojson)}, ${dataVersion}
    WHERE EXISTS (SELECT 1 FROM jobs WHERE id = ${jobId})
    ON CONFLICT (job_id, chunk_index) DO NOTHING`
  return inserted.count === 1
}

export async function finishJobIfComplete(sql: Sql, jobId: string, at: Date): Promise<boolean> {
  const finished = await sql`
    UPDATE jobs SET status = 'succeeded', finished_at = ${at}
    WHERE id = ${jobId} AND status = 'running'
      AND chunks_total = (SELECT count(*) FROM job_result_chunks WHERE job_id = ${jobId})`
  return finished.count === 1
}

export async function failJob(sql: Sql, jobId: string, reason: string, at: Date): Promise<void> {
  await sql`
    UPDATE jobs SET status = 'failed', failure = ${reason}, finished_at = ${at}
    WHERE id = ${jobId} AND status IN ('queued', 'running')`
}

export async function cancelJob(sql: Sql, jobId: string, at: Date): Promise<boolean> {
  const cancelled = await sql`
    UPDATE jobs SET status = 'cancelled', finished_at = ${at}
    WHERE id = ${jobId} AND status IN ('queued', 'running')`
  return cancelled.count === 1
}

export async function pendingChunks(sql: Sql): Promise<{ jobId: string; chunkIndex: number }[]> {
  return sql<{ jobId: string; chunkIndex: number }[]>`
    SELECT j.id AS job_id, c.chunk_index
    FROM jobs j
    JOIN job_input_chunks c ON c.job_id = j.id
    WHERE j.status IN ('queued', 'running')
      AND NOT EXISTS (SELECT 1 FROM job_result_chunks r WHERE r.job_id = j.id AND r.chunk_index = c.chunk_index)
    ORDER BY j.created_at, c.chunk_index`
}

export async function resultSizes(sql: Sql, jobId: string, format: JobFormat): Promise<number[]> {
  const bytes = sql(`${format}_bytes`)
  const rows = await sql<{ bytes: number }[]>`
    SELECT ${bytes} AS bytes FROM job_result_chunks WHERE job_id = ${jobId} ORDER BY chunk_index`
  return rows.map((row) => row.bytes)
}

export async function resultTexts(
  sql: Sql,
  jobId: string,
  format: JobFormat,
  from: number,
  count: number,
): Promise<string[]> {
  const rows = await sql<{ text: string }[]>`
    SELECT ${sql(format)} AS text FROM job_result_chunks
    WHERE job_id = ${jobId} AND chunk_index >= ${from} AND chunk_index < ${from + count}
    ORDER BY chunk_index`
  return rows.map((row) => row.text)
}

export async function purgeJobs(sql: Sql, now: Date, abandonedBefore: Date): Promise<number> {
  const purged = await sql`
    DELETE FROM jobs
    WHERE expires_at < ${now} OR (status = 'receiving' AND created_at < ${abandonedBefore})`
  return purged.count
}
