import { createHash } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import { hashApiKey, isWellFormedApiKey } from '../access/api-key.ts'
import { ROLL_LINK_TOKEN } from '../domain/key-mail/spore-key-requests.ts'
import type { IssuanceLimits } from '../domain/ports/issuance.ts'
import type { KeyMail } from '../domain/ports/key-mailbox.ts'
import { auditEvents } from './audit.ts'
import {
  confirmKeyRoll,
  hashLinkToken,
  markKeyMailDelivered,
  markKeyMailFailed,
  purgeKeyRequests,
  recordKeyRequest,
  rollLinkState,
  takeNextKeyMail,
} from './key-requests.ts'
import { createKey, findKeyByHash, setKeyStatus } from './keys.ts'
import { migrate } from './migrate.ts'

/** Self-service keys by email against PostgreSQL: recording, what each request is mailed, roll links. */
const LIMITS: IssuanceLimits = { perAddressPerHour: 3, perHour: 5 }
const LEASE_MS = 60_000
const LINK_TTL_MS = 3_600_000
/** Client address hashes as the service keeps them (HMAC-SHA-256, hex). */
const FROM_A = 'a1'.repeat(32)
const FROM_B = 'b2'.repeat(32)
const FROM_C = 'c3'.repeat(32)

let db: TestDatabase
beforeAll(async () => {
  db = await createTestDatabase()
  await migrate(db.sql)
})
afterAll(() => db.drop())
// takeNextKeyMail takes the oldest due request of all: each test starts from an empty queue.
beforeEach(async () => {
  await db.sql`DELETE FROM key_requests`
  await db.sql`DELETE FROM key_roll_links`
})

let counter = 0
const freshEmail = () => `holder-${Date.now()}-${++counter}@example.org`
const record = (email: string, issuedFrom = FROM_A, limits = LIMITS) =>
  recordKeyRequest(db.sql, { email, name: 'nursery', issuedFrom }, limits)
const take = (leaseMs = LEASE_MS) => takeNextKeyMail(db.sql, leaseMs, LINK_TTL_MS)

async function requestRow(id: string) {
  const [row] = await db.sql`
    SELECT *, leased_until > now() AS leased, next_attempt_at > now() AS waiting
    FROM key_requests WHERE id = ${id}`
  return row as Record<string, unknown>
}

async function taken<K extends KeyMail['kind']>(kind: K): Promise<Extract<KeyMail, { kind: K }>> {
  const mail = await take()
  if (mail?.kind !== kind) throw new Error(`expected ${kind}, took ${mail?.kind ?? 'nothing'}`)
  return mail as Extract<KeyMail, { kind: K }>
}

/** An address holding a live key, sent a notice: its roll link's token. */
async function noticeFor(email: string) {
  const held = await createKey(db.sql, { tier: 'spore', email })
  await record(email)
  const notice = await taken('notice')
  await markKeyMailDelivered(db.sql, notice)
  return { held, notice, hash: hashLinkToken(notice.linkToken) }
}

describe('recordKeyRequest: the exact hourly limits', () => {
  it('records perAddressPerHour from one address, perHour from all, then says which limit and for how long', async () => {
    for (let i = 0; i < 3; i++) expect(await record(freshEmail(), FROM_A)).toEqual({ recorded: true })
    const address = await record(freshEmail(), FROM_A)
    expect(address).toMatchObject({ recorded: false, scope: 'address' })
    for (let i = 0; i < 2; i++) expect(await record(freshEmail(), FROM_B)).toEqual({ recorded: true })
    const overall = [await record(freshEmail(), FROM_B), await record(freshEmail(), FROM_C)]
    for (const refused of [address, ...overall]) {
      if (refused.recorded) throw new Error('recorded past a limit')
      expect(refused.retryAfterSeconds).toBeGreaterThan(0)
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(3600)
    }
    expect(overall.map((r) => (r.recorded ? null : r.scope))).toEqual(['global', 'global'])
    // A refused request is not recorded, and so spends nothing.
    const [count] = await db.sql`SELECT count(*)::int AS n FROM key_requests`
    expect(count?.n).toBe(5)
  })

  it('counts every request of the hour whatever became of it, and frees each an hour after it was made', async () => {
    for (let i = 0; i < 3; i++) await record(freshEmail(), FROM_A)
    await db.sql`UPDATE key_requests SET state = 'dropped', finished_at = now()`
    expect(await record(freshEmail(), FROM_A)).toMatchObject({ recorded: false, scope: 'address' })
    await db.sql`UPDATE key_requests SET created_at = now() - interval '50 minutes'`
    const refused = await record(freshEmail(), FROM_A)
    if (refused.recorded) throw new Error('recorded past the limit')
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(595)
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(600)
    await db.sql`UPDATE key_requests SET created_at = now() - interval '61 minutes'`
    expect(await record(freshEmail(), FROM_A)).toEqual({ recorded: true })
  })
})

