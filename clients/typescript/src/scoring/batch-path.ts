/**
 * Scoring through `POST /v1/predict/batch`: the input is read as a stream and cut into groups of at
 * most the tier's batch size of rows to score (rows that failed their check ride along, unsent); a
 * few groups are in flight at once, and their lines are written in input order as each one's turn
 * comes. After every group the state file records the rows and bytes written, so Ctrl-C (or a
 * failure) resumes after the last complete row.
 */
import { open } from 'node:fs/promises'
import type { BatchResponse } from '../client.ts'
import { SurvivalApiError } from '../errors.ts'
import { type OutputFormat, outputHeader, outputLine, resultCells, resultsAt } from './output.ts'
import { type InputRow, type RowFormat, readColumns, readRows } from './rows.ts'
import { addCounts, type RunContext, type RunOutcome } from './run.ts'
import { saveState } from './state.ts'

type BatchItem = BatchResponse['results'][number]

export interface BatchOptions {
  batchSize: number
  totalRows: number
  /** Batch requests in flight at once (default 4). */
  concurrency?: number
}

interface Scored {
  text: string
  rows: number
  errors: Record<string, number>
}

/** At most 10 batches' worth of rows in one group, however many of them fail their check. */
const GROUP_ROWS_PER_BATCH = 10

async function* groups(rows: AsyncIterable<InputRow>, skip: number, batchSize: number) {
  let group: InputRow[] = []
  let toSend = 0
  for await (const row of rows) {
    if (row.row <= skip) continue
    group.push(row)
    if (row.request) toSend += 1
    if (toSend === batchSize || group.length >= batchSize * GROUP_ROWS_PER_BATCH) {
      yield group
      group = []
      toSend = 0
    }
  }
  if (group.length > 0) yield group
}

/** The item a whole-batch `400 invalid_request` names (`sites[3].latitude`), if it names one. */
function rejectedItem(error: unknown): number | null {
  if (!(error instanceof SurvivalApiError) || error.status !== 400 || error.code !== 'invalid_request')
    return null
  const match = /^sites\[(\d+)\]/.exec(String(error.details?.field ?? ''))
  return match ? Number(match[1]) : null
}

export async function scoreByBatches(run: RunContext, options: BatchOptions): Promise<RunOutcome> {
  const { client, state, signal } = run
  // GeoJSON goes through a job only: its stands are plans, and GeoJSON output is the job's.
  if (run.inputFormat === 'geojson' || run.outFormat === 'geojson')
    throw new Error('GeoJSON input and output go through a job, not batch calls')
  const inputFormat: RowFormat = run.inputFormat
  const outFormat: Exclude<OutputFormat, 'geojson'> = run.outFormat
  const columns = await readColumns(run.input, inputFormat, run.climate)
  const at = resultsAt(inputFormat, columns)

  /** Scores one group (a row the server refuses alone is marked invalid_request and the rest resent). */
  async function score(group: InputRow[]): Promise<Scored> {
    const items = new Map<InputRow, BatchItem>()
    let pending = group.filter((row) => row.request)
    while (pending.length > 0) {
      try {
        const { results } = await client.batch(
          pending.map((row) => row.request as NonNullable<InputRow['request']>),
          { signal },
        )
        for (const item of results) items.set(pending[item.index] as InputRow, item)
        break
      } catch (error) {
        const index = rejectedItem(error)
        const row = index === null ? undefined : pending[index]
        if (!row) throw error
        row.error = { code: 'invalid_request', message: (error as Error).message }
        row.request = undefined
        pending = pending.filter((other) => other !== row)
      }
    }
    let text = ''
    const errors: Record<string, number> = {}
    for (const row of group) {
      const results = resultCells(row, items.get(row))
      const code = results[results.length - 1] as string | null
      if (code) errors[code] = (errors[code] ?? 0) + 1
      text += outputLine(outFormat, columns, row, results, at)
    }
    return { text, rows: group.length, errors }
  }

  let complete = false
  const file = await open(run.out, state.bytes_written > 0 ? 'r+' : 'w')
  try {
    // Whatever followed the last complete row (a write cut short) goes.
    await file.truncate(state.bytes_written)
    let offset = state.bytes_written
    const append = async (text: string) => {
      const bytes = Buffer.from(text)
      await file.write(bytes, 0, bytes.length, offset)
      offset += bytes.length
    }
    if (offset === 0) {
      await append(outputHeader(outFormat, columns, at))
      state.bytes_written = offset
      saveState(run.out, state)
    } else if (state.rows_written > 0) {
      run.note(`Resuming after row ${state.rows_written.toLocaleString('en-US')} of ${run.out}`)
    }

    run.progress.start('', 'rows', options.totalRows, state.rows_written)
    const write = async (scored: Scored) => {
      await append(scored.text)
      state.rows_written += scored.rows
      state.bytes_written = offset
      addCounts(state.errors_by_code, scored.errors)
      saveState(run.out, state)
      run.progress.update(state.rows_written)
    }

    const inFlight: Promise<Scored>[] = []
    const concurrency = Math.max(1, options.concurrency ?? 4)
    try {
      for await (const group of groups(
        readRows(run.input, inputFormat, {
          climate: run.climate,
          treatments: run.treatments,
        }),
        state.rows_written,
        options.batchSize,
      )) {
        if (signal.aborted) break
        const scoring = score(group)
        scoring.catch(() => {}) // awaited in turn below; a later one's failure must not go unhandled
        inFlight.push(scoring)
        if (inFlight.length >= concurrency) await write(await (inFlight.shift() as Promise<Scored>))
      }
      while (inFlight.length > 0 && !signal.aborted) await write(await (inFlight.shift() as Promise<Scored>))
      complete = inFlight.length === 0
    } catch (error) {
      if (!signal.aborted) throw error
    } finally {
      run.progress.stop()
    }
  } finally {
    await file.close()
  }
  const failed = Object.values(state.errors_by_code).reduce((sum, count) => sum + count, 0)
  return { interrupted: !complete, rows: state.rows_written, failed, errorsByCode: state.errors_by_code }
}
