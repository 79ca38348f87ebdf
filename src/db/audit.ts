import { randomBytes } from 'node:crypto'
import type { AuditActor, AuditDetails, AuditEvent, AuditEventKind, NewAuditEvent } from '../types.ts'
import type { Sql } from './connect.ts'

/*
 * The audit log (sql/011_audit_events.sql): appended to, read an account at a time, newest first.
 * Nothing here updates or deletes an event.
 */

/** `evt_` + 24 hex characters (96 random bits): ids say nothing about how many events others have. */
export function newAuditEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`
}

/** The keys CLI as an actor: no key, no address. */
export const OPERATOR: AuditActor = { kind: 'operator' }

/**
 * Appends one event. Called with a transaction's `tx` by the key changes, so that the change and its
 * event are committed together or not at all.
 */
export async function appendAuditEvent(sql: Sql, event: NewAuditEvent): Promise<void> {
  const { actor } = event
  const keyId = actor.kind === 'holder' ? actor.keyId : null
  const addressHash = actor.kind === 'holder' ? actor.addressHash : null
  await sql`
    INSERT INTO audit_events (id, account_id, kind, actor, key_id, address_hash, details)
    VALUES (${newAuditEventId()}, ${event.accountId}, ${event.kind}, ${actor.kind}, ${keyId}, ${addressHash},
            ${sql.json(event.details)})`
}

interface AuditRow {
  id: string
  accountId: string
  kind: AuditEventKind
  actor: 'holder' | 'operator'
  keyId: string | null
  addressHash: string | null
  details: AuditDetails
  createdAt: Date
}

function eventOf(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    accountId: row.accountId,
    kind: row.kind,
    actor:
      row.actor === 'holder'
        ? { kind: 'holder', keyId: row.keyId as string, addressHash: row.addressHash }
        : { kind: 'operator' },
    details: row.details,
    createdAt: row.createdAt,
  }
}

/**
 * At most `limit` of an account's events, newest first (ties by id), starting after the event `after`
 * when given. null when `after` is not an event of this account: a cursor from another account's log
 * finds nothing, exactly as one that never existed.
 */
export async function auditEvents(
  sql: Sql,
  accountId: string,
  limit: number,
  after: string | null,
): Promise<AuditEvent[] | null> {
  if (after !== null) {
    const [anchor] = await sql`SELECT 1 FROM audit_events WHERE id = ${after} AND account_id = ${accountId}`
    if (!anchor) return null
  }
  // The anchor's created_at is compared inside PostgreSQL: a JavaScript Date would lose its microseconds.
  const rows = await sql<AuditRow[]>`
    SELECT id, account_id, kind, actor, key_id, address_hash, details, created_at
    FROM audit_events
    WHERE account_id = ${accountId}
      ${
        after === null
          ? sql``
          : sql`AND (created_at, id) < (SELECT created_at, id FROM audit_events
                                       WHERE id = ${after} AND account_id = ${accountId})`
      }
    ORDER BY created_at DESC, id DESC
    LIMIT ${limit}`
  return rows.map(eventOf)
}
