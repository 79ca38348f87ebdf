import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { rest } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { expectEveryRowOnce, jobStatus, portfolioCsv } from '../support/jobs.ts'
import {
  killProcess,
  type ServerProcess,
  startServerProcess,
  startWorkerProcess,
} from '../support/process.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { TEST_REDIS_URL } from '../support/services.ts'
import { eventually } from '../support/waiting.ts'

/**
 * A job outlives the processes that run it: a server killed mid-job, or a worker killed mid-chunk,
 * and the job still ends with every input row answered exactly once, in input order.
 */
const ROWS = 30_000
const CHUNK_ROWS = '100'

describe('jobs survive their processes', () => {
  let database: TestDatabase
  let key: string
  const processes: { stop(): Promise<unknown> }[] = []

  beforeAll(async () => {
    database = await createSeededDatabase()
    key = (await issueKey(database, 'hypha')).key
  })

  afterEach(async () => {
    await Promise.all(processes.splice(0).map((p) => p.stop()))
  })

  afterAll(async () => {
    await database?.drop()
  })

  async function server(env: Record<string, string>): Promise<ServerProcess> {
    const started = await startServerProcess({
      DATABASE_URL: database.url,
      JOB_CHUNK_ROWS: CHUNK_ROWS,
      ...env,
    })
    processes.push(started)
    return started
  }

  it('resumes where it stopped after the server is killed mid-job (PostgreSQL, no Redis)', async () => {
    const first = await server({})
    const accepted = await rest(first.url, 'POST', '/v1/jobs', {
      key,
      raw: portfolioCsv(ROWS),
      contentType: 'text/csv',
    })
    expect(accepted.status).toBe(202)
    const { id } = accepted.body as { id: string }
    expect(
      await eventually(async () => (await jobStatus(first.url, key, id)).rows_done > 0, 30_000, 20),
    ).toBe(true)
    await first.stop('SIGKILL')
    const before = await jobStatus((await server({})).url, key, id)
    expect(before.rows_done).toBeLessThan(ROWS)

    const second = processes.at(-1) as ServerProcess
    expect(
      await eventually(
        async () => (await jobStatus(second.url, key, id)).status === 'succeeded',
        60_000,
        100,
      ),
    ).toBe(true)
    await expectEveryRowOnce(second.url, key, id, ROWS)
  })

  it('finishes with another worker when one is killed mid-chunk, writing nothing twice (BullMQ)', async () => {
    const prefix = `test:bull:${randomBytes(6).toString('hex')}`
    // The queue and the server's quota counters under one prefix, deleted at the end.
    const queue = {
      REDIS_URL: TEST_REDIS_URL,
      JOB_QUEUE_PREFIX: prefix,
      QUOTA_KEY_PREFIX: `${prefix}:quota:`,
      JOB_CHUNK_ROWS: CHUNK_ROWS,
    }
    const workerEnv = { DATABASE_URL: database.url, ...queue, JOB_LOCK_MS: '1000' }
    try {
      // The server only queues; the work is the workers'.
      const api = await server({ ...queue, JOB_WORKERS_IN_SERVER: 'false' })
      const doomed = await startWorkerProcess(workerEnv)
      const accepted = await rest(api.url, 'POST', '/v1/jobs', {
        key,
        raw: portfolioCsv(ROWS),
        contentType: 'text/csv',
      })
      const { id } = accepted.body as { id: string }
      // Killed while it scores: it holds chunks (concurrency 2) whose locks then lapse.
      expect(
        await eventually(async () => (await jobStatus(api.url, key, id)).rows_done >= 1000, 30_000, 20),
      ).toBe(true)
      await killProcess(doomed)
      const partial = await jobStatus(api.url, key, id)
      expect(partial.status).toBe('running')
      expect(partial.rows_done).toBeLessThan(ROWS)

      const rescuer = await startWorkerProcess(workerEnv)
      processes.push({ stop: () => killProcess(rescuer) })
      expect(
        await eventually(async () => (await jobStatus(api.url, key, id)).status === 'succeeded', 60_000, 100),
      ).toBe(true)
      expect((await jobStatus(api.url, key, id)).rows_done).toBe(ROWS)
      await expectEveryRowOnce(api.url, key, id, ROWS)
    } finally {
      await deleteKeysWithPrefix(prefix)
    }
  })
})
