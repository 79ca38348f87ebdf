import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setKeyStatus } from '../../src/db/keys.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { ADMIN_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts'
import { eventually, sleep } from '../support/waiting.ts'

const run = promisify(execFile)

/** How soon every other process must refuse a changed key. */
const FLEET_MS = 1000
/**
 * The servers keep a key's standing in memory this long: far past FLEET_MS, so only the change
 * channel can explain a refusal within it.
 */
const KEY_CACHE_MS = 60_000

interface Answer {
  server: number
  sentAt: number
  status: number
  expiresHeader: string | null
}

/** A key in continuous use against every server, as a busy client's would be. */
class KeyInUse {
  readonly answers: Answer[] = []
  private running = true
  private readonly loops: Promise<void>[]

  constructor(
    readonly urls: readonly string[],
    readonly key: string,
  ) {
    this.loops = urls.map((url, server) => this.loop(url, server))
  }

  private async loop(url: string, server: number): Promise<void> {
    while (this.running) {
      const sentAt = Date.now()
      const response = await fetch(`${url}/v1/species`, { headers: { 'x-api-key': this.key } })
      await response.arrayBuffer()
      this.answers.push({
        server,
        sentAt,
        status: response.status,
        expiresHeader: response.headers.get('api-key-expires'),
      })
      await sleep(5)
    }
  }

  /** Waits until each server has answered a request sent at or after `at`. */
  async answeredSince(at: number): Promise<void> {
    const done = await eventually(
      () => this.urls.every((_, server) => this.answers.some((a) => a.server === server && a.sentAt >= at)),
      10_000,
      20,
    )
    expect(done).toBe(true)
  }

  /** The answers of one server to requests sent in [from, to). */
  sent(server: number, from: number, to = Number.POSITIVE_INFINITY): Answer[] {
    return this.answers.filter((a) => a.server === server && a.sentAt >= from && a.sentAt < to)
  }

  async stop(): Promise<void> {
    this.running = false
    await Promise.all(this.loops)
  }
}

/**
 * Starts using `key` on every server, waits until each has admitted it (so its standing is cached
 * there), runs `change`, and returns when the change was made (committed) and the usage.
 */
async function changeWhileInUse(
  urls: readonly string[],
  key: string,
  change: () => Promise<void>,
): Promise<{ use: KeyInUse; changedAt: number }> {
  const use = new KeyInUse(urls, key)
  const started = Date.now()
  await use.answeredSince(started)
  for (const server of urls.keys())
    expect(use.sent(server, started).every((a) => a.status === 200)).toBe(true)
  await change()
  const changedAt = Date.now()
  await use.answeredSince(changedAt + FLEET_MS)
  await use.stop()
  return { use, changedAt }
}

/** Every request sent to a server `afterMs` after the change or later was answered with `status`. */
function answeredAfter(use: KeyInUse, server: number, changedAt: number, afterMs: number, status: number) {
  const late = use.sent(server, changedAt + afterMs)
  expect(late.length).toBeGreaterThan(0)
  expect(late.map((a) => a.status)).toEqual(late.map(() => status))
}

