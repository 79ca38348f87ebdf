import type { NewAuditEvent } from '../../types.ts'
import type { SurveyPlot } from './surveys.ts'

/** One row of a survey upload that was refused: its number (1 = first data row or feature), field and reason. */
export interface SurveyRefusal {
  row: number
  plotId: string | null
  field: string
  code: string
  reason: string
}

export type SurveyUploadStatus = 'receiving' | 'committed' | 'refused' | 'failed'

/** A bulk survey upload as kept: what it read, refused and stored, and why it stored nothing. */
export interface SurveyUploadRecord {
  id: string
  accountId: string
  status: SurveyUploadStatus
  format: 'csv' | 'ndjson' | 'geojson'
  skipInvalid: boolean
  rowsRead: number
  rowsValid: number
  rowsRefused: number
  stored: number
  ignoredColumns: string[]
  failure: { code: string; message: string } | null
  createdAt: Date
  finishedAt: Date | null
}

/**
 * Where survey uploads stream to. Valid rows are staged beside the account's plots and reach them only
 * at `commit`, in one transaction, so an upload that stops before leaves no plot behind.
 */
export interface SurveyUploadStore {
  create(upload: {
    id: string
    accountId: string
    keyId: string
    format: SurveyUploadRecord['format']
    skipInvalid: boolean
    ignoredColumns: readonly string[]
  }): Promise<void>
  /** Stages the valid rows of one batch and records its refusals and the counts so far. */
  addBatch(
    uploadId: string,
    staged: readonly { row: number; plot: SurveyPlot }[],
    refused: readonly SurveyRefusal[],
    counts: { rowsRead: number; rowsValid: number; rowsRefused: number },
  ): Promise<void>
  /** The upload is still streaming: keeps the sweep from taking it for one a stopped server left. */
  touch(uploadId: string): Promise<void>
  /**
   * Moves the staged rows into the account's plots (the last row of a (plot_id, surveyed_on) wins) and
   * appends `event`, unless the account would then hold more than `limit`: then nothing moves.
   */
  commit(
    accountId: string,
    uploadId: string,
    limit: number,
    event: NewAuditEvent,
  ): Promise<{ stored: number } | { wouldHold: number }>
  /** Ends an upload that stored nothing, dropping its staged rows. */
  finishEmpty(
    uploadId: string,
    status: 'refused' | 'failed',
    failure: { code: string; message: string },
  ): Promise<void>
  /** The account's upload, or null when it has none of that id. */
  find(accountId: string, uploadId: string): Promise<SurveyUploadRecord | null>
  /** At most `limit` refusals of an upload, after row `afterRow`, in row order. */
  refusals(uploadId: string, afterRow: number, limit: number): Promise<SurveyRefusal[]>
  /**
   * Fails the uploads left receiving and untouched since `stalledBefore` (their server stopped), and
   * removes those finished before `expiredBefore`; how many of each.
   */
  sweep(stalledBefore: Date, expiredBefore: Date): Promise<{ stalled: number; expired: number }>
}
