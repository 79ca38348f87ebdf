import { createHash, randomBytes } from 'node:crypto'
import { generateApiKey, generateKeyId } from '../access/api-key.ts'
import type { IssuanceLimits } from '../domain/ports/issuance.ts'
import type {
  KeyMail,
  KeyRequestRecording,
  NewKeyRequest,
  RollLinkState,
} from '../domain/ports/key-mailbox.ts'
import { appendAuditEvent } from './audit.ts'
import type { Sql } from './connect.ts'
import { ISSUANCE_LOCK_ID, insertKey, KeyStoreError, rotateWithin } from './keys.ts'

/*
 * Self-service keys by email (sql/012_key_requests.sql). Every step that decides or writes a key takes
 * the issuance lock, so two server processes never mail one address two keys, and the hourly limits
 * are exact. The mail itself is sent with no lock and no connection held (src/domain/key-mail).
 */

const UNIQUE_VIOLATION = '23505'
/** How long a request waits while its address's key is being mailed by another (usually under a second). */
const IN_FLIGHT_WAIT_MS = 5_000
const LAST_ERROR_CHARS = 500

/** The secret of a roll link (256 random bits) and what is kept of it. */
function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: hashLinkToken(token) }
}

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

function lockIssuance(tx: Sql) {
  return tx`SELECT pg_advisory_xact_lock(${ISSUANCE_LOCK_ID})`
}

/** Every request counts toward its address's hour and the hour over all addresses, whatever it became. */
export function recordKeyRequest(
  sql: Sql,
  request: NewKeyRequest,
  limits: IssuanceLimits,
): Promise<KeyRequestRecording> {
  return sql.begin(async (tx) => {
    await lockIssuance(tx as unknown as Sql)
    const [window] = await tx<
      { fromAddress: number; overall: number; addressFreesIn: number | null; overallFreesIn: number | null }[]
    >`
      SELECT count(*) FILTER (WHERE issued_from = ${request.issuedFrom})::int AS from_address,
             count(*)::int AS overall,
             ceil(extract(epoch FROM min(created_at) FILTER (WHERE issued_from = ${request.issuedFrom})
                  + interval '1 hour' - now()))::int AS address_frees_in,
             ceil(extract(epoch FROM min(created_at) + interval '1 hour' - now()))::int AS overall_frees_in
      FROM key_requests
      WHERE kind = 'issue' AND created_at > now() - interval '1 hour'`
    const counts = window as NonNullable<typeof window>
    if (counts.fromAddress >= limits.perAddressPerHour)
      return { recorded: false, scope: 'address', retryAfterSeconds: Math.max(1, counts.addressFreesIn ?? 1) }
    if (counts.overall >= limits.perHour)
      return { recorded: false, scope: 'global', retryAfterSeconds: Math.max(1, counts.overallFreesIn ?? 1) }
    await tx`
      INSERT INTO key_requests (kind, email, name, issued_from)
      VALUES ('issue', ${request.email}, ${request.name}, ${request.issuedFrom})`
    return { recorded: true }
  })
}

interface QueuedRequest {
  id: string
  kind: 'issue' | 'roll'
  email: string
  rollsKeyId: string | null
}

/**
 * The next due request and what to mail for it. A request whose address is already being mailed a key
 * by another request waits for that one's outcome (then it becomes a notice), so an address never gets
 * two keys; a roll whose key is no longer live is dropped.
 */
