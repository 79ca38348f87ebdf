import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { get, post } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { TEST_REDIS_URL } from '../support/services.ts'
import { predictBody } from '../support/sites.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { eventually } from '../support/waiting.ts'

const predict = (url: string, key: string) => post(url, '/v1/predict', predictBody(), key)
const health = (url: string) => get(url, '/v1/health')

describe('PostgreSQL outage', () => {
  let db: TestDatabase
  let proxy: TcpProxy
  let proxied: Database
  let server: TestServer
  let key: string

  beforeAll(async () => {
    db = await createSeededDatabase()
    key = (await issueKey(db, 'hypha')).key
    const url = new URL(db.url)
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
    url.port = String(proxy.port)
    proxied = await openDatabase({ DATABASE_URL: url.toString(), DB_POOL_MAX: 4 })
    server = await startTestServer({
      database: proxied,
      quota: 'memory',
      keyCacheMs: 0,
      queryDeadlineMs: 1000,
    })
  })
  afterAll(async () => {
    await server?.close()
    await proxied?.close()
    await proxy?.close()
    await db?.drop()
  })

  it('answers 503 service_unavailable within the deadline, says so in health, and recovers by itself', async () => {
    expect((await predict(server.url, key)).status).toBe(200)
    expect((await health(server.url)).body).toMatchObject({ status: 'healthy', database: 'connected' })

    proxy.cut()
    const started = Date.now()
    const during = await predict(server.url, key)
    expect(Date.now() - started).toBeLessThan(5000)
    expect(during.status).toBe(503)
    expect(during.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String) } })
    expect(during.headers.get('retry-after')).toBe('5')
    expect(JSON.stringify(during.body)).not.toMatch(/ECONN|CONNECTION_|postgres/i)
    const down = await health(server.url)
    expect(down.status).toBe(503)
    expect(down.body).toMatchObject({ status: 'unavailable', database: 'disconnected' })
    // Liveness asks no dependency: the outage takes the instance out of rotation, never restarts it.
    const live = await get(server.url, '/v1/health/live')
    expect(live.status).toBe(200)
    expect(live.body).toEqual({ status: 'alive', version: '1.0.0' })

    const graphqlDuring = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: '{ species { code } }' }),
    })
    expect(graphqlDuring.status).toBe(503)
    expect((await graphqlDuring.json()).errors[0].extensions.code).toBe('service_unavailable')

    proxy.restore()
    expect(await eventually(async () => (await predict(server.url, key)).status === 200, 15_000, 200)).toBe(
      true,
    )
    expect((await health(server.url)).body).toMatchObject({ status: 'healthy', database: 'connected' })
  })
})

describe('Redis outage', () => {
  let db: TestDatabase
  let proxy: TcpProxy
  let server: TestServer
  let key: string

  beforeAll(async () => {
    db = await createSeededDatabase()
    key = (await issueKey(db, 'spore')).key
    const target = new URL(TEST_REDIS_URL)
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) })
    server = await startTestServer({ database: db, redisUrl: `redis://127.0.0.1:${proxy.port}` })
  })
  afterAll(async () => {
    await server?.close()
    await proxy?.close()
    await db?.drop()
  })

  it('keeps serving with per-instance quotas, reports degraded health, counts the fallback, and returns to Redis', async () => {
    expect(
      await eventually(
        async () =>
          (await health(server.url)).body.redis === 'connected' &&
          (await predict(server.url, key)).status === 200,
        15_000,
        200,
      ),
    ).toBe(true)
    const before = await predict(server.url, key)
    const usedBefore = 100 - Number(before.headers.get('x-ratelimit-remaining'))

    proxy.cut()
    const during = await predict(server.url, key)
    expect(during.status).toBe(200)
    expect((await health(server.url)).body).toMatchObject({
      status: 'degraded',
      database: 'connected',
      redis: 'disconnected',
    })
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(metrics).toMatch(/survival_fallback_events_total\{kind="quota_memory"\} [1-9]/)

    proxy.restore()
    expect(
      await eventually(
        async () =>
          (await predict(server.url, key)).status === 200 &&
          (await health(server.url)).body.redis === 'connected',
        15_000,
        200,
      ),
    ).toBe(true)
    const after = await predict(server.url, key)
    // Back on the shared Redis counter, which kept counting from before the outage.
    expect(100 - Number(after.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(usedBefore)
  })
})
