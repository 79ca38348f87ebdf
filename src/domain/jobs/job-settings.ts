import { JOB_DEFAULTS } from '../../config/config.ts'

const HOUR_MS = 3_600_000

export interface JobSettings {
  /** Rows per chunk: one chunk is one batch through the prediction service, with one KNN statement. */
  chunkRows: number
  maxRows: number
  /** A GeoJSON job's stands (polygon features) at most; each is a stocking plan. */
  maxStands: number
  /** How long a job and its results are kept after it was created. */
  ttlMs: number
  /** An upload still arriving after this long was abandoned (its server died): purged. */
  abandonedAfterMs: number
}

/** The settings for a deployment's JOB_CHUNK_ROWS and JOB_RESULT_TTL_HOURS; the row limits are fixed. */
export function jobSettings(chunkRows: number, resultTtlHours: number): JobSettings {
  return {
    chunkRows,
    maxRows: 1_000_000,
    maxStands: 100_000,
    ttlMs: resultTtlHours * HOUR_MS,
    abandonedAfterMs: HOUR_MS,
  }
}

export const DEFAULT_JOB_SETTINGS: JobSettings = jobSettings(
  JOB_DEFAULTS.JOB_CHUNK_ROWS,
  JOB_DEFAULTS.JOB_RESULT_TTL_HOURS,
)
