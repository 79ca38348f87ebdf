import { type ChildProcess, spawn } from 'node:child_process'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { freePort } from '../support/net.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { eventually } from '../support/waiting.ts'
import { rest } from './client.ts'

/**
 * A Redis server of this test's own (Debian's redis-server, no persistence), so that it can really be
 * stopped and started again: the daily quota counter goes with it, the usage history must not.
 */
class PrivateRedis {
  private child: ChildProcess | undefined
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    )
    const redis = new Redis(this.url, { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: 0 })
    redis.on('error', () => {})
    const up = await eventually(async () => (await redis.ping().catch(() => '')) === 'PONG', 10_000, 50)
    redis.disconnect()
    if (!up) throw new Error(`redis-server did not start on port ${this.port}`)
  }

  async stop(): Promise<void> {
    const child = this.child
    if (!child || child.exitCode !== null) return
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve())
      child.kill('SIGKILL')
    })
  }
}

const today = () => new Date().toISOString().slice(0, 10)

interface Usage {
  today: { used: number }
  history: { date: string; requests: number }[]
}

describe('usage history outlives Redis and the server', () => {
  let db: TestDatabase
  let redis: PrivateRedis
  let server: TestServer | undefined
  let key: string

  const start = async () => {
    server = await startTestServer({ database: db, redisUrl: redis.url, keyCacheMs: 0, usageFlushMs: 50 })
    return server
  }

  beforeAll(async () => {
    db = await createSeededDatabase()
    redis = new PrivateRedis(await freePort())
    await redis.start()
    key = (await issueKey(db, 'mycel')).key
  })

  afterAll(async () => {
    await server?.close()
    await redis?.stop()
    await db?.drop()
  })

  it('keeps the day’s count when Redis restarts (the quota counter itself starts again)', async () => {
    const running = await start()
    for (let i = 0; i < 5; i++)
      expect((await rest(running.url, 'GET', '/v1/methods', { key })).status).toBe(200)
    const flushed = await eventually(async () => {
      const [row] = await db.sql<
        { requests: number }[]
      >`SELECT sum(requests)::int AS requests FROM key_usage_daily`
      return row?.requests === 5
    }, 5000)
    expect(flushed).toBe(true)

    await redis.stop()
    await redis.start()
    // The app reconnects to the empty Redis (or answers from memory meanwhile); either way it serves.
    const usage = await rest(running.url, 'GET', '/v1/usage', { key })
    expect(usage.status, usage.text).toBe(200)
    const body = usage.body as Usage
    expect(body.today.used).toBeLessThan(6)
    expect(body.history.at(-1)).toEqual({ date: today(), requests: 6 })
  })

  it('keeps it across a server restart too: counts not yet flushed are written on shutdown', async () => {
    const first = server as TestServer
    await rest(first.url, 'GET', '/v1/methods', { key })
    await first.close()
    server = undefined
    const second = await start()
    const usage = await rest(second.url, 'GET', '/v1/usage', { key })
    expect((usage.body as Usage).history.at(-1)).toEqual({ date: today(), requests: 8 })
  })
})
