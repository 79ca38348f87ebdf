import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import { appendAuditEvent, auditEvents, OPERATOR } from './audit.ts'
import { markKeyMailDelivered, recordKeyRequest, takeNextKeyMail } from './key-requests.ts'
import { createKey, rotateKey, setKeyStatus } from './keys.ts'
import { migrate } from './migrate.ts'

/** The audit log's SQL against PostgreSQL: appended with the key changes, read an account at a time. */
describe('audit log (PostgreSQL)', () => {
  const LIMITS = { perAddressPerHour: 5, perHour: 500 }
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql)
  })
  afterAll(() => db.drop())

  const kinds = async (accountId: string) =>
    ((await auditEvents(db.sql, accountId, 100, null)) ?? []).map((event) => event.kind)

  it('logs every key change with its account: created, deactivated, activated, rotated, revoked', async () => {
    const issued = await createKey(db.sql, { tier: 'mycel' })
    await setKeyStatus(db.sql, issued.id, 'deactivate')
    await setKeyStatus(db.sql, issued.id, 'activate')
    // Asking for the status a key already has changes nothing, and logs nothing.
    await setKeyStatus(db.sql, issued.id, 'activate')
    const { issued: replacement } = await rotateKey(db.sql, issued.id, 60)
    await setKeyStatus(db.sql, replacement.id, 'revoke')
    expect(await kinds(issued.id)).toEqual([
      'key.revoked',
      'key.rotated',
      'key.activated',
      'key.deactivated',
      'key.created',
    ])
    const [revoked, rotated] = (await auditEvents(db.sql, issued.id, 2, null)) ?? []
    expect(rotated).toMatchObject({
      accountId: issued.id,
      actor: OPERATOR,
      details: { key_id: issued.id, new_key_id: replacement.id, grace_seconds: 60 },
    })
    expect(revoked?.details).toEqual({ key_id: replacement.id, previous_status: 'active' })
  })

  /** A self-service request recorded and taken up by a mailer: the key it will mail, not written yet. */
  async function mailedKey(email: string, issuedFrom: string) {
    await db.sql`DELETE FROM key_requests WHERE state = 'queued'`
    expect(await recordKeyRequest(db.sql, { email, name: null, issuedFrom }, LIMITS)).toEqual({
      recorded: true,
    })
    const mail = await takeNextKeyMail(db.sql, 60_000, 3_600_000)
    if (mail?.kind !== 'key') throw new Error(`expected a key to mail, got ${mail?.kind}`)
    return mail
  }

  it('logs a self-service key as issued by its holder, from the address hash, with the key itself', async () => {
    const issuedFrom = 'ab'.repeat(32)
    const mail = await mailedKey('audit-holder@example.org', issuedFrom)
    // Nothing is written (neither the key nor its event) until the address has its message.
    expect(await kinds(mail.keyId)).toEqual([])
    await markKeyMailDelivered(db.sql, mail)
    const [event] = (await auditEvents(db.sql, mail.keyId, 10, null)) ?? []
    expect(event).toMatchObject({
      kind: 'key.issued',
      actor: { kind: 'holder', keyId: mail.keyId, addressHash: issuedFrom },
      details: { key_id: mail.keyId, tier: 'spore' },
    })
    expect(JSON.stringify(event)).not.toContain('audit-holder')
    // The key and its event were written by one (sub)transaction: same xid, same now().
    const [written] = await db.sql`
      SELECT k.xmin::text = e.xmin::text AS same_transaction, k.created_at = e.created_at AS same_time
      FROM api_keys k JOIN audit_events e ON e.account_id = k.account_id
      WHERE k.id = ${mail.keyId} AND e.kind = 'key.issued'`
    expect(written).toEqual({ sameTransaction: true, sameTime: true })
  })

  it('writes no self-service key whose key.issued event cannot be written', async () => {
    const mail = await mailedKey('audit-refused@example.org', 'cd'.repeat(32))
    await db.sql`ALTER TABLE audit_events ADD CONSTRAINT refuse_issued CHECK (kind <> 'key.issued') NOT VALID`
    try {
      await expect(markKeyMailDelivered(db.sql, mail)).rejects.toThrow(/refuse_issued/)
    } finally {
      await db.sql`ALTER TABLE audit_events DROP CONSTRAINT refuse_issued`
    }
    const [keys] =
      await db.sql`SELECT count(*)::int AS n FROM api_keys WHERE email = 'audit-refused@example.org'`
    expect(keys?.n).toBe(0)
    const [request] = await db.sql`SELECT state FROM key_requests WHERE id = ${mail.requestId}`
    expect(request?.state).toBe('queued')
    // Once the event can be written, the same delivery writes both.
    await markKeyMailDelivered(db.sql, mail)
    expect(await kinds(mail.keyId)).toEqual(['key.issued'])
  })

  it('makes no key change whose event cannot be written: the change and its event commit together', async () => {
    const issued = await createKey(db.sql, { tier: 'mycel' })
    // An event the table refuses (an address hash that is not one) takes the rotation down with it.
    const refused = { kind: 'holder' as const, keyId: issued.id, addressHash: 'not a hash' }
    await expect(rotateKey(db.sql, issued.id, 0, refused)).rejects.toThrow(/audit_events/)
    const [row] = await db.sql`SELECT status, rotated_to FROM api_keys WHERE id = ${issued.id}`
    expect(row).toEqual({ status: 'active', rotatedTo: null })
    const [keys] = await db.sql`SELECT count(*)::int AS n FROM api_keys WHERE account_id = ${issued.id}`
    expect(keys?.n).toBe(1)
    expect(await kinds(issued.id)).toEqual(['key.created'])
  })

  it('pages an account newest first, every event once, and refuses an anchor of another account', async () => {
    const account = 'key_00000000000000a1'
    const other = 'key_00000000000000b2'
    for (let i = 0; i < 7; i++) {
      await appendAuditEvent(db.sql, {
        accountId: account,
        kind: 'key.activated',
        actor: OPERATOR,
        details: { n: i },
      })
      await appendAuditEvent(db.sql, { accountId: other, kind: 'key.revoked', actor: OPERATOR, details: {} })
    }
    // Several events in one transaction share its now(): ties are broken by id.
    await db.sql.begin(async (tx) => {
      for (const n of [7, 8, 9])
        await appendAuditEvent(tx as never, {
          accountId: account,
          kind: 'key.activated',
          actor: OPERATOR,
          details: { n },
        })
    })
    const seen: number[] = []
    let after: string | null = null
    for (;;) {
      const page: Awaited<ReturnType<typeof auditEvents>> = await auditEvents(db.sql, account, 3, after)
      if (!page || page.length === 0) break
      seen.push(...page.map((event) => Number(event.details.n)))
      expect(page.every((event) => event.accountId === account)).toBe(true)
      after = page.at(-1)?.id ?? null
    }
    expect(seen.slice(3).sort((a, b) => b - a)).toEqual(seen.slice(3))
    expect(seen.slice(0, 3).sort()).toEqual([7, 8, 9])
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    const [theirs] = (await auditEvents(db.sql, other, 1, null)) ?? []
    expect(await auditEvents(db.sql, account, 3, theirs?.id ?? null)).toBeNull()
    expect(await auditEvents(db.sql, account, 3, 'evt_000000000000000000000000')).toBeNull()
  })

  it('refuses what the log must never hold: a malformed id, kind, key id or address hash', async () => {
    const valid = {
      id: 'evt_0123456789abcdef01234567',
      account_id: 'key_00000000000000c3',
      kind: 'key.rotated',
      actor: 'holder',
      key_id: 'key_00000000000000c3',
      address_hash: 'cd'.repeat(32),
    }
    const insert = (row: Record<string, string | null>) =>
      db.sql`INSERT INTO audit_events ${db.sql(row as Record<string, string>)}`
    for (const [column, value] of [
      ['id', '1'],
      ['kind', 'rotated'],
      ['actor', 'someone'],
      ['key_id', 'tsp_live_0123456789abcdef0123456789abcdef'],
      ['address_hash', '127.0.0.1'],
    ] as const)
      await expect(insert({ ...valid, [column]: value }), column).rejects.toThrow(/check constraint/)
    // An operator acts with no key and from no address.
    await expect(insert({ ...valid, actor: 'operator' })).rejects.toThrow(/check constraint/)
    await insert(valid)
  })
})
