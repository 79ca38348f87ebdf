import { randomBytes } from 'node:crypto'
import { connect } from 'node:net'
import { networkInterfaces } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '../../src/db/migrate.ts'
import { startApp } from '../security/support.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
import { TEST_METRICS_AUTHORIZATION } from '../support/metrics-token.ts'
import { freePort } from '../support/net.ts'
import { startServerProcess } from '../support/process.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { TEST_REDIS_URL } from '../support/services.ts'

/**
 * With DATABASE_URL (production) /metrics is never open: it needs METRICS_TOKEN, or it moves to
 * METRICS_PORT on 127.0.0.1 and leaves PORT. Servers run as `npm start` runs them (src/wiring/main.ts).
 */

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 })
    const done = (accepted: boolean) => {
      socket.destroy()
      resolve(accepted)
    }
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
    socket.once('timeout', () => done(false))
  })
}

/**
 * Addresses of this machine other than 127.0.0.1: another loopback address (a socket bound to
 * 127.0.0.1 alone does not answer there, one bound to every address does) and the first external
 * IPv4 address, when there is one.
 */
const OTHER_ADDRESSES = [
  '127.0.0.2',
  ...Object.values(networkInterfaces())
    .flat()
    .filter((address) => address && !address.internal && address.family === 'IPv4')
    .map((address) => address?.address as string)
    .slice(0, 1),
]

describe('/metrics with DATABASE_URL: METRICS_TOKEN or METRICS_PORT', () => {
  let db: TestDatabase
  const prefix = `test:metrics-port:${randomBytes(4).toString('hex')}:`

  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql)
  })
  afterAll(async () => {
    await db?.drop()
    await deleteKeysWithPrefix(prefix)
  })

  it('refuses to start with /metrics open (neither set), naming both ways to close it', async () => {
    await expect(
      startServerProcess({ DATABASE_URL: db.url, METRICS_TOKEN: undefined }, 20_000),
    ).rejects.toThrow(
      /METRICS_TOKEN or METRICS_PORT: with DATABASE_URL.*set METRICS_TOKEN.*or METRICS_PORT \(then \/metrics is served only on 127\.0\.0\.1:METRICS_PORT, and not on PORT\)/,
    )
  })

  it('METRICS_PORT alone: /metrics on 127.0.0.1:METRICS_PORT only, not on PORT nor on any other address', async () => {
    const metricsPort = await freePort()
    const server = await startServerProcess({
      DATABASE_URL: db.url,
      METRICS_TOKEN: undefined,
      METRICS_PORT: String(metricsPort),
    })
    try {
      const onApiPort = await fetch(`${server.url}/metrics`)
      expect(onApiPort.status).toBe(404)
      expect(await onApiPort.json()).toMatchObject({ error: { code: 'not_found' } })

      const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      expect(scrape.status).toBe(200)
      expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/)
      // The server's own registry: it counted the 404 just answered on the API's port.
      expect(await scrape.text()).toMatch(
        /survival_http_requests_total\{route="unmatched"[^}]*status="404"\} 1/,
      )
      expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/health`)).status).toBe(404)

      const apiPort = Number(new URL(server.url).port)
      for (const address of OTHER_ADDRESSES) {
        // The API's port (HOST 0.0.0.0) answers there, so the address is reachable; the metrics port does not.
        expect(await connects(address, apiPort), address).toBe(true)
        expect(await connects(address, metricsPort), address).toBe(false)
      }
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  it('WEB_CONCURRENCY=2: the workers share METRICS_PORT as they share PORT, and the token holds there', async () => {
    const metricsPort = await freePort()
    const server = await startServerProcess({
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUOTA_KEY_PREFIX: prefix,
      WEB_CONCURRENCY: '2',
      METRICS_PORT: String(metricsPort),
      // METRICS_TOKEN: the test one (test/support/process.ts)
    })
    try {
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
      for (let scrape = 0; scrape < 6; scrape++) {
        const refused = await fetch(metricsUrl)
        expect(refused.status).toBe(401)
        expect(refused.headers.get('www-authenticate')).toBe('Bearer')
        const answered = await fetch(metricsUrl, { headers: TEST_METRICS_AUTHORIZATION })
        expect(answered.status).toBe(200)
        expect(await answered.text()).toMatch(/# TYPE survival_http_requests_total counter/)
      }
      expect((await fetch(`${server.url}/metrics`, { headers: TEST_METRICS_AUTHORIZATION })).status).toBe(404)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  it('closes the metrics port when the app closes', async () => {
    const running = await startApp({ database: db, env: { METRICS_PORT: String(await freePort()) } })
    const metricsServer = running.app.metricsServer
    if (!metricsServer) throw new Error('no metrics server with METRICS_PORT set')
    await new Promise<void>((resolve) => metricsServer.listen(0, '127.0.0.1', resolve))
    const { port } = metricsServer.address() as { port: number }
    expect(await connects('127.0.0.1', port)).toBe(true)
    await running.close()
    expect(metricsServer.listening).toBe(false)
    expect(await connects('127.0.0.1', port)).toBe(false)
  })
})
