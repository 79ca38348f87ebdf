import { describe, expect, it } from 'vitest'
import { MemoryAuditLog } from '../../test/support/fakes.ts'
import type { NewAuditEvent } from '../types.ts'
import { AUDIT_PAGE_DEFAULT, AuditService, addressTag, decodeCursor, encodeCursor } from './audit-service.ts'
import { ApiError } from './errors.ts'
import { hashClientAddress } from './key-service.ts'

const HASH_KEY = 'audit-service-test-key-0123456789abcdef0123456789'

function rotation(accountId: string, address: string, n: number): NewAuditEvent {
  return {
    accountId,
    kind: 'key.rotated',
    actor: { kind: 'holder', keyId: accountId, addressHash: hashClientAddress(HASH_KEY, address) },
    details: { n },
  }
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (caught: unknown) => caught,
  )
  if (!(error instanceof ApiError)) throw error
  return error
}

describe('AuditService', () => {
  it('pages the account newest first, 50 by default, with a cursor while more remain', async () => {
    const log = new MemoryAuditLog()
    const audit = new AuditService(log)
    for (let n = 0; n < 120; n++) await audit.record(rotation('key_000000000000000a', '192.0.2.1', n))
    const first = await audit.page('key_000000000000000a', {})
    expect(first.events).toHaveLength(AUDIT_PAGE_DEFAULT)
    expect(first.events[0]?.details).toEqual({ n: 119 })
    const seen = first.events.map((event) => Number(event.details.n))
    let cursor = first.nextCursor
    while (cursor !== null) {
      const page = await audit.page('key_000000000000000a', { limit: 30, cursor })
      seen.push(...page.events.map((event) => Number(event.details.n)))
      cursor = page.nextCursor
    }
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i))
    // A page that ends exactly at the last event says so: no cursor to an empty page.
    expect((await audit.page('key_000000000000000a', { limit: 120 })).nextCursor).toBeNull()
  })

  it('refuses a cursor it did not hand out to this account: 400 invalid_request naming cursor', async () => {
    const audit = new AuditService(new MemoryAuditLog())
    await audit.record(rotation('key_000000000000000a', '192.0.2.1', 1))
    await audit.record(rotation('key_000000000000000a', '192.0.2.1', 2))
    await audit.record(rotation('key_000000000000000b', '192.0.2.1', 3))
    const theirs = await audit.page('key_000000000000000a', { limit: 1 })
    expect(theirs.nextCursor).not.toBeNull()
    for (const cursor of [
      'x',
      '!!!',
      encodeCursor('evt_1'),
      `${theirs.nextCursor}=`,
      theirs.nextCursor?.toUpperCase(),
      theirs.nextCursor as string,
    ]) {
      const error = await refusal(audit.page('key_000000000000000b', { cursor }))
      expect(error.code, cursor).toBe('invalid_request')
      expect(error.details, cursor).toEqual({
        field: 'cursor',
        reason: "is not a cursor of this account's audit log",
      })
    }
  })

  it('keeps cursors opaque: only the ids it writes come back', () => {
    const id = 'evt_0123456789abcdef01234567'
    expect(decodeCursor(encodeCursor(id))).toBe(id)
    expect(encodeCursor(id)).not.toContain('evt_')
    for (const bad of ['', 'evt_0123456789abcdef01234567', encodeCursor('evt_XYZ'), encodeCursor(`${id} `)])
      expect(decodeCursor(bad), bad).toBeNull()
  })

  it('shows an address as a tag of the account: one per address, other in other accounts, never the kept hash', async () => {
    const audit = new AuditService(new MemoryAuditLog())
    await audit.record(rotation('key_000000000000000a', '192.0.2.1', 1))
    await audit.record(rotation('key_000000000000000a', '192.0.2.1', 2))
    await audit.record(rotation('key_000000000000000a', '198.51.100.7', 3))
    await audit.record(rotation('key_000000000000000b', '192.0.2.1', 4))
    await audit.record({
      accountId: 'key_000000000000000b',
      kind: 'key.revoked',
      actor: { kind: 'operator' },
      details: {},
    })
    const [third, second, first] = (await audit.page('key_000000000000000a', {})).events
    expect(first?.addressTag).toMatch(/^[0-9a-f]{32}$/)
    expect(second?.addressTag).toBe(first?.addressTag)
    expect(third?.addressTag).not.toBe(first?.addressTag)
    const [operator, elsewhere] = (await audit.page('key_000000000000000b', {})).events
    expect(elsewhere?.addressTag).not.toBe(first?.addressTag)
    expect(operator).toMatchObject({ actor: 'operator', keyId: null, addressTag: null })
    const kept = hashClientAddress(HASH_KEY, '192.0.2.1')
    expect(first?.addressTag).toBe(addressTag(kept, 'key_000000000000000a'))
    expect(kept).not.toContain(first?.addressTag)
  })
})
