import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, FOREST_POINTS, issueKey } from '../support/fixtures.ts'
import { startTestServer, TEST_REDIS_URL, type TestServer } from '../support/server.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read freely in assertions
type Body = any

const PREDICT_BODY = JSON.stringify({
  ...FOREST_POINTS.coastRange,
  species_code: 'PSME',
  planting_method: 'manual',
})

async function predict(url: string, key: string): Promise<{ status: number; body: Body; headers: Headers }> {
  const response = await fetch(`${url}/v1/predict`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: PREDICT_BODY,
  })
  return { status: response.status, body: await response.json(), headers: response.headers }
}

async function health(url: string): Promise<{ status: number; body: Body }> {
  const response = await fetch(`${url}/v1/health`)
  return { status: response.status, body: await response.json() }
}

/** Polls until check() holds, bounded. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`condition not met within ${timeoutMs} ms`)
}

describe('PostgreSQL outage', () => {
  let db: TestDatabase
  let proxy: TcpProxy
  let proxied: Database
  let server: TestServer
  let key: string

  beforeAll(async () => {
    db = await createSeededDatabase()
    key = (await issueKey(db, 'hypha')).key
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 })
    const url = new URL(db.url)
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

    const graphqlDuring = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: '{ species { code } }' }),
    })
    expect(graphqlDuring.status).toBe(503)
    expect((await graphqlDuring.json()).errors[0].extensions.code).toBe('service_unavailable')

    proxy.restore()
    await eventually(async () => (await predict(server.url, key)).status === 200)
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
    await eventually(
      async () =>
        (await health(server.url)).body.redis === 'connected' &&
        (await predict(server.url, key)).status === 200,
    )
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
    await eventually(async () => {
      const after = await predict(server.url, key)
      return after.status === 200 && (await health(server.url)).body.redis === 'connected'
    })
    const after = await predict(server.url, key)
    // Back on the shared Redis counter, which kept counting from before the outage.
    expect(100 - Number(after.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(usedBefore)
  })
})
