/**
 * Scoring through a job: the file is streamed up (`POST /v1/jobs`), the job polled until it is final,
 * and its results streamed into the output. The job id goes into the state file as soon as the server
 * accepts the upload; a rerun re-attaches to that job and continues the download from the bytes
 * already in the output (`Range`), as long as the results' ETag is the one it started with. With
 * `--period`/`--scenario`, the rows are streamed up as `readRows` reads them, the climate filled in. A
 * GeoJSON input goes up as the file is, its defaults as query parameters; its results come as the
 * output's extension asks (GeoJSON, or CSV/NDJSON by the features' centres).
 */
import { open, stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import type { Job, JobAccepted } from '../client.ts'
import { SurvivalApiError } from '../errors.ts'
import { uploadText } from './rows.ts'
import type { RunContext, RunOutcome } from './run.ts'
import { saveState } from './state.ts'

export interface JobOptions {
  /** Between status polls (default 1000 ms). */
  pollMs?: number
}

/** A job that ended other than succeeded, or a job the server no longer has. */
export class JobEndedError extends Error {}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size
  } catch {
    return 0
  }
}

export async function scoreByJob(run: RunContext, options: JobOptions = {}): Promise<RunOutcome> {
  const { client, state, signal, progress } = run
  const unit = run.inputFormat === 'geojson' ? 'features' : 'rows'
  const interrupted = (rows = 0): RunOutcome => ({ interrupted: true, rows, failed: 0, errorsByCode: {} })
  try {
    let job: Job | null = null
    let rowsTotal: number | null = null
    if (state.job_id) {
      try {
        job = await client.getJob(state.job_id, { signal })
        run.note(`Re-attaching to job ${job.id} (${job.status})`)
      } catch (error) {
        if (!(error instanceof SurvivalApiError && error.status === 404)) throw error
        run.note(`Job ${state.job_id} is gone (expired or deleted); starting a new one`)
        Object.assign(state, { job_id: undefined, etag: null, bytes_written: 0 })
      }
    }
    if (!state.job_id) {
      progress.start('uploading', 'bytes', (await stat(run.input)).size)
      let created: JobAccepted
      try {
        // The file as it is (retried on 429/503: it is reopened), or its rows with the climate filled in
        // (sent once), the progress then counting the bytes of the file read. GeoJSON: the file as it
        // is, with its defaults as query parameters.
        const format = run.inputFormat
        if (format === 'geojson') {
          created = await client.uploadGeoJsonJob(run.input, {
            ...(run.defaults ? { defaults: run.defaults } : {}),
            signal,
            onProgress: (bytes) => progress.update(bytes),
          })
        } else {
          const body = run.climate
            ? Readable.from(
                uploadText(run.input, format, {
                  climate: run.climate,
                  onBytesRead: (bytes) => progress.update(bytes),
                }),
                { objectMode: false },
              )
            : run.input
          created = await client.uploadJob(body, {
            format,
            ...(run.treatments ? { defaults: run.treatments } : {}),
            signal,
            onProgress: run.climate ? undefined : (bytes) => progress.update(bytes),
          })
        }
      } finally {
        progress.stop()
      }
      Object.assign(state, { job_id: created.id, etag: null, bytes_written: 0 })
      saveState(run.out, state)
      run.note(`Job ${created.id}: ${created.rows.toLocaleString('en-US')} ${unit} queued`)
      rowsTotal = created.rows
    }
    const id = state.job_id as string

    if (!job || (job.status !== 'succeeded' && job.status !== 'failed' && job.status !== 'cancelled')) {
      progress.start('scoring', unit, job?.rows_total ?? rowsTotal, job?.rows_done ?? 0)
      try {
        job = await client.waitForJob(id, {
          signal,
          pollMs: options.pollMs,
          onProgress: (status) => progress.update(status.rows_done, status.rows_total),
        })
      } finally {
        progress.stop()
      }
    }
    if (job.status !== 'succeeded') throw new JobEndedError(`Job ${id} ${job.status}`)

    // Carry on from the bytes already in the output, only if it is the download this state began.
    let from = state.etag ? await sizeOf(run.out) : 0
    let results = await client.streamResults(id, { format: run.outFormat, from, signal })
    if (
      from > 0 &&
      (results.etag !== state.etag || (results.totalBytes !== null && from > results.totalBytes))
    ) {
      results.destroy()
      run.note('The results changed since the download began; downloading them again')
      from = 0
      results = await client.streamResults(id, { format: run.outFormat, signal })
    }
    if (from > 0) run.note(`Resuming the download at byte ${from.toLocaleString('en-US')}`)
    state.etag = results.etag
    state.bytes_written = from
    saveState(run.out, state)

    const file = await open(run.out, from > 0 ? 'r+' : 'w')
    progress.start('downloading', 'bytes', results.totalBytes, from)
    let offset = from
    let savedAt = Date.now()
    try {
      await file.truncate(from)
      for await (const chunk of results as AsyncIterable<Buffer>) {
        await file.write(chunk, 0, chunk.length, offset)
        offset += chunk.length
        progress.update(offset)
        if (Date.now() - savedAt >= 1000) {
          state.bytes_written = offset
          saveState(run.out, state)
          savedAt = Date.now()
        }
      }
    } finally {
      state.bytes_written = offset
      saveState(run.out, state)
      progress.stop()
      await file.close()
    }
    return {
      interrupted: false,
      rows: job.rows_total,
      failed: job.rows_failed,
      errorsByCode: job.errors_by_code as Record<string, number>,
    }
  } catch (error) {
    if (signal.aborted) return interrupted()
    throw error
  }
}
