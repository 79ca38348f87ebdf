import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { post } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startServerProcess } from '../support/process.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { TEST_REDIS_URL } from '../support/services.ts'
import { FOREST_POINTS, predictBody } from '../support/sites.ts'
import { sleep } from '../support/waiting.ts'

const BODY = predictBody({ ...FOREST_POINTS.westCascades, species_code: 'TSHE' })

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
    await deleteKeysWithPrefix(prefix)
  })

  const env = () => ({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUOTA_KEY_PREFIX: prefix })

  it('SIGTERM during load: requests already sent finish, and the process exits 0', async () => {
    const server = await startServerProcess(env())
    const inFlight = Array.from({ length: 60 }, () =>
      post(server.url, '/v1/predict', BODY, key).then((r) => r.status),
    )
    await sleep(20)
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
      Array.from({ length: 20 }, () => post(server.url, '/v1/predict', BODY, key)),
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
