import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, graphql, outcomeCounts, predictField } from '../support/graphql-helpers.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { deleteKeysWithPrefix, scanKeys, withRedis } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { TEST_REDIS_URL } from '../support/services.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { simultaneously } from '../support/waiting.ts'

const QUERIES = ['{ species { code } }', `{ ${predictField(FOREST_POINTS.coastRange)} }`]

let db: TestDatabase

beforeAll(async () => {
  db = await createSeededDatabase()
})

afterAll(async () => {
  await db?.drop()
})

/** 150 simultaneous requests with one key, alternating between the servers. */
async function fireSplit(urls: string[], key: string) {
  return simultaneously(150, (i) =>
    graphql(urls[i % urls.length] as string, QUERIES[i % 2] as string, { key }),
  )
}

describe('two in-process servers sharing Redis', () => {
  let prefix: string
  let a: TestServer
  let b: TestServer

  beforeAll(async () => {
    prefix = `test:quota:shared:${randomBytes(6).toString('hex')}:`
    a = await startTestServer({ database: db, quotaPrefix: prefix })
    b = await startTestServer({ database: db, quotaPrefix: prefix })
  })

  afterAll(async () => {
    await a?.close()
    await b?.close()
    await deleteKeysWithPrefix(prefix)
  })

  it('150 simultaneous requests on a fresh spore key split across both: exactly 100 succeed', async () => {
    const { key } = await issueKey(db, 'spore')
    const results = await fireSplit([a.url, b.url], key)
    expect(outcomeCounts(results)).toEqual({ '200:data': 100, '429:rate_limit_exceeded': 50 })
    const perServer = [0, 1].map((s) => results.filter((r, i) => i % 2 === s && r.status === 200).length)
    expect(perServer[0]).toBeGreaterThan(0)
    expect(perServer[1]).toBeGreaterThan(0)
    const remaining = results
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')))
      .sort((x, y) => x - y)
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i))
  })

  it('a key exhausted through one server is refused by the other', async () => {
    const { key } = await issueKey(db, 'spore')
    const viaA = await simultaneously(100, () => graphql(a.url, '{ species { code } }', { key }))
    expect(outcomeCounts(viaA)).toEqual({ '200:data': 100 })
    const viaB = await graphql(b.url, '{ species { code } }', { key })
    expect(viaB.status).toBe(429)
    expect(firstError(viaB).extensions?.code).toBe('rate_limit_exceeded')
  })
})

describe('two real server processes (`tsx src/wiring/main.ts`) sharing Redis', () => {
  const prefix = `test:quota:procs:${randomBytes(6).toString('hex')}:`
  const servers: ServerProcess[] = []

  beforeAll(async () => {
    const env = {
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUOTA_KEY_PREFIX: prefix,
      LOG_LEVEL: 'silent',
    }
    servers.push(await startServerProcess(env), await startServerProcess(env))
  }, 90_000)

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()))
    await deleteKeysWithPrefix(prefix)
  })

  it('150 simultaneous requests on a fresh spore key split across both processes: exactly 100 succeed', async () => {
    const { key } = await issueKey(db, 'spore')
    const results = await fireSplit(
      servers.map((s) => s.url),
      key,
    )
    expect(outcomeCounts(results)).toEqual({ '200:data': 100, '429:rate_limit_exceeded': 50 })
    for (const result of results.filter((r) => r.status === 429)) {
      expect(firstError(result).message).toContain('spore')
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0)
    }
  })

  it('the counters live under the configured prefix and expire on their own', async () => {
    await withRedis(async (redis) => {
      const keys = await scanKeys(redis, prefix)
      expect(keys.length).toBeGreaterThan(0)
      for (const key of keys) expect(await redis.ttl(key)).toBeGreaterThan(0)
    })
  })
})
