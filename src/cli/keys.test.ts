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
    expect(records.find((r: { id: string }) => r.id === issued.id)?.status).toBe('rotated')
    expect(records.find((r: { id: string }) => r.id === rotated.id)?.status).toBe('revoked')
    expect(listed).not.toContain(issued.key)
    expect(listed).not.toContain(rotated.key)
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
