import { generateApiKey, generateKeyId, hashApiKey, hashesMatch } from '../access/api-key.ts'
import type { ApiKeyRecord, AuditActor, IssuedKey, KeyStatus, TierName } from '../types.ts'
import { appendAuditEvent, OPERATOR } from './audit.ts'
import type { Sql } from './connect.ts'

export type { IssuedKey }

export class KeyStoreError extends Error {}

/** Which status each command may move a key from. Rotated and revoked keys never come back. */
const ALLOWED_FROM: Record<'activate' | 'deactivate' | 'revoke' | 'rotate', readonly KeyStatus[]> = {
  activate: ['inactive', 'active'],
  deactivate: ['active', 'inactive'],
  revoke: ['active', 'inactive', 'revoked'],
  rotate: ['active', 'inactive'],
}
const TARGET_STATUS = { activate: 'active', deactivate: 'inactive', revoke: 'revoked' } as const
const AUDIT_KINDS = {
  activate: 'key.activated',
  deactivate: 'key.deactivated',
  revoke: 'key.revoked',
} as const

const RECORD_COLUMNS =
  'id, tier, status, name, key_hint, rotated_to, account_id, expires_at, last_used_at, created_at, updated_at'

/** Where every change of a key's standing is announced, with the key's id (sql/006_key_change_notices.sql). */
export const KEY_CHANGES_CHANNEL = 'api_key_changes'

/** Serialises self-service issuance, so concurrent requests cannot slip past the hourly limits. */
export const ISSUANCE_LOCK_ID = 727_002

interface NewKey {
  tier: TierName
  name?: string | null
  status?: KeyStatus
  expiresAt?: Date | null
  /** The rotation chain's account; a new chain when absent. */
  accountId?: string
  email?: string | null
  issuedFrom?: string | null
  /** The key and its id when they were made beforehand (a key mailed before it is written). */
  made?: { id: string; key: string }
}

/** Writes a key row; the callers write its audit event in the same transaction. */
export async function insertKey(sql: Sql, options: NewKey): Promise<IssuedKey & { accountId: string }> {
  const key = options.made?.key ?? generateApiKey()
  const id = options.made?.id ?? generateKeyId()
  const status = options.status ?? 'active'
  const expiresAt = options.expiresAt ?? null
  const accountId = options.accountId ?? id
  await sql`
    INSERT INTO api_keys (id, key_hash, key_hint, tier, status, name, account_id, expires_at, email, issued_from)
    VALUES (${id}, ${hashApiKey(key)}, ${key.slice(-4)}, ${options.tier}, ${status}, ${options.name ?? null},
            ${accountId}, ${expiresAt}, ${options.email ?? null}, ${options.issuedFrom ?? null})`
  return { id, key, tier: options.tier, status, expiresAt, accountId }
}

/** An operator's new key (the keys CLI), with its `key.created` event in the same transaction. */
export function createKey(sql: Sql, options: NewKey): Promise<IssuedKey> {
  return sql.begin(async (tx) => {
    const { accountId, ...issued } = await insertKey(tx as unknown as Sql, options)
    await appendAuditEvent(tx as unknown as Sql, {
      accountId,
      kind: 'key.created',
      actor: OPERATOR,
      details: {
        key_id: issued.id,
        tier: issued.tier,
        status: issued.status,
        expires_at: issued.expiresAt?.toISOString() ?? null,
      },
    })
    return issued
  })
}

async function lockKey(tx: Sql, id: string): Promise<ApiKeyRecord & { email: string | null }> {
  const [record] = await tx<(ApiKeyRecord & { email: string | null })[]>`
    SELECT ${tx.unsafe(RECORD_COLUMNS)}, email FROM api_keys WHERE id = ${id} FOR UPDATE`
  if (!record) throw new KeyStoreError(`no API key with id ${id}`)
  return record
}

function assertAllowed(command: keyof typeof ALLOWED_FROM, record: ApiKeyRecord): void {
  if (!ALLOWED_FROM[command].includes(record.status)) {
    throw new KeyStoreError(`cannot ${command} key ${record.id}: it is ${record.status}`)
  }
}