export function takeNextKeyMail(sql: Sql, leaseMs: number, linkTtlMs: number): Promise<KeyMail | null> {
  return sql.begin(async (tx) => {
    const t = tx as unknown as Sql
    await lockIssuance(t)
    for (;;) {
      const [request] = await t<QueuedRequest[]>`
        SELECT id::text, kind, email, rolls_key_id FROM key_requests
        WHERE state = 'queued' AND next_attempt_at <= now() AND (leased_until IS NULL OR leased_until < now())
        ORDER BY next_attempt_at, id LIMIT 1`
      if (!request) return null
      const [inFlight] = await t`
        SELECT 1 FROM key_requests
        WHERE email = ${request.email} AND state = 'queued' AND id <> ${request.id}
          AND new_key_id IS NOT NULL AND leased_until > now()`
      if (inFlight) {
        const waitMs = Math.min(leaseMs, IN_FLIGHT_WAIT_MS)
        await t`UPDATE key_requests SET next_attempt_at = now() + make_interval(secs => ${waitMs / 1000})
                WHERE id = ${request.id}`
        continue
      }
      const mail = await decide(t, request, linkTtlMs)
      if (!mail) continue
      const [leased] = await t<{ attempts: number }[]>`
        UPDATE key_requests
        SET attempts = attempts + 1, leased_until = now() + make_interval(secs => ${leaseMs / 1000}),
            new_key_id = ${mail.kind === 'notice' ? null : mail.keyId}
        WHERE id = ${request.id}
        RETURNING attempts`
      return { ...mail, attempt: (leased as { attempts: number }).attempts }
    }
  })
}

type Decided = KeyMail extends infer M ? (M extends unknown ? Omit<M, 'attempt'> : never) : never

async function decide(tx: Sql, request: QueuedRequest, linkTtlMs: number): Promise<Decided | null> {
  if (request.kind === 'roll') {
    const [live] = await tx`
      SELECT 1 FROM api_keys WHERE id = ${request.rollsKeyId} AND status IN ('active', 'inactive')`
    if (!live) {
      await finish(tx, request.id, 'dropped', 'none')
      return null
    }
    return {
      kind: 'rolled_key',
      requestId: request.id,
      email: request.email,
      keyId: generateKeyId(),
      key: generateApiKey(),
      previousKeyId: request.rollsKeyId as string,
    }
  }
  const [held] = await tx<{ id: string; keyHint: string }[]>`
    SELECT id, key_hint FROM api_keys WHERE email = ${request.email} AND status IN ('active', 'inactive')`
  if (!held) {
    return {
      kind: 'key',
      requestId: request.id,
      email: request.email,
      keyId: generateKeyId(),
      key: generateApiKey(),
    }
  }
  const link = newLinkToken()
  const [made] = await tx<{ expiresAt: Date }[]>`
    INSERT INTO key_roll_links (token_hash, key_id, email, expires_at)
    VALUES (${link.hash}, ${held.id}, ${request.email}, now() + make_interval(secs => ${linkTtlMs / 1000}))
    RETURNING expires_at`
  return {
    kind: 'notice',
    requestId: request.id,
    email: request.email,
    keyId: held.id,
    keyHint: held.keyHint,
    linkToken: link.token,
    linkExpiresAt: (made as { expiresAt: Date }).expiresAt,
  }
}

function finish(tx: Sql, requestId: string, state: 'sent' | 'dropped' | 'failed', outcome: string | null) {
  return tx`
    UPDATE key_requests
    SET state = ${state}, outcome = ${outcome}, finished_at = now(), leased_until = NULL, new_key_id = NULL
    WHERE id = ${requestId}`
}

/**
 * The address has its message: a new key becomes its key (`key.issued`, by the key itself, from the
 * address that asked), a confirmed roll replaces the old key at once (`key.rotated`, by the old key,
 * from the address that confirmed). A key that can no longer be written (an operator gave the address
 * a key meanwhile, or rolled the key) leaves the request dropped.
 */
