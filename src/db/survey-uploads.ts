import type { SurveyRefusal, SurveyUploadRecord, SurveyUploadStore } from '../domain/ports/survey-uploads.ts'
import type { SurveyPlot } from '../domain/ports/surveys.ts'
import type { NewAuditEvent } from '../types.ts'
import { appendAuditEvent } from './audit.ts'
import type { Sql } from './connect.ts'
import { heldSurveys, lockSurveyAccount, moveStagedSurveys, OverLimit, plotColumns } from './surveys.ts'

/*
 * Bulk survey uploads (sql/014_survey_uploads.sql). Rows are staged in survey_upload_rows as the body
 * streams, and moved into survey_plots by one statement in one transaction at the end.
 */

/** The commit moves up to a million rows: it may take longer than a request's query deadline. */
export const COMMIT_STATEMENT_TIMEOUT_MS = 300_000

type Upload = Parameters<SurveyUploadStore['create']>[0]

export async function createSurveyUpload(sql: Sql, upload: Upload): Promise<void> {
  await sql`
    INSERT INTO survey_uploads (id, account_id, key_id, status, format, skip_invalid, ignored_columns)
    VALUES (${upload.id}, ${upload.accountId}, ${upload.keyId}, 'receiving', ${upload.format},
            ${upload.skipInvalid}, ${upload.ignoredColumns as string[]}::text[])`
}

export async function addSurveyUploadBatch(
  sql: Sql,
  uploadId: string,
  staged: readonly { row: number; plot: SurveyPlot }[],
  refused: readonly SurveyRefusal[],
  counts: { rowsRead: number; rowsValid: number; rowsRefused: number },
): Promise<void> {
  const rows = staged.map(({ row, plot }) => ({ upload_id: uploadId, row_number: row, ...plotColumns(plot) }))
  const refusals = refused.map((refusal) => ({
    upload_id: uploadId,
    row_number: refusal.row,
    plot_id: refusal.plotId,
    field: refusal.field,
    code: refusal.code,
    reason: refusal.reason,
  }))
  await sql.begin(async (tx) => {
    const t = tx as unknown as Sql
    // One JSON parameter, not 20 per row: building a statement of 20,000 parameters cost more than the rest of an upload.
    if (rows.length > 0)
      await t`
        INSERT INTO survey_upload_rows
        SELECT * FROM json_populate_recordset(null::survey_upload_rows, ${t.json(rows)}::json)`
    if (refusals.length > 0) await t`INSERT INTO survey_upload_refusals ${t(refusals)}`
    await t`
      UPDATE survey_uploads SET rows_read = ${counts.rowsRead}, rows_valid = ${counts.rowsValid},
        rows_refused = ${counts.rowsRefused}, touched_at = now()
      WHERE id = ${uploadId}`
  })
}

export async function touchSurveyUpload(sql: Sql, uploadId: string): Promise<void> {
  await sql`UPDATE survey_uploads SET touched_at = now() WHERE id = ${uploadId} AND status = 'receiving'`
}

export async function commitSurveyUpload(
  sql: Sql,
  accountId: string,
  uploadId: string,
  limit: number,
  event: NewAuditEvent,
): Promise<{ stored: number } | { wouldHold: number }> {
  try {
    return await sql.begin(async (tx) => {
      const t = tx as unknown as Sql
      await t`SELECT set_config('statement_timeout', ${String(COMMIT_STATEMENT_TIMEOUT_MS)}, true)`
      await lockSurveyAccount(t, accountId)
      const moved = await moveStagedSurveys(t, accountId, uploadId)
      const count = await heldSurveys(t, accountId)
      // Thrown to roll the move back: an upload that would pass the limit stores nothing.
      if (count > limit) throw new OverLimit(count)
      await t`DELETE FROM survey_upload_rows WHERE upload_id = ${uploadId}`
      await t`
        UPDATE survey_uploads SET status = 'committed', stored = ${moved}, finished_at = now(),
          touched_at = now()
        WHERE id = ${uploadId}`
      if (moved > 0) await appendAuditEvent(t, { ...event, details: { ...event.details, surveys: moved } })
      return { stored: moved }
    })
  } catch (error) {
    if (error instanceof OverLimit) return { wouldHold: error.wouldHold }
    throw error
  }
}

export async function finishEmptySurveyUpload(
  sql: Sql,
  uploadId: string,
  status: 'refused' | 'failed',
  failure: { code: string; message: string },
): Promise<void> {
  await sql.begin(async (tx) => {
    const t = tx as unknown as Sql
    await t`DELETE FROM survey_upload_rows WHERE upload_id = ${uploadId}`
    await t`
      UPDATE survey_uploads SET status = ${status}, failure = ${t.json(failure)}, stored = 0,
        finished_at = now(), touched_at = now()
      WHERE id = ${uploadId} AND status = 'receiving'`
  })
}

export async function findSurveyUpload(
  sql: Sql,
  accountId: string,
  uploadId: string,
): Promise<SurveyUploadRecord | null> {
  const [upload] = await sql<SurveyUploadRecord[]>`
    SELECT id, account_id, status, format, skip_invalid, rows_read, rows_valid, rows_refused, stored,
           ignored_columns, failure, created_at, finished_at
    FROM survey_uploads WHERE id = ${uploadId} AND account_id = ${accountId}`
  return upload ?? null
}

export function surveyUploadRefusals(
  sql: Sql,
  uploadId: string,
  afterRow: number,
  limit: number,
): Promise<SurveyRefusal[]> {
  return sql<SurveyRefusal[]>`
    SELECT row_number AS row, plot_id, field, code, reason FROM survey_upload_refusals
    WHERE upload_id = ${uploadId} AND row_number > ${afterRow}
    ORDER BY row_number LIMIT ${limit}`
}

export async function sweepSurveyUploads(
  sql: Sql,
  stalledBefore: Date,
  expiredBefore: Date,
): Promise<{ stalled: number; expired: number }> {
  const stalled = await sql<{ id: string }[]>`
    UPDATE survey_uploads SET status = 'failed', finished_at = now(),
      failure = ${sql.json({ code: 'interrupted', message: 'The upload stopped before its end: the server handling it went away. Nothing was stored; send it again.' })}
    WHERE status = 'receiving' AND touched_at < ${stalledBefore}
    RETURNING id`
  if (stalled.length > 0)
    await sql`DELETE FROM survey_upload_rows WHERE upload_id IN ${sql(stalled.map((row) => row.id))}`
  const expired = await sql`
    DELETE FROM survey_uploads WHERE status <> 'receiving' AND finished_at < ${expiredBefore}`
  return { stalled: stalled.length, expired: expired.count }
}
