import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, FOREST_POINTS, issueKey } from '../support/fixtures.ts'
import {
  eventually,
  firstError,
  freePort,
  outcomeCounts,
  predictField,
  simultaneously,
} from '../support/graphql-helpers.ts'
import { graphql, startTestServer, TEST_REDIS_URL, type TestServer } from '../support/server.ts'

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))
const QUERIES = ['{ species { code } }', `{ ${predictField(FOREST_POINTS.coastRange)} }`]

let db: TestDatabase

beforeAll(async () => {
  db = await createSeededDatabase()
})

afterAll(async () => {
  await db?.drop()
})

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL)
  try {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length) await redis.del(...keys)
  } finally {
    redis.disconnect()
  }
}

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
    await deleteRedisKeys(prefix)
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

interface ServerProcess {
  child: ChildProcess
  url: string
  output: () => string
}

async function spawnServer(port: number, prefix: string): Promise<ServerProcess> {
  let output = ''
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUOTA_KEY_PREFIX: prefix,
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  return { child, url: `http://127.0.0.1:${port}`, output: () => output }
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/v1/health`)
    return response.status === 200
  } catch {
    return false
  }
}

async function stopServer(server: ServerProcess): Promise<void> {
  const { child } = server
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

describe('two real server processes (`tsx src/main.ts`) sharing Redis', () => {
  const prefix = `test:quota:procs:${randomBytes(6).toString('hex')}:`
  const servers: ServerProcess[] = []

  beforeAll(async () => {
    const ports = [await freePort(), await freePort()]
    for (const port of ports) servers.push(await spawnServer(port, prefix))
    for (const server of servers) {
      const up = await eventually(() => healthy(server.url), 60_000, 200)
      if (!up) throw new Error(`server at ${server.url} did not come up:\n${server.output()}`)
    }
  }, 90_000)

  afterAll(async () => {
    await Promise.all(servers.map(stopServer))
    await deleteRedisKeys(prefix)
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
    const redis = new Redis(TEST_REDIS_URL)
    try {
      const keys = await redis.keys(`${prefix}*`)
      expect(keys.length).toBeGreaterThan(0)
      for (const key of keys) expect(await redis.ttl(key)).toBeGreaterThan(0)
    } finally {
      redis.disconnect()
    }
  })
})
