import type { JobFormat, JobRecord, JobResultChunk } from '../../types.ts'
import type { ApiError } from '../errors.ts'
import type { BatchItemResult, PredictionRequest } from '../prediction-types.ts'
import type { StockingPlan, StockingPlanRequest } from '../stocking/stocking-types.ts'
import type { StreamedUpload } from '../streamed-upload.ts'

/** A row as stored with its job: its number (1 = first data row), its cells, and what to score or why not. */
export interface InputRow {
  r: number
  /** The row's values in the job's column order, as the file formats echo them in the results. */
  c: unknown[]
  q?: PredictionRequest
  /** A GeoJSON job's stand: a stocking plan to make. */
  p?: StockingPlanRequest
  /** A GeoJSON job's feature geometry, given back with its results. */
  g?: object
  /** A GeoJSON job's feature properties as sent, given back with its results. */
  o?: Record<string, unknown>
  e?: { code: 'invalid_request' | 'invalid_json'; message: string }
}

/** The columns a job's results echo, known before its first row (a CSV job's are its header's). */
export interface JobColumns {
  columns: string[]
}

/** What scoring made of one feature: a prediction's batch result, a plan, or the error that stopped it. */
export type FeatureOutcome =
  | { kind: 'prediction'; result: BatchItemResult }
  | { kind: 'plan'; plan: StockingPlan }
  | { kind: 'plan_failed'; error: ApiError }

/**
 * What one row of a job's results says, read back from the results as written (a report sums these):
 * its survival at 1, 3 and 5 years (null where not asked for or failed), its error code, and for a
 * GeoJSON job's stand the probability of meeting the standard and the confidence it was planned at.
 */
export interface ResultOutcome {
  survival: readonly [number | null, number | null, number | null]
  errorCode: string | null
  stand: { meetsProbability: number; confidence: number } | null
}

/** The shape of a job's results: the format it was uploaded in and the columns it echoes. */
export type JobShape = Pick<JobRecord, 'format' | 'columns'>

/**
 * The job files, read and written outside the domain (src/job-files, in the API contract's names): an
 * upload becomes checked rows, and a chunk's scores become its results in every download format.
 */
export interface JobFileFormats {
  /**
   * The upload's columns, then its rows, each checked alone (a row that breaks a rule carries its
   * error). Throws invalid_request when the upload as a whole cannot be read: a bad header, no rows.
   */
  read(upload: StreamedUpload): AsyncIterable<JobColumns | InputRow>
  /** What a download in `format` sends before the first chunk's results and after the last. */
  resultsFrame(job: JobShape, format: JobFormat): { header: string; trailer: string }
  /**
   * A CSV or NDJSON job's chunk, in input order. `scored` holds one result per row that passed its
   * check, in row order.
   */
  renderRows(job: JobShape, rows: readonly InputRow[], scored: Iterator<BatchItemResult>): JobResultChunk
  /**
   * A GeoJSON job's chunk, in input order. `outcomes` holds one per feature that passed its check, in
   * row order; `chunkIndex` places the chunk in the collection.
   */
  renderFeatures(
    rows: readonly InputRow[],
    outcomes: Iterator<FeatureOutcome>,
    chunkIndex: number,
  ): JobResultChunk
  /** Each row of a chunk's NDJSON results (as `renderRows` and `renderFeatures` wrote them), in order. */
  resultOutcomes(ndjson: string): Iterable<ResultOutcome>
}
