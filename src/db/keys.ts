import { generateApiKey, generateKeyId, hashApiKey, hashesMatch } from '../keys/api-key.ts'
import type { ApiKeyRecord, KeyStatus, TierName } from '../types.ts'
import type { Sql } from './connect.ts'

/** A newly issued key: the only time the plaintext exists outside the caller's hands. */
export interface IssuedKey {
  id: string
  key: string
  tier: TierName
  status: KeyStatus
}

export class KeyStoreError extends Error {}

/** Which status each command may move a key from. Rotated and revoked keys never come back. */
const ALLOWED_FROM: Record<'activate' | 'deactivate' | 'revoke' | 'rotate', readonly KeyStatus[]> = {
  activate: ['inactive', 'active'],
  deactivate: ['active', 'inactive'],
  revoke: ['active', 'inactive', 'revoked'],
  rotate: ['active', 'inactive'],
}
const TARGET_STATUS = { activate: 'active', deactivate: 'inactive', revoke: 'revoked' } as const

const RECORD_COLUMNS = 'id, tier, status, name, key_hint, rotated_to, created_at, updated_at'

export async function createKey(
  sql: Sql,
  options: { tier: TierName; name?: string | null; status?: KeyStatus },
): Promise<IssuedKey> {
  const key = generateApiKey()
  const id = generateKeyId()
  const status = options.status ?? 'active'
  await sql`
    INSERT INTO api_keys (id, key_hash, key_hint, tier, status, name)
    VALUES (${id}, ${hashApiKey(key)}, ${key.slice(-4)}, ${options.tier}, ${status}, ${options.name ?? null})`
  return { id, key, tier: options.tier, status }
}

async function lockKey(tx: Sql, id: string): Promise<ApiKeyRecord> {
  const [record] = await tx<ApiKeyRecord[]>`
    SELECT ${tx.unsafe(RECORD_COLUMNS)} FROM api_keys WHERE id = ${id} FOR UPDATE`
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
    return updated as ApiKeyRecord
  })
}

/** Issues a replacement key with the same tier, name and status; the old key becomes `rotated`. */
export function rotateKey(sql: Sql, id: string): Promise<IssuedKey> {
  return sql.begin(async (tx) => {
    const record = await lockKey(tx as unknown as Sql, id)
    assertAllowed('rotate', record)
    const issued = await createKey(tx as unknown as Sql, {
      tier: record.tier,
      name: record.name,
      status: record.status,
    })
    await tx`
      UPDATE api_keys SET status = 'rotated', rotated_to = ${issued.id}, updated_at = now() WHERE id = ${id}`
    return issued
  })
}

export function listKeys(sql: Sql): Promise<ApiKeyRecord[]> {
  return sql<ApiKeyRecord[]>`SELECT ${sql.unsafe(RECORD_COLUMNS)} FROM api_keys ORDER BY created_at, id`
}

export async function findKeyByHash(sql: Sql, hash: string): Promise<ApiKeyRecord | null> {
  const [row] = await sql<(ApiKeyRecord & { keyHash: string })[]>`
    SELECT ${sql.unsafe(RECORD_COLUMNS)}, key_hash FROM api_keys WHERE key_hash = ${hash}`
  if (!row || !hashesMatch(row.keyHash, hash)) return null
  const { keyHash: _keyHash, ...record } = row
  return record
}
