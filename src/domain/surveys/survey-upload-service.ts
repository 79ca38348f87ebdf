import { randomBytes } from 'node:crypto'
import { ApiError, apiError, ClientClosedError, invalidField } from '../errors.ts'
import { holderActor } from '../holder-actor.ts'
import type { SurveyRefusal, SurveyUploadRecord, SurveyUploadStore } from '../ports/survey-uploads.ts'
import type { PredictionService } from '../prediction-service.ts'
import type { StreamedUpload } from '../streamed-upload.ts'
import { fieldOfRefusal, predictSurveyPlots } from './plot-predictions.ts'
import {
  type CheckedSurveyPlot,
  checkSurveyPlot,
  SURVEY_PLOTS_BY_TIER,
  type SurveyPlot,
  type SurveyPlotInput,
} from './survey-plot.ts'
import type { SurveyWriter } from './survey-service.ts'

/**
 * What an upload's file format makes of it, in order: a CSV upload first names the columns it ignores;
 * then each row (numbered from 1), read into a plot or refused with the field and reason.
 */
export type SurveyUploadItem =
  | { ignoredColumns: string[] }
  | { row: number; plot: SurveyPlotInput }
  | { row: number; refused: Omit<SurveyRefusal, 'row'> }

/** The survey upload files (src/survey-files): an upload, already split into records, as its items. */
export interface SurveyFileFormats {
  /** Throws invalid_request when the upload as a whole cannot be read (a CSV header without a column). */
  read(upload: StreamedUpload): AsyncIterable<SurveyUploadItem>
}

/** An upload and a page of its refused rows, in row order; `nextCursor` pages on (null on the last page). */
export interface SurveyUploadView {
  upload: SurveyUploadRecord
  refused: SurveyRefusal[]
  nextCursor: string | null
}

export const SURVEY_UPLOAD_SETTINGS = {
  /** Rows checked, predicted and staged together. */
  batchRows: 1000,
  /** Data rows one upload may hold: the largest tier's plots. */
  maxRows: 1_000_000,
  /** How often a streaming upload tells the store it is alive. */
  heartbeatMs: 30_000,
  /** An upload left receiving this long without a sign of life belonged to a server that stopped. */
  stalledAfterMs: 5 * 60_000,
  /** Finished uploads (and their refused rows) are kept this long. */
  keptForMs: 30 * 86_400_000,
}

/** Refused rows shown in an upload's answer and in each page of GET /v1/surveys/uploads/{id}. */
export const REFUSALS_PAGE_DEFAULT = 100
export const REFUSALS_PAGE_MAX = 1000

export function newSurveyUploadId(): string {
  return `upl_${randomBytes(12).toString('hex')}`
}

/** Why a row failed its own rules (checkSurveyPlot) or the prediction, as its refusal. */
function refusalOf(row: number, plot: SurveyPlotInput, error: ApiError): SurveyRefusal {
  const details = (error.details ?? {}) as { field?: unknown; reason?: unknown }
  if (error.code === 'invalid_request' && typeof details.field === 'string')
    return {
      row,
      plotId: plot.plotId,
      field: details.field,
      code: error.code,
      reason: String(details.reason),
    }
  return { row, plotId: plot.plotId, field: fieldOfRefusal(error), code: error.code, reason: error.message }
}

/**
 * Bulk survey uploads: rows streamed in, checked and matched as POST /v1/surveys checks them, staged
 * a batch at a time, and stored together at the end — every valid row, or (any row refused, without
 * skip_invalid; the account's limit passed) none. An upload that stops early stores nothing.
 */
export class SurveyUploadService {
  constructor(
    private readonly store: SurveyUploadStore,
    private readonly files: SurveyFileFormats,
    private readonly predictions: PredictionService,
    /** The server's secret (ADDRESS_HASH_KEY) that client addresses are hashed under. */
    private readonly addressHashKey: string,
    private readonly now: () => Date = () => new Date(),
    private readonly settings = SURVEY_UPLOAD_SETTINGS,
  ) {}

  async upload(
    writer: SurveyWriter,
    upload: StreamedUpload,
    skipInvalid: boolean,
  ): Promise<SurveyUploadView> {
    const id = newSurveyUploadId()
    let created = false
    let ignoredColumns: string[] = []
    const counts = { rowsRead: 0, rowsValid: 0, rowsRefused: 0 }
    let batch: { row: number; plot: SurveyPlotInput }[] = []
    let refusedInBatch: SurveyRefusal[] = []
    const heartbeat = setInterval(() => {
      if (created) void this.store.touch(id).catch(() => {})
    }, this.settings.heartbeatMs)
    heartbeat.unref()

    // One batch is written while the next is read and predicted; its failure surfaces at the next write.
    let writing: Promise<void> = Promise.resolve()
    const flush = async () => {
      const rows = batch
      const refusedReading = refusedInBatch
      batch = []
      refusedInBatch = []
      const { staged, refused } = await this.checked(rows)
      counts.rowsValid += staged.length
      counts.rowsRefused += refused.length
      const sofar = { ...counts }
      await writing
      writing = this.store.addBatch(id, staged, [...refusedReading, ...refused], sofar)
      writing.catch(() => {})
    }
    try {
      for await (const item of this.files.read(upload)) {
        if ('ignoredColumns' in item) {
          ignoredColumns = item.ignoredColumns
          continue
        }
        if (!created) {
          await this.store.create({
            id,
            accountId: writer.accountId,
            keyId: writer.keyId,
            format: upload.format,
            skipInvalid,
            ignoredColumns,
          })
          created = true
        }
        counts.rowsRead += 1
        if (counts.rowsRead > this.settings.maxRows)
          throw apiError(
            'payload_too_large',
            { maxRows: this.settings.maxRows },
            { details: { max_rows: this.settings.maxRows }, headers: { connection: 'close' } },
          )
        if ('refused' in item) {
          counts.rowsRefused += 1
          refusedInBatch.push({ row: item.row, ...item.refused })
        } else batch.push(item)
        if (batch.length + refusedInBatch.length >= this.settings.batchRows) await flush()
      }
      if (!created) throw invalidField('body', 'holds no rows')
      await flush()
      await writing
      return await this.finish(writer, id, skipInvalid, counts)
    } catch (error) {
      // A batch still being written must land before the staged rows are dropped.
      await writing.catch(() => {})
      if (created) await this.failed(id, error)
      throw error
    } finally {
      clearInterval(heartbeat)
    }
  }