describe('takeNextKeyMail: what each request is mailed', () => {
  it('mails a fresh address a new key, leased, and writes no key before it is delivered', async () => {
    const email = freshEmail()
    await record(email)
    const mail = await taken('key')
    expect(mail).toMatchObject({ email, attempt: 1, keyId: expect.stringMatching(/^key_[0-9a-f]{16}$/) })
    expect(isWellFormedApiKey(mail.key)).toBe(true)
    const [keys] = await db.sql`
      SELECT count(*)::int AS n FROM api_keys WHERE email = ${email} OR id = ${mail.keyId}`
    expect(keys?.n).toBe(0)
    const row = await requestRow(mail.requestId)
    expect(row).toMatchObject({ state: 'queued', attempts: 1, leased: true, newKeyId: mail.keyId })
    expect(JSON.stringify(row)).not.toContain(mail.key.slice(9))
    // Leased: no other mailer takes it.
    expect(await take()).toBeNull()
  })

  it('sends an address with a live key a notice and a roll link kept only as its SHA-256', async () => {
    const email = freshEmail()
    const held = await createKey(db.sql, { tier: 'spore', email })
    await record(email)
    const notice = await taken('notice')
    expect(notice).toMatchObject({ email, keyId: held.id, keyHint: held.key.slice(-4), attempt: 1 })
    expect(notice.linkToken).toMatch(ROLL_LINK_TOKEN)
    const [link] = await db.sql`
      SELECT *, expires_at - created_at = make_interval(secs => ${LINK_TTL_MS / 1000}) AS ttl_ok
      FROM key_roll_links WHERE key_id = ${held.id}`
    expect(link).toMatchObject({
      tokenHash: createHash('sha256').update(notice.linkToken).digest('hex'),
      email,
      usedAt: null,
      ttlOk: true,
    })
    expect(link?.expiresAt).toEqual(notice.linkExpiresAt)
    expect(JSON.stringify(link)).not.toContain(notice.linkToken)
    expect((await requestRow(notice.requestId)).newKeyId).toBeNull()
  })

  it('holds a second request for an address whose key is in flight, then sends it a notice', async () => {
    const email = freshEmail()
    await record(email, FROM_A)
    await record(email, FROM_B)
    const first = await taken('key')
    expect(await take()).toBeNull()
    const [second] = await db.sql`SELECT id::text FROM key_requests WHERE id <> ${first.requestId}`
    expect(await requestRow(second?.id)).toMatchObject({ state: 'queued', leasedUntil: null, waiting: true })
    await markKeyMailDelivered(db.sql, first)
    // Its wait is over (a lease's length later).
    await db.sql`UPDATE key_requests SET next_attempt_at = now() WHERE id = ${second?.id}`
    const notice = await taken('notice')
    expect(notice).toMatchObject({ requestId: second?.id, keyId: first.keyId })
    const [live] = await db.sql`SELECT count(*)::int AS n FROM api_keys WHERE email = ${email}`
    expect(live?.n).toBe(1)
  })

  it('lets another mailer take a request whose lease has run out', async () => {
    await record(freshEmail())
    const first = await take(50)
    await new Promise((resolve) => setTimeout(resolve, 120))
    const again = await taken('key')
    expect(again).toMatchObject({ requestId: first?.requestId, attempt: 2 })
    expect(again.keyId).not.toBe(first?.keyId)
  })
})

