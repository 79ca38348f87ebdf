import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sql } from '../../src/db/connect.ts'
import { createKey, setKeyStatus } from '../../src/db/keys.ts'
import { readMigrations } from '../../src/db/migrate.ts'
import { rest } from '../rest/client.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
import { createSeededDatabase } from '../support/fixtures.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { TEST_REDIS_URL } from '../support/services.ts'
import { compareBody, FOREST_POINTS, predictBodies, predictBody } from '../support/sites.ts'
import { sleep } from '../support/waiting.ts'

/**
 * The operators' backup-and-restore drill of docs/operations.md, against real PostgreSQL, Redis and
 * /usr/bin/pg_dump and pg_restore: keys of every standing, usage, an audit log and predictions on a
 * server; the server stopped; the database dumped and restored into a fresh one with the doc's own
 * commands; a server on the copy answering every key, audit page, usage history, survey plot and pinned prediction
 * as before.
 */

const run = promisify(execFile)

/** The drill's commands, exactly as the doc's `## Backup and restore` section gives them. */
const BACKUP_COMMAND = 'pg_dump --format=custom --file="$BACKUP_FILE" "$DATABASE_URL"'
const RESTORE_COMMAND = 'pg_restore --no-owner --exit-on-error --dbname="$RESTORE_URL" "$BACKUP_FILE"'

