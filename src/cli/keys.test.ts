import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import { migrate } from '../db/migrate.ts'

const run = promisify(execFile)

describe('npm run keys (CLI)', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql)
  })
  afterAll(() => db.drop())

  const keys = (args: string[], env: Record<string, string | undefined> = { DATABASE_URL: db.url }) =>
    run('npm', ['run', '--silent', 'keys', '--', ...args], {
      env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    })

  it('create --json prints exactly one JSON object on stdout and logs to stderr', async () => {
    const { stdout, stderr } = await keys(['create', '--tier', 'spore', '--name', 'Demo Co', '--json'])
    const lines = stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    const issued = JSON.parse(lines[0] ?? '')
    expect(Object.keys(issued).sort()).toEqual(['id', 'key', 'status', 'tier'])
    expect(issued).toMatchObject({ tier: 'spore', status: 'active' })
    expect(issued.key).toMatch(/^tsp_live_[0-9a-f]{32}$/)
    expect(stderr).not.toContain(issued.key)
  })

  it('deactivate, activate, rotate and revoke by id; list never shows keys', async () => {
    const { stdout } = await keys(['create', '--tier', 'mycel', '--json'])
    const issued = JSON.parse(stdout)
    await keys(['deactivate', issued.id])
    await keys(['activate', issued.id])
    const rotated = JSON.parse((await keys(['rotate', issued.id, '--json'])).stdout)
    expect(rotated).toMatchObject({ tier: 'mycel', status: 'active' })
    expect(rotated.id).not.toBe(issued.id)
    await keys(['revoke', rotated.id])
    const listed = (await keys(['list', '--json'])).stdout
    const records = JSON.parse(listed)
    expect(Object.keys(records[0]).sort()).toEqual([
      'account_id',
      'created_at',
      'expires_at',
      'id',
      'key_hint',
      'last_used_at',
      'name',
      'rotated_to',
      'status',
      'tier',
      'updated_at',
    ])
    const old = records.find((r: { id: string }) => r.id === issued.id)
    expect(old).toMatchObject({
      rotated_to: rotated.id,
      account_id: issued.id,
      key_hint: issued.key.slice(-4),
    })
    expect(old?.status).toBe('rotated')
    expect(records.find((r: { id: string }) => r.id === rotated.id)?.status).toBe('revoked')
    expect(listed).not.toContain(issued.key)
    expect(listed).not.toContain(rotated.key)
  })

  it('create --expires-in sets the expiry and prints it; rotate --grace keeps the old key for that long', async () => {
    const started = Date.now()
    const issued = JSON.parse(
      (await keys(['create', '--tier', 'mycel', '--expires-in', '30d', '--json'])).stdout,
    )
    expect(Object.keys(issued).sort()).toEqual(['expires_at', 'id', 'key', 'status', 'tier'])
    const expiresAt = new Date(issued.expires_at).getTime()
    expect(expiresAt - started).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000)
    expect(expiresAt - started).toBeLessThan(30 * 86_400_000 + 60_000)

    const rotated = JSON.parse((await keys(['rotate', issued.id, '--grace', '2h', '--json'])).stdout)
    expect(rotated).toMatchObject({ tier: 'mycel', status: 'active', expires_at: issued.expires_at })
    expect(rotated.previous_key.id).toBe(issued.id)
    const worksUntil = new Date(rotated.previous_key.works_until).getTime()
    expect(worksUntil - started).toBeGreaterThanOrEqual(2 * 3_600_000 - 1000)
    expect(worksUntil - started).toBeLessThan(2 * 3_600_000 + 60_000)
    const [old] = await db.sql<{ status: string; accountId: string }[]>`
      SELECT status, account_id FROM api_keys WHERE id = ${issued.id}`
    const [fresh] = await db.sql<
      { accountId: string }[]
    >`SELECT account_id FROM api_keys WHERE id = ${rotated.id}`
    expect(old).toMatchObject({ status: 'rotated', accountId: issued.id })
    expect(fresh?.accountId).toBe(issued.id)
  })

  it('logs every change in the key’s account, as the operator, with no key and no address', async () => {
    const { stdout } = await keys(['create', '--tier', 'mycel', '--expires-in', '30d', '--json'])
    const issued = JSON.parse(stdout)
    await keys(['deactivate', issued.id])
    await keys(['activate', issued.id])
    const rotated = JSON.parse((await keys(['rotate', issued.id, '--grace', '1h', '--json'])).stdout)
    await keys(['revoke', rotated.id])
    const events = await db.sql<
      { kind: string; actor: string; keyId: string | null; addressHash: string | null; details: unknown }[]
    >`
      SELECT kind, actor, key_id, address_hash, details FROM audit_events
      WHERE account_id = ${issued.id} ORDER BY created_at, id`
    expect(events.map((event) => event.kind)).toEqual([
      'key.created',
      'key.deactivated',
      'key.activated',
      'key.rotated',
      'key.revoked',
    ])
    for (const event of events)
      expect(event).toMatchObject({ actor: 'operator', keyId: null, addressHash: null })
    expect(events[0]?.details).toEqual({
      key_id: issued.id,
      tier: 'mycel',
      status: 'active',
      expires_at: issued.expires_at,
    })
    expect(events[3]?.details).toEqual({ key_id: issued.id, new_key_id: rotated.id, grace_seconds: 3600 })
    expect(events[4]?.details).toEqual({ key_id: rotated.id, previous_status: 'active' })
    const logged = JSON.stringify(events)
    for (const secret of [issued.key, rotated.key]) expect(logged).not.toContain(secret)
  })

  it('refuses a grace over 7 days and an expiry that is not a duration', async () => {
    const issued = JSON.parse((await keys(['create', '--tier', 'spore', '--json'])).stdout)
    await expect(keys(['rotate', issued.id, '--grace', '8d'])).rejects.toMatchObject({
      stderr: expect.stringContaining('7d'),
      stdout: '',
    })
    await expect(keys(['create', '--tier', 'spore', '--expires-in', 'soon'])).rejects.toMatchObject({
      stderr: expect.stringContaining('duration'),
      stdout: '',
    })
  })

  it('usage <id> --json prints the key and 30 days of requests, its account’s across a rotation', async () => {
    const issued = JSON.parse((await keys(['create', '--tier', 'hypha', '--name', 'usage', '--json'])).stdout)
    const today = new Date().toISOString().slice(0, 10)
    await db.sql`INSERT INTO key_usage_daily (account_id, day, requests) VALUES (${issued.id}, ${today}, 42)`
    const rotated = JSON.parse((await keys(['rotate', issued.id, '--json'])).stdout)
    const { stdout } = await keys(['usage', rotated.id, '--json'])
    expect(stdout.trim().split('\n')).toHaveLength(1)
    const usage = JSON.parse(stdout)
    expect(usage.key).toMatchObject({ id: rotated.id, tier: 'hypha', status: 'active', name: 'usage' })
    expect(usage.today).toEqual({ date: today, requests: 42 })
    expect(usage.history).toHaveLength(30)
    expect(usage.history.at(-1)).toEqual({ date: today, requests: 42 })
  })

  it('fails with a clear message and non-zero exit on an unknown id, a bad tier or no database', async () => {
    await expect(keys(['revoke', 'key_0000000000000000'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no API key with id key_0000000000000000'),
      stdout: '',
    })
    await expect(keys(['create', '--tier', 'gold', '--json'])).rejects.toMatchObject({
      stderr: expect.stringContaining('gold'),
      stdout: '',
    })
    await expect(keys(['list', '--json'], { DATABASE_URL: '' })).rejects.toMatchObject({
      stderr: expect.stringContaining('DATABASE_URL is not set'),
    })
  })
})