describe('markKeyMailDelivered and markKeyMailFailed', () => {
  it('writes the delivered key as a hash (spore, active, email, issued_from) and marks the request sent', async () => {
    const email = freshEmail()
    await record(email, FROM_B)
    const mail = await taken('key')
    await markKeyMailDelivered(db.sql, mail)
    const [key] = await db.sql`SELECT * FROM api_keys WHERE id = ${mail.keyId}`
    expect(key).toMatchObject({
      keyHash: hashApiKey(mail.key),
      keyHint: mail.key.slice(-4),
      tier: 'spore',
      status: 'active',
      name: 'nursery',
      email,
      issuedFrom: FROM_B,
    })
    expect(JSON.stringify(key)).not.toContain(mail.key.slice(9))
    expect(await findKeyByHash(db.sql, hashApiKey(mail.key))).toMatchObject({ id: mail.keyId })
    const row = await requestRow(mail.requestId)
    expect(row).toMatchObject({ state: 'sent', outcome: 'key', leasedUntil: null, newKeyId: null })
    expect(row.finishedAt).toBeInstanceOf(Date)
    // Told twice (a retried report), nothing more is written.
    await markKeyMailDelivered(db.sql, mail)
    const [keys] = await db.sql`SELECT count(*)::int AS n FROM api_keys WHERE email = ${email}`
    expect(keys?.n).toBe(1)
  })

  it('drops a key whose address an operator gave a key meanwhile, writing no second live key', async () => {
    const email = freshEmail()
    await record(email)
    const mail = await taken('key')
    const operators = await createKey(db.sql, { tier: 'mycel', email })
    await markKeyMailDelivered(db.sql, mail)
    expect(await requestRow(mail.requestId)).toMatchObject({ state: 'dropped', outcome: 'none' })
    const live =
      await db.sql`SELECT id FROM api_keys WHERE email = ${email} AND status IN ('active', 'inactive')`
    expect(live.map((k) => k.id)).toEqual([operators.id])
    expect(await auditEvents(db.sql, mail.keyId, 10, null)).toEqual([])
  })

  it('keeps a failed message queued until its retry, unleased; gives it up at null', async () => {
    await record(freshEmail())
    const mail = await taken('key')
    const retryAt = new Date(Date.now() + 300_000)
    await markKeyMailFailed(db.sql, mail.requestId, `550 ${'x'.repeat(600)}`, retryAt)
    const row = await requestRow(mail.requestId)
    expect(row).toMatchObject({ state: 'queued', leasedUntil: null, newKeyId: null, nextAttemptAt: retryAt })
    expect((row.lastError as string).length).toBe(500)
    expect(await take()).toBeNull()
    await db.sql`UPDATE key_requests SET next_attempt_at = now() WHERE id = ${mail.requestId}`
    const retried = await taken('key')
    expect(retried).toMatchObject({ requestId: mail.requestId, attempt: 2 })
    await markKeyMailFailed(db.sql, mail.requestId, 'gave up', null)
    expect(await requestRow(mail.requestId)).toMatchObject({ state: 'failed', leasedUntil: null })
    expect(await take()).toBeNull()
    const [keys] =
      await db.sql`SELECT count(*)::int AS n FROM api_keys WHERE id IN (${mail.keyId}, ${retried.keyId})`
    expect(keys?.n).toBe(0)
  })
})

