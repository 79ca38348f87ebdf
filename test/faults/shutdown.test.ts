import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, FOREST_POINTS, issueKey } from '../support/fixtures.ts'
import { startServerProcess } from '../support/process.ts'
import { TEST_REDIS_URL } from '../support/server.ts'

const BODY = JSON.stringify({
  ...FOREST_POINTS.westCascades,
  species_code: 'TSHE',
  planting_method: 'manual',
})

describe('graceful shutdown and scale-out', () => {
  let db: TestDatabase
  let key: string
  beforeAll(async () => {
    db = await createSeededDatabase()
    key = (await issueKey(db, 'hypha')).key
  })
  const prefix = `test:shutdown:${randomBytes(4).toString('hex')}:`
  afterAll(async () => {
    await db.drop()
    const redis = new Redis(TEST_REDIS_URL)
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length) await redis.del(...keys)
    redis.disconnect()
  })

  const env = () => ({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUOTA_KEY_PREFIX: prefix })

  it('SIGTERM during load: requests already sent finish, and the process exits 0', async () => {
    const server = await startServerProcess(env())
    const inFlight = Array.from({ length: 60 }, () =>
      fetch(`${server.url}/v1/predict`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: BODY,
      }).then((r) => r.status),
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    const exit = server.stop('SIGTERM')
    const statuses = await Promise.allSettled(inFlight)
    expect(await exit).toBe(0)
    const answered = statuses
      .filter((s) => s.status === 'fulfilled')
      .map((s) => (s as PromiseFulfilledResult<number>).value)
    // Whatever reached the server before it stopped accepting was answered in full.
    expect(answered.every((status) => status === 200)).toBe(true)
    expect(answered.length).toBeGreaterThan(0)
    expect(server.output()).not.toMatch(/"level":50/)
  })

  it('WEB_CONCURRENCY=2 serves from two workers sharing the port and stops cleanly', async () => {
    const server = await startServerProcess({ ...env(), WEB_CONCURRENCY: '2' })
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${server.url}/v1/predict`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: BODY,
        }),
      ),
    )
    expect(responses.every((r) => r.status === 200)).toBe(true)
    expect(await server.stop('SIGTERM')).toBe(0)
  })

  it('refuses WEB_CONCURRENCY > 1 on the embedded store', async () => {
    await expect(startServerProcess({ WEB_CONCURRENCY: '2' }, 20_000)).rejects.toThrow(
      /needs DATABASE_URL and REDIS_URL/,
    )
  })
})