/** The commands of the fenced shell block in that section, comments and blank lines left out. */
function documentedCommands(): string[] {
  const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8')
  const section = doc.split(/^## /m).find((part) => part.startsWith('Backup and restore\n')) ?? ''
  const block = /^```(?:sh|shell|bash)\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? ''
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

/** Requests whose answers must come back byte for byte (with the mycel key). */
const PINNED: { method: string; path: string; json?: unknown }[] = [
  { method: 'POST', path: '/v1/predict', json: predictBody() },
  { method: 'POST', path: '/v1/predict/compare', json: compareBody({ species_code: 'TSHE' }) },
  { method: 'POST', path: '/v1/predict/batch', json: { sites: predictBodies(3) } },
  {
    method: 'POST',
    path: '/v1/predict/rank',
    json: { ...FOREST_POINTS.westCascades, planting_method: 'manual', horizon: 5 },
  },
  { method: 'GET', path: '/v1/species' },
  // What the account wrote, and what is worked out from it.
  { method: 'GET', path: '/v1/surveys?limit=10' },
  { method: 'GET', path: '/v1/surveys/report' },
]

/** Survey plots the mycel account writes before the backup. */
const SURVEY_PLOTS = predictBodies(3).map((site, index) => ({
  ...site,
  plot_id: `drill-${index}`,
  planted_on: '2021',
  surveyed_on: '2024-06-01',
  planted: 40,
  alive: 25 + index,
}))

/** The one part of an answer that names the moment it was made. */
const timeless = (text: string) => text.replace(/"generated_at":"[^"]*"/g, '"generated_at":"(when)"')

/** Every table's rows and digest, and the schema's indexes, triggers, functions, extensions, sequences. */
async function contents(sql: Sql): Promise<Record<string, string>> {
  const tables = await sql<{ name: string }[]>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`
  const found: Record<string, string> = {}
  for (const { name } of tables) {
    const [row] = await sql.unsafe<{ rows: number; digest: string }[]>(
      `SELECT count(*)::int AS rows, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest
       FROM public."${name}" t`,
    )
    found[`table ${name}`] = `${row?.rows} rows, ${row?.digest}`
  }
  const objects = await sql<{ what: string }[]>`
    SELECT 'index ' || indexname AS what FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT 'function ' || oid::regprocedure::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace
    UNION ALL SELECT 'extension ' || extname || ' ' || extversion FROM pg_extension
    UNION ALL SELECT 'sequence ' || sequencename || ' at ' || coalesce(last_value::text, '-')
      FROM pg_sequences WHERE schemaname = 'public'`
  for (const { what } of objects) found[what] = 'present'
  return found
}

const migrations = (sql: Sql) =>
  sql<{ version: number; name: string; appliedAt: Date }[]>`
    SELECT version, name, applied_at FROM schema_migrations ORDER BY version`

/** Each key's answer to one call, as `status code`. */
type Standing = Record<string, string>

describe('backup and restore drill (docs/operations.md)', () => {
  const prefix = `test:quota:backup:${randomBytes(6).toString('hex')}:`
  const backupFile = join(tmpdir(), `survival-backup-${randomBytes(6).toString('hex')}.dump`)
  const keys: Record<string, string> = {}
  const accounts = ['rolled', 'mycel', 'hypha'] as const
  let original: TestDatabase
  let restored: TestDatabase | undefined
  let server: ServerProcess | undefined
  let worksUntil = 0
  let standing: Standing = {}
  const pinned: string[] = []
  const audits: Record<string, string[]> = {}
  // biome-ignore lint/suspicious/noExplicitAny: the checked GET /v1/usage bodies
  const usage: Record<string, any> = {}

  const start = (url: string) =>
    startServerProcess({
      DATABASE_URL: url,
      REDIS_URL: TEST_REDIS_URL,
      // One Redis for both servers, as when only PostgreSQL is restored: the day's quota count carries on.
      QUOTA_KEY_PREFIX: prefix,
      JOB_QUEUE_PREFIX: `${prefix}bull`,
      USAGE_FLUSH_MS: '50',
      KEY_CACHE_MS: '0',
    })
  const call = (method: string, path: string, key: string, json?: unknown) =>
    rest((server as ServerProcess).url, method, path, { key, json })

  async function standings(): Promise<Standing> {
    const answers: Standing = {}
    for (const [name, key] of Object.entries(keys)) {
      const answer = await call('GET', '/v1/methods', key)
      answers[name] = `${answer.status} ${answer.body?.error?.code ?? 'ok'}`
    }
    return answers
  }

  /** Every page of the account's audit log, two events a page, as sent. */
  async function auditPages(key: string): Promise<string[]> {
    const pages: string[] = []
    let cursor: string | null = null
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const page = await call('GET', `/v1/audit?limit=2${query}`, key)
      expect(page.status, page.text).toBe(200)
      pages.push(page.text)
      cursor = page.body.next_cursor
    } while (cursor !== null)
    return pages
  }

  beforeAll(async () => {
    original = await createSeededDatabase()
  }, 60_000)

  afterAll(async () => {
    await server?.stop()
    await rm(backupFile, { force: true })
    await restored?.drop()
    await original?.drop()
    await deleteKeysWithPrefix(prefix)
  })

  it('the doc gives exactly the commands this drill runs', () => {
    expect(documentedCommands()).toEqual([BACKUP_COMMAND, RESTORE_COMMAND])
  })

  it('before: keys of every standing, a key rolled over the API, usage, audit and pinned answers', async () => {
    const created = async (tier: 'spore' | 'mycel' | 'hypha', name: string) =>
      createKey(original.sql, { tier, name: `drill ${name}` })
    const rolled = await created('spore', 'rolled')
    const mycel = await created('mycel', 'mycel')
    const hypha = await created('hypha', 'hypha')
    const paused = await created('mycel', 'paused')
    const revoked = await created('spore', 'revoked')
    await setKeyStatus(original.sql, rolled.id, 'deactivate')
    await setKeyStatus(original.sql, rolled.id, 'activate')
    await setKeyStatus(original.sql, paused.id, 'deactivate')
    await setKeyStatus(original.sql, revoked.id, 'deactivate')
    await setKeyStatus(original.sql, revoked.id, 'revoke')
    server = await start(original.url)

    const roll = await call('POST', '/v1/keys/rotate', rolled.key, { grace_seconds: 2 })
    expect(roll.status, roll.text).toBe(201)
    worksUntil = Date.parse(roll.body.previous_key.works_until)
    Object.assign(keys, {
      'rolled (old)': rolled.key,
      rolled: roll.body.key,
      mycel: mycel.key,
      hypha: hypha.key,
      paused: paused.key,
      revoked: revoked.key,
    })
    standing = await standings()
    expect(standing).toEqual({
      'rolled (old)': '200 ok',
      rolled: '200 ok',
      mycel: '200 ok',
      hypha: '200 ok',
      paused: '403 key_inactive',
      revoked: '401 invalid_api_key',
    })

    const surveys = await call('POST', '/v1/surveys', keys.mycel as string, { plots: SURVEY_PLOTS })
    expect(surveys.status, surveys.text).toBe(200)
    for (const request of PINNED) {
      const answer = await call(request.method, request.path, keys.mycel as string, request.json)
      expect(answer.status, answer.text).toBe(200)
      pinned.push(answer.text)
    }
    for (const name of ['rolled', 'hypha']) {
      const answer = await call(
        'POST',
        '/v1/predict',
        keys[name] as string,
        predictBody({ species_code: 'PIPO' }),
      )
      expect(answer.status, answer.text).toBe(200)
    }
    // Last of all on each account, so the restored server's first call there can be compared with it.
    for (const name of accounts) {
      audits[name] = await auditPages(keys[name] as string)
      const answer = await call('GET', '/v1/usage', keys[name] as string)
      expect(answer.status, answer.text).toBe(200)
      usage[name] = answer.body
    }
    expect(audits.rolled?.length).toBe(2)
    expect(usage.mycel.history.at(-1).requests).toBe(1 + 1 + PINNED.length + 1 + 1)
    expect(await server.stop()).toBe(0)
    server = undefined
  }, 60_000)

  it('backs up and restores with the doc’s commands; everything comes back, migrations included', async () => {
    restored = await createTestDatabase()
    const env = {
      ...process.env,
      DATABASE_URL: original.url,
      RESTORE_URL: restored.url,
      BACKUP_FILE: backupFile,
    }
    for (const command of documentedCommands()) await run('bash', ['-c', command], { env })

    expect(await contents(restored.sql)).toEqual(await contents(original.sql))
    const before = await migrations(restored.sql)
    expect(before).toEqual(await migrations(original.sql))
    expect(before.map((row) => row.name)).toEqual((await readMigrations()).map((m) => m.name))
    const migrated = await run('npm', ['run', '--silent', 'db:migrate'], {
      env: { ...process.env, DATABASE_URL: restored.url, LOG_LEVEL: 'info' },
    })
    expect(migrated.stdout + migrated.stderr).toContain('schema up to date')
    expect(await migrations(restored.sql)).toEqual(before)
  }, 60_000)

  it('after: usage history, audit pages and pinned answers are the same; every key answers as before', async () => {
    server = await start((restored as TestDatabase).url)
    for (const name of accounts) {
      const answer = await call('GET', '/v1/usage', keys[name] as string)
      expect(answer.status, answer.text).toBe(200)
      const before = usage[name]
      const after = answer.body
      // This call is one more today, in the history and the quota counter; its use is the key's last.
      const history = before.history.map((day: { requests: number }, index: number, all: unknown[]) =>
        index === all.length - 1 ? { ...day, requests: day.requests + 1 } : day,
      )
      expect(after.history, name).toEqual(history)
      const { used, remaining } = before.today
      expect(after.today, name).toEqual({
        ...before.today,
        used: used + 1,
        remaining: remaining === null ? null : remaining - 1,
      })
      expect({ ...after, history: [], today: {} }).toEqual({
        ...before,
        key: { ...before.key, last_used_at: after.key.last_used_at },
        history: [],
        today: {},
      })
      expect(Date.parse(after.key.last_used_at)).toBeGreaterThanOrEqual(Date.parse(before.key.last_used_at))
      expect(await auditPages(keys[name] as string), name).toEqual(audits[name])
    }

    for (const [index, request] of PINNED.entries()) {
      const answer = await call(request.method, request.path, keys.mycel as string, request.json)
      expect(answer.status, answer.text).toBe(200)
      expect(timeless(answer.text), request.path).toBe(timeless(pinned[index] as string))
    }

    await sleep(Math.max(0, worksUntil + 100 - Date.now()))
    expect(await standings()).toEqual({ ...standing, 'rolled (old)': '401 invalid_api_key' })
  }, 60_000)
})