describe('roll links', () => {
  it('rolls a key once through a valid link; the roll’s delivery retires the old key', async () => {
    const email = freshEmail()
    const { held, hash } = await noticeFor(email)
    expect(await rollLinkState(db.sql, hash)).toBe('valid')
    expect(await confirmKeyRoll(db.sql, hash, FROM_C)).toBe('valid')
    expect(await confirmKeyRoll(db.sql, hash, FROM_C)).toBe('used')
    expect(await rollLinkState(db.sql, hash)).toBe('used')
    const rolls = await db.sql`SELECT * FROM key_requests WHERE kind = 'roll'`
    expect(rolls).toHaveLength(1)
    expect(rolls[0]).toMatchObject({ email, rollsKeyId: held.id, issuedFrom: FROM_C, state: 'queued' })
    const rolled = await taken('rolled_key')
    expect(rolled).toMatchObject({ email, previousKeyId: held.id })
    // Until the new key's mail is accepted, the old key is untouched.
    expect(await findKeyByHash(db.sql, hashApiKey(held.key))).toMatchObject({ status: 'active' })
    await markKeyMailDelivered(db.sql, rolled)
    expect(await findKeyByHash(db.sql, hashApiKey(held.key))).toMatchObject({
      status: 'rotated',
      rotatedTo: rolled.keyId,
    })
    const [expired] = await db.sql`SELECT expires_at <= now() AS gone FROM api_keys WHERE id = ${held.id}`
    expect(expired?.gone).toBe(true)
    expect(await findKeyByHash(db.sql, hashApiKey(rolled.key))).toMatchObject({
      id: rolled.keyId,
      status: 'active',
      accountId: held.id,
    })
    const [event] = (await auditEvents(db.sql, held.id, 1, null)) ?? []
    expect(event).toMatchObject({
      kind: 'key.rotated',
      actor: { kind: 'holder', keyId: held.id, addressHash: FROM_C },
      details: { key_id: held.id, new_key_id: rolled.keyId, grace_seconds: 0 },
    })
    expect(await requestRow(rolled.requestId)).toMatchObject({ state: 'sent', outcome: 'rolled_key' })
  })

  it('answers expired after the link’s hour and unknown for any other token, queueing nothing', async () => {
    const { hash } = await noticeFor(freshEmail())
    await db.sql`UPDATE key_roll_links SET expires_at = now() - interval '1 second' WHERE token_hash = ${hash}`
    expect(await rollLinkState(db.sql, hash)).toBe('expired')
    expect(await confirmKeyRoll(db.sql, hash, FROM_C)).toBe('expired')
    const unknown = hashLinkToken('A'.repeat(43))
    expect(await rollLinkState(db.sql, unknown)).toBe('unknown')
    expect(await confirmKeyRoll(db.sql, unknown, FROM_C)).toBe('unknown')
    const [rolls] = await db.sql`SELECT count(*)::int AS n FROM key_requests WHERE kind = 'roll'`
    expect(rolls?.n).toBe(0)
  })

  it('drops a roll whose key was revoked meanwhile, before or after it was taken up', async () => {
    const before = await noticeFor(freshEmail())
    await confirmKeyRoll(db.sql, before.hash, FROM_C)
    await setKeyStatus(db.sql, before.held.id, 'revoke')
    expect(await take()).toBeNull()
    const [dropped] = await db.sql`SELECT state, outcome FROM key_requests WHERE kind = 'roll'`
    expect(dropped).toEqual({ state: 'dropped', outcome: 'none' })

    const after = await noticeFor(freshEmail())
    await confirmKeyRoll(db.sql, after.hash, FROM_C)
    const rolled = await taken('rolled_key')
    await setKeyStatus(db.sql, after.held.id, 'revoke')
    await markKeyMailDelivered(db.sql, rolled)
    expect(await requestRow(rolled.requestId)).toMatchObject({ state: 'dropped', outcome: 'none' })
    expect(await findKeyByHash(db.sql, hashApiKey(rolled.key))).toBeNull()
    expect(await findKeyByHash(db.sql, hashApiKey(after.held.key))).toMatchObject({ status: 'revoked' })
  })
})

describe('purgeKeyRequests', () => {
  it('removes requests finished and links expired before `before`, and keeps queued requests', async () => {
    const old = await noticeFor(freshEmail())
    const recent = await noticeFor(freshEmail())
    await record(freshEmail())
    await db.sql`UPDATE key_requests SET created_at = now() - interval '3 days'`
    await db.sql`
      UPDATE key_requests SET finished_at = now() - interval '2 days' WHERE id = ${old.notice.requestId}`
    await db.sql`
      UPDATE key_roll_links SET expires_at = now() - interval '2 days' WHERE token_hash = ${old.hash}`
    const before = new Date(Date.now() - 86_400_000)
    expect(await purgeKeyRequests(db.sql, before)).toBe(2)
    const left = await db.sql`SELECT id::text, state FROM key_requests ORDER BY id`
    expect(left.map((r) => r.id)).not.toContain(old.notice.requestId)
    expect(left.map((r) => r.state).sort()).toEqual(['queued', 'sent'])
    expect(await rollLinkState(db.sql, old.hash)).toBe('unknown')
    expect(await rollLinkState(db.sql, recent.hash)).toBe('valid')
    expect(await purgeKeyRequests(db.sql, before)).toBe(0)
  })
})