export function markKeyMailDelivered(sql: Sql, mail: KeyMail): Promise<void> {
  return sql.begin(async (tx) => {
    const t = tx as unknown as Sql
    await lockIssuance(t)
    const [request] = await t<
      { issuedFrom: string; name: string | null; state: string; newKeyId: string | null }[]
    >`
      SELECT issued_from, name, state, new_key_id FROM key_requests WHERE id = ${mail.requestId} FOR UPDATE`
    if (request?.state !== 'queued') return
    // A mailer whose lease ran out while it sent: another has since taken the request with another key,
    // and that one is the key to keep.
    if (mail.kind !== 'notice' && request.newKeyId !== mail.keyId) return
    if (mail.kind === 'notice') return void (await finish(t, mail.requestId, 'sent', 'notice'))
    const made = { id: mail.keyId, key: mail.key }
    try {
      await tx.savepoint(async (sp) => {
        const s = sp as unknown as Sql
        if (mail.kind === 'key') {
          const { accountId } = await insertKey(s, {
            tier: 'spore',
            name: request.name,
            email: mail.email,
            issuedFrom: request.issuedFrom,
            made,
          })
          await appendAuditEvent(s, {
            accountId,
            kind: 'key.issued',
            actor: { kind: 'holder', keyId: mail.keyId, addressHash: request.issuedFrom },
            details: { key_id: mail.keyId, tier: 'spore' },
          })
        } else {
          await rotateWithin(
            s,
            mail.previousKeyId,
            0,
            { kind: 'holder', keyId: mail.previousKeyId, addressHash: request.issuedFrom },
            made,
          )
        }
      })
    } catch (error) {
      const code = (error as { code?: string }).code
      if (code !== UNIQUE_VIOLATION && !(error instanceof KeyStoreError)) throw error
      await finish(t, mail.requestId, 'dropped', 'none')
      return
    }
    await finish(t, mail.requestId, 'sent', mail.kind)
  })
}

export async function markKeyMailFailed(
  sql: Sql,
  requestId: string,
  reason: string,
  retryAt: Date | null,
): Promise<void> {
  const lastError = reason.slice(0, LAST_ERROR_CHARS)
  if (retryAt === null) {
    await sql`
      UPDATE key_requests
      SET state = 'failed', finished_at = now(), leased_until = NULL, new_key_id = NULL, last_error = ${lastError}
      WHERE id = ${requestId} AND state = 'queued'`
    return
  }
  await sql`
    UPDATE key_requests
    SET next_attempt_at = ${retryAt}, leased_until = NULL, new_key_id = NULL, last_error = ${lastError}
    WHERE id = ${requestId} AND state = 'queued'`
}

function stateOf(link: { usedAt: Date | null; expired: boolean } | undefined): RollLinkState {
  if (!link) return 'unknown'
  if (link.usedAt) return 'used'
  return link.expired ? 'expired' : 'valid'
}

export async function rollLinkState(sql: Sql, tokenHash: string): Promise<RollLinkState> {
  const [link] = await sql<{ usedAt: Date | null; expired: boolean }[]>`
    SELECT used_at, expires_at <= now() AS expired FROM key_roll_links WHERE token_hash = ${tokenHash}`
  return stateOf(link)
}

/** Spends the link and queues its roll in one transaction: a link rolls a key once. */
export function confirmKeyRoll(sql: Sql, tokenHash: string, confirmedFrom: string): Promise<RollLinkState> {
  return sql.begin(async (tx) => {
    const [link] = await tx<{ usedAt: Date | null; expired: boolean; keyId: string; email: string }[]>`
      SELECT used_at, expires_at <= now() AS expired, key_id, email
      FROM key_roll_links WHERE token_hash = ${tokenHash} FOR UPDATE`
    const state = stateOf(link)
    if (state !== 'valid' || !link) return state
    await tx`UPDATE key_roll_links SET used_at = now() WHERE token_hash = ${tokenHash}`
    await tx`
      INSERT INTO key_requests (kind, email, issued_from, rolls_key_id)
      VALUES ('roll', ${link.email}, ${confirmedFrom}, ${link.keyId})`
    return 'valid'
  })
}

/** Finished requests and expired links leave after `before`: an address is kept no longer than needed. */
export async function purgeKeyRequests(sql: Sql, before: Date): Promise<number> {
  const requests = await sql`
    DELETE FROM key_requests WHERE state <> 'queued' AND finished_at < ${before}`
  const links = await sql`DELETE FROM key_roll_links WHERE expires_at < ${before}`
  return requests.count + links.count
}