describe('key changes reach both server processes while the key is in use', () => {
  let db: TestDatabase
  let admin: postgres.Sql
  let servers: ServerProcess[] = []
  let urls: string[] = []
  const prefix = `test:quota:key-changes:${randomBytes(6).toString('hex')}:`

  beforeAll(async () => {
    db = await createSeededDatabase()
    admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUOTA_KEY_PREFIX: prefix,
      JOB_QUEUE_PREFIX: `${prefix}bull`,
      KEY_CACHE_MS: String(KEY_CACHE_MS),
    }
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)])
    urls = servers.map((s) => s.url)
    expect(await listenersUp(2)).toBe(true)
  }, 120_000)

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await admin?.end()
    await db?.drop()
    await deleteKeysWithPrefix(prefix)
  })

  const databaseName = () => new URL(db.url).pathname.slice(1)

  /** The servers' listening connections, as PostgreSQL sees them. */
  async function listeners(): Promise<number[]> {
    const rows = await admin<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity
      WHERE datname = ${databaseName()} AND application_name = 'survival-api listener' AND query ILIKE 'LISTEN%'`
    return rows.map((r) => r.pid)
  }

  function listenersUp(count: number): Promise<boolean> {
    return eventually(async () => (await listeners()).length === count, 15_000, 50)
  }

  const keysCli = (...args: string[]) =>
    run('npm', ['run', '--silent', 'keys', '--', ...args], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
    })

  async function rotateThroughApi(url: string, key: string, graceSeconds?: number) {
    const response = await fetch(`${url}/v1/keys/rotate`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: graceSeconds === undefined ? undefined : JSON.stringify({ grace_seconds: graceSeconds }),
    })
    expect(response.status).toBe(201)
    return (await response.json()) as { key: string; previous_key: { works_until: string } }
  }

  it('API rotation: the process that rotated refuses the old key on its next request, the other within 1 s', async () => {
    const { key } = await issueKey(db, 'hypha')
    let answeredAt = 0
    let replacement = ''
    const { use } = await changeWhileInUse(urls, key, async () => {
      replacement = (await rotateThroughApi(urls[0] as string, key)).key
      answeredAt = Date.now()
    })
    answeredAfter(use, 0, answeredAt, 0, 401)
    answeredAfter(use, 1, answeredAt, FLEET_MS, 401)
    for (const url of urls) {
      const response = await fetch(`${url}/v1/species`, { headers: { 'x-api-key': replacement } })
      expect(response.status).toBe(200)
    }
  })

  it.each([
    ['rotate', 401],
    ['revoke', 401],
    ['deactivate', 403],
  ] as const)('keys %s (CLI): both processes refuse the key within 1 s', async (command, status) => {
    const { key, id } = await issueKey(db, 'hypha')
    const { use, changedAt } = await changeWhileInUse(urls, key, async () => {
      await keysCli(command, id)
    })
    answeredAfter(use, 0, changedAt, FLEET_MS, status)
    answeredAfter(use, 1, changedAt, FLEET_MS, status)
  })

  it('keys activate (CLI): a deactivated key works again on both within 1 s', async () => {
    const { key, id } = await issueKey(db, 'hypha')
    await keysCli('deactivate', id)
    const use = new KeyInUse(urls, key)
    const activating = Date.now()
    await use.answeredSince(activating)
    await keysCli('activate', id)
    const changedAt = Date.now()
    await use.answeredSince(changedAt + FLEET_MS)
    await use.stop()
    for (const server of urls.keys()) {
      const before = use.sent(server, 0, activating)
      expect(before.map((a) => a.status)).toEqual(before.map(() => 403))
    }
    answeredAfter(use, 0, changedAt, FLEET_MS, 200)
    answeredAfter(use, 1, changedAt, FLEET_MS, 200)
  })

  it('API rotation with a grace period: the old key keeps working, and says when it stops, on both', async () => {
    const { key } = await issueKey(db, 'hypha')
    let answeredAt = 0
    let worksUntil = ''
    const { use } = await changeWhileInUse(urls, key, async () => {
      worksUntil = (await rotateThroughApi(urls[0] as string, key, 3600)).previous_key.works_until
      answeredAt = Date.now()
    })
    const expected = new Date(worksUntil).toUTCString()
    const atOnce = use.sent(0, answeredAt)
    expect(atOnce.length).toBeGreaterThan(0)
    expect(atOnce.map((a) => [a.status, a.expiresHeader])).toEqual(atOnce.map(() => [200, expected]))
    const other = use.sent(1, answeredAt + FLEET_MS)
    expect(other.length).toBeGreaterThan(0)
    expect(other.map((a) => [a.status, a.expiresHeader])).toEqual(other.map(() => [200, expected]))
  })

  it('after the listening connections are cut, both listen again and hear the next change within 1 s', async () => {
    const before = await listeners()
    await admin`SELECT pg_terminate_backend(pid) FROM unnest(${before}::int[]) AS pid`
    expect(
      await eventually(
        async () => {
          const now = await listeners()
          return now.length === 2 && now.every((pid) => !before.includes(pid))
        },
        10_000,
        50,
      ),
    ).toBe(true)
    const { key, id } = await issueKey(db, 'hypha')
    const { use, changedAt } = await changeWhileInUse(urls, key, async () => {
      await keysCli('revoke', id)
    })
    answeredAfter(use, 0, changedAt, FLEET_MS, 401)
    answeredAfter(use, 1, changedAt, FLEET_MS, 401)
  })

  it('a change made while the channel is away is taken within 1 s of its return (the cache is flushed)', async () => {
    const { key, id } = await issueKey(db, 'hypha')
    const use = new KeyInUse(urls, key)
    const started = Date.now()
    await use.answeredSince(started)
    await admin.unsafe(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS false`)
    let returnedAt = 0
    try {
      const cut = await listeners()
      await admin`SELECT pg_terminate_backend(pid) FROM unnest(${cut}::int[]) AS pid`
      expect(await listenersUp(0)).toBe(true)
      // Revoked through a connection opened before the cut: no listener can hear of it.
      await setKeyStatus(db.sql, id, 'revoke')
      const revokedAt = Date.now()
      await use.answeredSince(revokedAt + 300)
      // Meanwhile each process still serves the key from its cache, as it knows nothing of the change.
      for (const server of urls.keys())
        expect(use.sent(server, revokedAt).some((a) => a.status === 200)).toBe(true)
    } finally {
      await admin.unsafe(`ALTER DATABASE ${databaseName()} ALLOW_CONNECTIONS true`)
      returnedAt = Date.now()
    }
    await use.answeredSince(returnedAt + FLEET_MS)
    await use.stop()
    answeredAfter(use, 0, returnedAt, FLEET_MS, 401)
    answeredAfter(use, 1, returnedAt, FLEET_MS, 401)
    expect(await listenersUp(2)).toBe(true)
  })
})
