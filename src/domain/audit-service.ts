import { createHmac } from 'node:crypto'
import type { AuditDetails, AuditEvent, AuditEventKind, NewAuditEvent } from '../types.ts'
import { invalidField } from './errors.ts'
import type { AuditLog } from './ports/audit.ts'

/** Events on a page when the caller names no `limit`; at most AUDIT_PAGE_MAX (src/domain/input-rules.ts). */
export const AUDIT_PAGE_DEFAULT = 50

/** One event as the account's holder reads it. */
export interface AuditEntry {
  id: string
  kind: AuditEventKind
  at: Date
  /** holder: the account's holder over the API; operator: the keys CLI. */
  actor: 'holder' | 'operator'
  /** The key the holder acted with (for key.issued, the key issued); null for an operator. */
  keyId: string | null
  /** The client address, as a tag of this account's (see addressTag); null when none was kept. */
  addressTag: string | null
  details: AuditDetails
}

export interface AuditPage {
  events: AuditEntry[]
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null
}

const EVENT_ID = /^evt_[0-9a-f]{24}$/
const BASE64URL = /^[A-Za-z0-9_-]+$/

/** The cursor of the page after `eventId` (the last event of a page): opaque to the caller. */
export function encodeCursor(eventId: string): string {
  return Buffer.from(eventId, 'utf8').toString('base64url')
}

/** The event a cursor names, or null for anything this service did not hand out. */
export function decodeCursor(cursor: string): string | null {
  if (!BASE64URL.test(cursor)) return null
  const eventId = Buffer.from(cursor, 'base64url').toString('utf8')
  return EVENT_ID.test(eventId) && encodeCursor(eventId) === cursor ? eventId : null
}

/**
 * What the holder is shown of a client address: 128 bits of an HMAC of the address's keyed hash with
 * the account id. Events of one account from one address carry the same tag, so the holder can tell
 * their own changes from someone else's; the tag is neither the address nor the hash the server keeps
 * (api_keys.issued_from, the issuance counters), and differs from account to account for one address.
 */
export function addressTag(addressHash: string, accountId: string): string {
  return createHmac('sha256', addressHash).update(accountId).digest('hex').slice(0, 32)
}

function entryOf(event: AuditEvent): AuditEntry {
  const { actor } = event
  return {
    id: event.id,
    kind: event.kind,
    at: event.createdAt,
    actor: actor.kind,
    keyId: actor.kind === 'holder' ? actor.keyId : null,
    addressTag:
      actor.kind === 'holder' && actor.addressHash !== null
        ? addressTag(actor.addressHash, event.accountId)
        : null,
    details: event.details,
  }
}

/**
 * The audit log of each account: who changed what in it, when, and from which address. A holder reads
 * their account's events only (the account is the caller's, never named by the request), newest first,
 * a page at a time. Key changes are logged by the key store in their own transactions; other changes
 * (data holders write) are recorded here.
 */
export class AuditService {
  constructor(private readonly log: AuditLog) {}

  record(event: NewAuditEvent): Promise<void> {
    return this.log.append(event)
  }

  /**
   * A page of the account's events, newest first: `limit` of them (default 50), after the page whose
   * `nextCursor` is `cursor`. A cursor this service did not hand out to this account is `400
   * invalid_request` naming it, the same whether it is garbage or another account's.
   */
  async page(accountId: string, request: { limit?: number; cursor?: string }): Promise<AuditPage> {
    const limit = request.limit ?? AUDIT_PAGE_DEFAULT
    const after = request.cursor === undefined ? null : decodeCursor(request.cursor)
    if (request.cursor !== undefined && after === null) throw badCursor()
    // One more than asked for says whether another page follows.
    const found = await this.log.page(accountId, limit + 1, after)
    if (found === null) throw badCursor()
    const events = found.slice(0, limit)
    const last = events.at(-1)
    return {
      events: events.map(entryOf),
      nextCursor: found.length > limit && last ? encodeCursor(last.id) : null,
    }
  }
}

function badCursor() {
  return invalidField('cursor', "is not a cursor of this account's audit log", 'query string')
}