  /** The batch's rows that pass their rules and the prediction, as kept; the others refused. */
  private async checked(batch: readonly { row: number; plot: SurveyPlotInput }[]) {
    const today = this.now()
    const refused: SurveyRefusal[] = []
    const rows: { row: number; plot: CheckedSurveyPlot }[] = []
    for (const { row, plot } of batch) {
      try {
        rows.push({ row, plot: checkSurveyPlot(plot, row, today) })
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        refused.push(refusalOf(row, plot, error))
      }
    }
    const staged: { row: number; plot: SurveyPlot }[] = []
    if (rows.length === 0) return { staged, refused }
    const outcomes = await predictSurveyPlots(
      this.predictions,
      rows.map(({ plot }) => plot),
      today,
    )
    for (const outcome of outcomes) {
      const { row, plot } = rows[outcome.index] as (typeof rows)[number]
      if (outcome.ok) staged.push({ row, plot: outcome.plot })
      else refused.push(refusalOf(row, plot, outcome.error))
    }
    return { staged, refused }
  }

  private async finish(
    writer: SurveyWriter,
    id: string,
    skipInvalid: boolean,
    counts: { rowsRead: number; rowsRefused: number },
  ): Promise<SurveyUploadView> {
    if (counts.rowsRefused > 0 && !skipInvalid) {
      const firstRefused = await this.store.refusals(id, 0, REFUSALS_PAGE_DEFAULT)
      const error = apiError(
        'survey_upload_refused',
        { upload: id, refused: counts.rowsRefused, rows: counts.rowsRead },
        {
          details: {
            upload_id: id,
            rows: counts.rowsRead,
            refused_rows: counts.rowsRefused,
            refused: firstRefused.map(refusalJson),
          },
        },
      )
      await this.store.finishEmpty(id, 'refused', { code: error.code, message: error.message })
      throw error
    }
    const limit = SURVEY_PLOTS_BY_TIER[writer.tierName] ?? 0
    const outcome = await this.store.commit(writer.accountId, id, limit, {
      accountId: writer.accountId,
      kind: 'survey.stored',
      actor: holderActor(this.addressHashKey, writer),
      details: { upload_id: id },
    })
    if ('wouldHold' in outcome) {
      const error = apiError(
        'survey_limit_reached',
        { tier: writer.tierName, limit, wouldHold: outcome.wouldHold },
        { details: { upload_id: id } },
      )
      await this.store.finishEmpty(id, 'refused', { code: error.code, message: error.message })
      throw error
    }
    return this.view(writer.accountId, id, null, REFUSALS_PAGE_DEFAULT)
  }

  /** Records why an upload stored nothing; a store that is away leaves it to the sweep. */
  private async failed(id: string, error: unknown) {
    const failure =
      error instanceof ApiError
        ? { code: error.code, message: error.message }
        : error instanceof ClientClosedError
          ? { code: 'client_closed', message: 'The client closed the connection before the upload ended' }
          : { code: 'internal_error', message: 'The upload failed on the server; nothing was stored' }
    await this.store.finishEmpty(id, 'failed', failure).catch(() => {})
  }

  /** The account's upload with a page of its refused rows after `cursor`; not_found for another account's. */
  async view(accountId: string, id: string, cursor: string | null, limit: number): Promise<SurveyUploadView> {
    const afterRow = cursor === null ? 0 : rowOfCursor(cursor)
    const upload = await this.store.find(accountId, id)
    if (!upload) throw apiError('not_found', { upload: id })
    const page = await this.store.refusals(id, afterRow, limit + 1)
    const refused = page.slice(0, limit)
    const last = refused.at(-1)
    return { upload, refused, nextCursor: page.length > limit && last ? refusalCursor(last.row) : null }
  }

  /** Stalled uploads failed, expired ones removed (each server runs it every minute). */
  sweep(): Promise<{ stalled: number; expired: number }> {
    const now = this.now().getTime()
    return this.store.sweep(
      new Date(now - this.settings.stalledAfterMs),
      new Date(now - this.settings.keptForMs),
    )
  }
}

/** The page cursor of an upload's refused rows: the last row shown, base64url. */
function refusalCursor(row: number): string {
  return Buffer.from(`row:${row}`).toString('base64url')
}

function rowOfCursor(cursor: string): number {
  const match = /^row:(\d{1,7})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (!match) throw invalidField('cursor', 'is not a cursor this upload handed out')
  return Number(match[1])
}

/** A refused row under the API contract's names. */
export function refusalJson(refusal: SurveyRefusal) {
  return {
    row: refusal.row,
    plot_id: refusal.plotId,
    field: refusal.field,
    code: refusal.code,
    reason: refusal.reason,
  }
}
