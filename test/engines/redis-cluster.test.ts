import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisCluster, startRedisCluster } from '../../scripts/engines/redis-cluster.ts'
import { CoalescingQuotaStore } from '../../src/access/quota/coalescing-quota-store.ts'
import { utcDay } from '../../src/access/quota/day-window.ts'
import { counterKey, RedisQuotaStore } from '../../src/access/quota/redis-quota-store.ts'
import type { RedisTarget } from '../../src/redis/connection.ts'
import { rest } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { expectEveryRowOnce, jobStatus, portfolioCsv } from '../support/jobs.ts'
import { TEST_METRICS_AUTHORIZATION } from '../support/metrics-token.ts'
import {
  killProcess,
  type ServerProcess,
  startServerProcess,
  startWorkerProcess,
} from '../support/process.ts'
import {
  clusterNodesSetting,
  clusterTopology,
  failedOver,
  keySlot,
  setNodeTimeout,
  shardOf,
  withNode,
} from '../support/redis-cluster.ts'
import { predictBody } from '../support/sites.ts'
import { eventually, simultaneously, sleep } from '../support/waiting.ts'

/**
 * The service on a real Redis Cluster (3 masters, 3 replicas; scripts/engines.ts), started once for
 * this file: two server processes and `npm run worker` processes with REDIS_CLUSTER_NODES set (and
 * REDIS_URL pointing at a closed port, which must not be used). Exact quotas, a 100,000-row job with a
 * worker killed mid-chunk, key changes through PostgreSQL, then a manual failover and a killed master
 * under load. The failovers come last: after them the slot's master has no replica left.
 */

/** How soon the nodes give up on a silent master (Redis's default, 15 s, would only make the test wait). */
const NODE_TIMEOUT_MS = 2000
/** A closed port: with REDIS_CLUSTER_NODES set, REDIS_URL must not be used at all. */
const UNUSED_REDIS_URL = 'redis://127.0.0.1:1'

let cluster: RedisCluster
let db: TestDatabase
let servers: ServerProcess[] = []
let urls: string[] = []
const workers: ChildProcess[] = []
const run = randomBytes(5).toString('hex')
const QUOTA_PREFIX = `test:quota:cluster:${run}:`
const JOB_QUEUE_PREFIX = `test:bull:cluster:${run}`
/** The queue's keys as BullMQ writes them on the cluster: the prefix hash-tagged. */
const QUEUE_KEYS = `{${JOB_QUEUE_PREFIX}}:job-chunks:`
let queueSlot = 0

const clusterNodes = () =>
  cluster.nodes.map((node) => {
    const [host, port] = node.split(':')
    return { host: host as string, port: Number(port) }
  })
const clusterTarget = (): RedisTarget => ({ kind: 'cluster', nodes: clusterNodes() })

/** PIDs of the nodes this file killed. */
const killed = new Set<number>()

/** A node that is still running (the killed master is not). */
const liveNode = (except: readonly string[] = []) => {
  const node = cluster.nodes.find(
    (candidate, index) => !except.includes(candidate) && !killed.has(cluster.pids[index] as number),
  )
  if (!node) throw new Error('no live node')
  return node
}

const workerEnv = () => ({
  DATABASE_URL: db.url,
  REDIS_URL: UNUSED_REDIS_URL,
  REDIS_CLUSTER_NODES: clusterNodesSetting(cluster),
  JOB_QUEUE_PREFIX,
  JOB_LOCK_MS: '1000',
})

async function startWorker(): Promise<ChildProcess> {
  const worker = await startWorkerProcess(workerEnv())
  workers.push(worker)
  return worker
}

/** A worker that is running, started if none is. */
async function aWorker(): Promise<void> {
  if (!workers.some((worker) => worker.exitCode === null && worker.signalCode === null)) await startWorker()
}

async function submitJob(key: string, rows: number): Promise<string> {
  const accepted = await rest(urls[0] as string, 'POST', '/v1/jobs', {
    key,
    raw: portfolioCsv(rows),
    contentType: 'text/csv',
  })
  expect(accepted.status, accepted.text).toBe(202)
  return (accepted.body as { id: string }).id
}

function succeeded(key: string, id: string, timeoutMs = 90_000): Promise<boolean> {
  return eventually(
    async () => (await jobStatus(urls[0] as string, key, id)).status === 'succeeded',
    timeoutMs,
    100,
  )
}