export function setKeyStatus(
  sql: Sql,
  id: string,
  command: keyof typeof TARGET_STATUS,
): Promise<ApiKeyRecord> {
  return sql.begin(async (tx) => {
    const record = await lockKey(tx as unknown as Sql, id)
    assertAllowed(command, record)
    const [updated] = await tx<ApiKeyRecord[]>`
      UPDATE api_keys SET status = ${TARGET_STATUS[command]}, updated_at = now() WHERE id = ${id}
      RETURNING ${tx.unsafe(RECORD_COLUMNS)}`
    // A change of status is logged with it; asking for the status a key already has changes nothing.
    if (record.status !== TARGET_STATUS[command])
      await appendAuditEvent(tx as unknown as Sql, {
        accountId: record.accountId,
        kind: AUDIT_KINDS[command],
        actor: OPERATOR,
        details: { key_id: id, previous_status: record.status },
      })
    return updated as ApiKeyRecord
  })
}

/**
 * Issues a replacement key with the same tier, name, status, account and expiry; the old key becomes
 * `rotated` and keeps working for `graceSeconds` more (never past its own expiry). The `key.rotated`
 * event, by the holder (over the API) or an operator (the keys CLI), is written in the same transaction.
 */
export function rotateKey(
  sql: Sql,
  id: string,
  graceSeconds = 0,
  actor: AuditActor = OPERATOR,
): Promise<{ issued: IssuedKey; previousExpiresAt: Date }> {
  return sql.begin((tx) => rotateWithin(tx as unknown as Sql, id, graceSeconds, actor))
}

/** rotateKey inside the caller's transaction; `made` is the new key when it was made beforehand. */
export async function rotateWithin(
  tx: Sql,
  id: string,
  graceSeconds: number,
  actor: AuditActor,
  made?: { id: string; key: string },
): Promise<{ issued: IssuedKey; previousExpiresAt: Date }> {
  const record = await lockKey(tx, id)
  assertAllowed('rotate', record)
  // Retire the old key first: the one-live-key-per-email rule must hold after every statement.
  const [retired] = await tx<{ expiresAt: Date }[]>`
    UPDATE api_keys
    SET status = 'rotated', updated_at = now(),
        expires_at = LEAST(COALESCE(expires_at, 'infinity'), now() + make_interval(secs => ${graceSeconds}))
    WHERE id = ${id}
    RETURNING expires_at`
  const { accountId, ...issued } = await insertKey(tx, {
    tier: record.tier,
    name: record.name,
    status: record.status,
    accountId: record.accountId,
    expiresAt: record.expiresAt,
    email: record.email,
    made,
  })
  await tx`UPDATE api_keys SET rotated_to = ${issued.id} WHERE id = ${id}`
  await appendAuditEvent(tx, {
    accountId,
    kind: 'key.rotated',
    actor,
    details: { key_id: id, new_key_id: issued.id, grace_seconds: graceSeconds },
  })
  return { issued, previousExpiresAt: (retired as { expiresAt: Date }).expiresAt }
}

export function listKeys(sql: Sql): Promise<ApiKeyRecord[]> {
  return sql<ApiKeyRecord[]>`SELECT ${sql.unsafe(RECORD_COLUMNS)} FROM api_keys ORDER BY created_at, id`
}

export async function findKeyById(sql: Sql, id: string): Promise<ApiKeyRecord | null> {
  const [row] = await sql<ApiKeyRecord[]>`SELECT ${sql.unsafe(RECORD_COLUMNS)} FROM api_keys WHERE id = ${id}`
  return row ?? null
}

export async function findKeyByHash(sql: Sql, hash: string): Promise<ApiKeyRecord | null> {
  const [row] = await sql<(ApiKeyRecord & { keyHash: string })[]>`
    SELECT ${sql.unsafe(RECORD_COLUMNS)}, key_hash FROM api_keys WHERE key_hash = ${hash}`
  if (!row || !hashesMatch(row.keyHash, hash)) return null
  const { keyHash: _keyHash, ...record } = row
  return record
}
