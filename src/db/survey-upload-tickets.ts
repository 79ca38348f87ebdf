import type { SurveyUploadTicketStore } from '../domain/ports/survey-upload-tickets.ts'
import type { Sql } from './connect.ts'

/* Survey upload tickets (sql/015_survey_upload_tickets.sql), kept by the hash of their token. */

type NewTicket = Parameters<SurveyUploadTicketStore['issue']>[0]

export async function issueSurveyUploadTicket(sql: Sql, ticket: NewTicket): Promise<void> {
  await sql`
    INSERT INTO survey_upload_tickets (token_hash, account_id, key_id, skip_invalid, expires_at)
    VALUES (${ticket.tokenHash}, ${ticket.accountId}, ${ticket.keyId}, ${ticket.skipInvalid},
            ${ticket.expiresAt})`
}

/** Marks an unused, unexpired ticket used and answers its key's hash; null for any other token. */
export async function redeemSurveyUploadTicket(
  sql: Sql,
  tokenHash: string,
  at: Date,
): Promise<{ keyHash: string; skipInvalid: boolean } | null> {
  // One statement: two servers handed the same ticket at once cannot both take it.
  const [row] = await sql<{ keyHash: string; skipInvalid: boolean }[]>`
    UPDATE survey_upload_tickets t SET used_at = ${at}
    FROM api_keys k
    WHERE t.token_hash = ${tokenHash} AND t.used_at IS NULL AND t.expires_at > ${at} AND k.id = t.key_id
    RETURNING k.key_hash, t.skip_invalid`
  return row ? { keyHash: row.keyHash, skipInvalid: row.skipInvalid } : null
}

export async function sweepSurveyUploadTickets(sql: Sql, expiredBefore: Date): Promise<number> {
  const removed = await sql`DELETE FROM survey_upload_tickets WHERE expires_at < ${expiredBefore}`
  return removed.count
}