/** A REST predict request; its status once the body has been read. */
async function predict(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/v1/predict`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(predictBody()),
  })
  await response.arrayBuffer()
  return response.status
}

/** REST predict requests in `concurrency` loops over the servers, each answer recorded with when it came. */
class PredictLoad {
  readonly answers: { at: number; status: number }[] = []
  readonly failures: string[] = []
  private running = true
  private readonly loops: Promise<void>[]

  constructor(key: string, concurrency = 4) {
    this.loops = Array.from({ length: concurrency }, (_, index) =>
      this.loop(urls[index % urls.length] as string, key),
    )
  }

  private async loop(url: string, key: string): Promise<void> {
    while (this.running) {
      try {
        this.answers.push({ status: await predict(url, key), at: Date.now() })
      } catch (error) {
        this.failures.push(String(error))
      }
    }
  }

  /** Answers that were not 200, by status. */
  others(): Record<number, number> {
    const counts: Record<number, number> = {}
    for (const { status } of this.answers) if (status !== 200) counts[status] = (counts[status] ?? 0) + 1
    return counts
  }

  answeredBetween(from: number, to: number): number {
    return this.answers.filter((answer) => answer.at >= from && answer.at < to).length
  }

  async stop(): Promise<void> {
    this.running = false
    await Promise.all(this.loops)
  }
}

/** Polls each server's /v1/health, keeping the `redis` field each answered, in order. */
class HealthWatch {
  readonly seen: string[][] = urls.map(() => [])
  private running = true
  private readonly loops = urls.map((url, index) => this.loop(url, index))

  private async loop(url: string, index: number): Promise<void> {
    while (this.running) {
      const response = await fetch(`${url}/v1/health`)
      const body = (await response.json()) as { redis: string; status: string }
      const seen = this.seen[index] as string[]
      if (seen.at(-1) !== `${body.status}/${body.redis}`) seen.push(`${body.status}/${body.redis}`)
      await sleep(50)
    }
  }

  async stop(): Promise<void> {
    this.running = false
    await Promise.all(this.loops)
  }
}

/** A hypha key (unlimited: load never meets its limit) whose account's counters live on the queue's master. */
async function keyBesideTheQueue(): Promise<{ key: string; slot: number }> {
  const queueMaster = (await shardOf(liveNode(), queueSlot)).master.id
  for (let attempt = 0; attempt < 50; attempt++) {
    const issued = await issueKey(db, 'hypha')
    const slot = await keySlot(liveNode(), counterKey(QUOTA_PREFIX, issued.id, utcDay(new Date()), true))
    if ((await shardOf(liveNode(), slot)).master.id === queueMaster) return { key: issued.key, slot }
  }
  throw new Error('no key on the queue’s master in 50 tries')
}

beforeAll(async () => {
  const [started, seeded] = await Promise.all([startRedisCluster(), createSeededDatabase()])
  cluster = started
  db = seeded
  console.log(`Redis Cluster started in ${cluster.startupMs} ms`)
  await setNodeTimeout(cluster, NODE_TIMEOUT_MS)
  queueSlot = await keySlot(liveNode(), `${QUEUE_KEYS}meta`)
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: UNUSED_REDIS_URL,
    REDIS_CLUSTER_NODES: clusterNodesSetting(cluster),
    QUOTA_KEY_PREFIX: QUOTA_PREFIX,
    JOB_QUEUE_PREFIX,
    // The servers only queue; `npm run worker` processes score.
    JOB_WORKERS_IN_SERVER: 'false',
    // Far past 1 s: only the key change channel can explain a refusal within it.
    KEY_CACHE_MS: '60000',
  }
  servers = await Promise.all([startServerProcess(env), startServerProcess(env)])
  urls = servers.map((server) => server.url)
}, 120_000)

afterAll(async () => {
  await Promise.all(workers.map((worker) => killProcess(worker)))
  await Promise.all(servers.map((server) => server.stop()))
  await db?.drop()
  await cluster?.stop()
})

describe('exact quotas on the cluster', () => {
  it('both servers count on the cluster, not on REDIS_URL', async () => {
    for (const url of urls) {
      const health = await rest(url, 'GET', '/v1/health')
      expect(health.body).toMatchObject({ status: 'healthy', redis: 'connected' })
    }
  })

  it('150 requests at once on one spore key across two processes: exactly 100 answered, 50 refused', async () => {
    const { key, id } = await issueKey(db, 'spore')
    const answers = await simultaneously(150, (index) => predict(urls[index % 2] as string, key))
    expect(answers.filter((status) => status === 200)).toHaveLength(100)
    expect(answers.filter((status) => status === 429)).toHaveLength(50)
    // The count is the account's hash-tagged counter on the cluster.
    const client = new Cluster(clusterNodes())
    try {
      expect(await client.get(counterKey(QUOTA_PREFIX, id, utcDay(new Date()), true))).toBe('100')
    } finally {
      client.disconnect()
    }
  })

  it('the quota store itself: 150 at once, one script each or coalesced, exactly the limit allowed', async () => {
    const redis = RedisQuotaStore.connect(clusterTarget(), `${QUOTA_PREFIX}unit:`)
    try {
      expect(await eventually(() => redis.isReady(), 10_000)).toBe(true)
      const noon = new Date()
      for (const store of [redis, new CoalescingQuotaStore(redis)]) {
        const account = `acct_${randomBytes(6).toString('hex')}`
        const results = await Promise.all(
          Array.from({ length: 150 }, () => store.consume(account, 100, noon)),
        )
        expect(results.filter((result) => result.allowed)).toHaveLength(100)
        expect(Math.max(...results.map((result) => result.used))).toBe(100)
      }
    } finally {
      await redis.close()
    }
  })

  it("keeps one account's counters in one slot and spreads accounts over the masters", async () => {
    const prefix = `${QUOTA_PREFIX}spread:`
    const redis = RedisQuotaStore.connect(clusterTarget(), prefix)
    try {
      expect(await eventually(() => redis.isReady(), 10_000)).toBe(true)
      const days = ['2026-03-01T12:00:00Z', '2026-03-02T12:00:00Z', '2026-03-03T12:00:00Z'].map(
        (day) => new Date(day),
      )
      for (const day of days) await redis.consume('acct_one', 10, day)
      const slots = await Promise.all(
        days.map((day) => keySlot(liveNode(), counterKey(prefix, 'acct_one', utcDay(day), true))),
      )
      expect(new Set(slots).size).toBe(1)

      const accounts = Array.from({ length: 60 }, (_, index) => `acct_${index}`)
      await Promise.all(accounts.map((account) => redis.consume(account, 10, days[0] as Date)))
      // Counted where they live: each master's own keys under the prefix.
      const masters = (await clusterTopology(liveNode())).filter((node) => node.role === 'master')
      expect(masters).toHaveLength(3)
      const held = await Promise.all(
        masters.map((master) =>
          withNode(master.address, async (node) => {
            const [, keys] = await node.scan('0', 'MATCH', `${prefix}*`, 'COUNT', '10000')
            return keys
          }),
        ),
      )
      expect(held.map((keys) => keys.length).reduce((sum, count) => sum + count, 0)).toBe(60 + 3)
      for (const keys of held) expect(keys.length).toBeGreaterThan(0)
      const withOne = held.filter((keys) => keys.some((key) => key.includes('{acct_one}')))
      expect(withOne).toHaveLength(1)
      expect(withOne[0]?.filter((key) => key.includes('{acct_one}'))).toHaveLength(3)
    } finally {
      await redis.close()
    }
  })
})

describe('key changes with REDIS_CLUSTER_NODES set (PostgreSQL LISTEN/NOTIFY)', () => {
  it('a key rotated through one process is refused by both within 1 s', async () => {
    const { key } = await issueKey(db, 'hypha')
    // Admitted (and so cached for a minute) by both.
    for (const url of urls) expect(await predict(url, key)).toBe(200)
    const rotated = await rest(urls[0] as string, 'POST', '/v1/keys/rotate', { key })
    expect(rotated.status, rotated.text).toBe(201)
    const rotatedAt = Date.now()
    const refusedAfterMs = await Promise.all(
      urls.map(async (url) => {
        while (Date.now() - rotatedAt < 5000) {
          const status = await predict(url, key)
          if (status === 401) return Date.now() - rotatedAt
          expect(status).toBe(200)
          await sleep(10)
        }
        return Number.POSITIVE_INFINITY
      }),
    )
    console.log(`rotated key refused after ${refusedAfterMs.join(' ms and ')} ms`)
    for (const ms of refusedAfterMs) expect(ms).toBeLessThanOrEqual(1000)
    const replacement = (rotated.body as { key: string }).key
    for (const url of urls) expect(await predict(url, replacement)).toBe(200)
  })
})

describe('jobs on the cluster', () => {
  it('a 100,000-row job: a worker killed mid-chunk, another finishes it, every row once', async () => {
    const ROWS = 100_000
    const { key } = await issueKey(db, 'hypha')
    const doomed = await startWorker()
    const id = await submitJob(key, ROWS)
    // Killed while it scores: it holds chunks (concurrency 2) whose locks then lapse.
    expect(
      await eventually(
        async () => (await jobStatus(urls[0] as string, key, id)).rows_done >= 5000,
        60_000,
        20,
      ),
    ).toBe(true)
    await killProcess(doomed)
    const partial = await jobStatus(urls[0] as string, key, id)
    expect(partial.status).toBe('running')
    expect(partial.rows_done).toBeLessThan(ROWS)

    await startWorker()
    expect(await succeeded(key, id, 120_000)).toBe(true)
    expect((await jobStatus(urls[0] as string, key, id)).rows_done).toBe(ROWS)
    await expectEveryRowOnce(urls[0] as string, key, id, ROWS)

    // The queue's keys: the prefix hash-tagged, all in one slot on one master.
    const masters = (await clusterTopology(liveNode())).filter((node) => node.role === 'master')
    const held = await Promise.all(
      masters.map((master) =>
        withNode(master.address, async (node) => {
          const [, keys] = await node.scan('0', 'MATCH', `{${JOB_QUEUE_PREFIX}}:*`, 'COUNT', '100000')
          return keys.length
        }),
      ),
    )
    expect(held.filter((count) => count > 0)).toHaveLength(1)
    expect(masters[held.findIndex((count) => count > 0)]?.address).toBe(
      (await shardOf(liveNode(), queueSlot)).master.address,
    )
  })
})

describe('master failover under load', () => {
  /** A job long enough to be in flight through the failover. */
  const JOB_ROWS = 30_000

  it('CLUSTER FAILOVER: every predict answered without a 5xx, and a job across it completes', async () => {
    const { key, slot } = await keyBesideTheQueue()
    const before = await shardOf(liveNode(), queueSlot)
    expect(before.replicas.length).toBeGreaterThan(0)
    await aWorker()
    const jobId = await submitJob(key, JOB_ROWS)
    const load = new PredictLoad(key)
    await sleep(500)
    expect(['queued', 'running']).toContain((await jobStatus(urls[0] as string, key, jobId)).status)
    const failoverAt = Date.now()
    await withNode((before.replicas[0] as { address: string }).address, (node) =>
      node.call('CLUSTER', 'FAILOVER'),
    )
    expect(await failedOver(liveNode(), slot, before.master.address)).toBe(true)
    const doneAt = Date.now()
    console.log(`CLUSTER FAILOVER took ${doneAt - failoverAt} ms`)
    await sleep(1000)
    await load.stop()
    expect(load.failures).toEqual([])
    expect(load.others()).toEqual({})
    expect(load.answeredBetween(failoverAt, doneAt)).toBeGreaterThan(0)
    expect(load.answers.length).toBeGreaterThan(50)
    expect(await succeeded(key, jobId)).toBe(true)
    await expectEveryRowOnce(urls[0] as string, key, jobId, JOB_ROWS)
  })

  it('a master killed: answered from memory meanwhile, health degraded then connected, a job across it completes', async () => {
    const { key, slot } = await keyBesideTheQueue()
    const shard = await shardOf(liveNode(), queueSlot)
    expect(shard.replicas.length).toBeGreaterThan(0)
    const pid = cluster.pids[cluster.nodes.indexOf(shard.master.address)] as number
    await aWorker()
    const jobId = await submitJob(key, JOB_ROWS)
    // Its chunks are queued (and replicated) before the master goes.
    expect(
      await eventually(
        async () => (await jobStatus(urls[0] as string, key, jobId)).rows_done > 0,
        30_000,
        20,
      ),
    ).toBe(true)
    const load = new PredictLoad(key)
    const health = new HealthWatch()
    await sleep(500)
    expect((await jobStatus(urls[0] as string, key, jobId)).status).toBe('running')
    const killedAt = Date.now()
    killed.add(pid)
    process.kill(pid, 'SIGKILL')
    expect(await failedOver(liveNode([shard.master.address]), slot, shard.master.address)).toBe(true)
    const promotedAt = Date.now()
    console.log(`master killed: replica promoted after ${promotedAt - killedAt} ms`)
    const back = await eventually(
      () => health.seen.every((seen) => seen.at(-1) === 'healthy/connected'),
      15_000,
      50,
    )
    await sleep(500)
    await load.stop()
    await health.stop()
    expect(back).toBe(true)
    expect(load.failures).toEqual([])
    expect(load.others()).toEqual({})
    // Answered while the slot had no master: counted in memory.
    expect(load.answeredBetween(killedAt + 500, promotedAt)).toBeGreaterThan(0)
    for (const seen of health.seen) {
      expect(seen[0]).toBe('healthy/connected')
      expect(seen).toContain('degraded/disconnected')
      expect(seen.at(-1)).toBe('healthy/connected')
    }
    for (const url of urls) {
      const metrics = await (await fetch(`${url}/metrics`, { headers: TEST_METRICS_AUTHORIZATION })).text()
      expect(metrics).toMatch(/survival_fallback_events_total\{kind="quota_memory"\} [1-9]/)
    }
    expect(await succeeded(key, jobId)).toBe(true)
    await expectEveryRowOnce(urls[0] as string, key, jobId, JOB_ROWS)
  })
})
