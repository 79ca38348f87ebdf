import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { rest } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { TEST_REDIS_URL } from '../support/services.ts'
import { forestGrid } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'

/**
 * A job outlives the processes that run it: a server killed mid-job, or a worker killed mid-chunk,
 * and the job still ends with every input row answered exactly once, in input order.
 */
const ROWS = 30_000
const CHUNK_ROWS = '100'

function portfolioCsv(): string {
  const points = forestGrid(ROWS)
  return [
    'id,latitude,longitude,species_code,planting_method',
    ...points.map((p, i) => `r${i + 1},${p.latitude},${p.longitude},PSME,manual`),
    '',
  ].join('\n')
}

interface JobStatus {
  status: string
  rows_total: number
  rows_done: number
}

async function status(url: string, key: string, id: string): Promise<JobStatus> {
  return (await rest(url, 'GET', `/v1/jobs/${id}`, { key })).body as JobStatus
}

/** Every input row once, in input order: the ids of the results are exactly r1…rN. */
async function expectEveryRowOnce(url: string, key: string, id: string) {
  const results = await rest(url, 'GET', `/v1/jobs/${id}/results`, { key })
  expect(results.status).toBe(200)
  const rows = parse(results.text, { columns: true }) as {
    id: string
    survival_1y: string
    error_code: string
  }[]
  expect(rows.length).toBe(ROWS)
  const outOfPlace = rows.findIndex((row, index) => row.id !== `r${index + 1}`)
  expect(outOfPlace).toBe(-1)
  expect(rows.filter((row) => row.survival_1y === '' && row.error_code === '')).toEqual([])
}

/** `npm run worker` in a child process; resolves once it says it started. */
async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const started = await eventually(() => {
    if (child.exitCode !== null) throw new Error(`worker exited:\n${output}`)
    return output.includes('job worker started')
  }, 30_000)
  if (!started) throw new Error(`worker did not start:\n${output}`)
  return child
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

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
      raw: portfolioCsv(),
      contentType: 'text/csv',
    })
    expect(accepted.status).toBe(202)
    const { id } = accepted.body as { id: string }
    expect(await eventually(async () => (await status(first.url, key, id)).rows_done > 0, 30_000, 20)).toBe(
      true,
    )
    await first.stop('SIGKILL')
    const before = await status((await server({})).url, key, id)
    expect(before.rows_done).toBeLessThan(ROWS)

    const second = processes.at(-1) as ServerProcess
    expect(
      await eventually(async () => (await status(second.url, key, id)).status === 'succeeded', 60_000, 100),
    ).toBe(true)
    await expectEveryRowOnce(second.url, key, id)
  })

  it('finishes with another worker when one is killed mid-chunk, writing nothing twice (BullMQ)', async () => {
    const prefix = `test:bull:${randomBytes(6).toString('hex')}`
    const queue = { REDIS_URL: TEST_REDIS_URL, JOB_QUEUE_PREFIX: prefix, JOB_CHUNK_ROWS: CHUNK_ROWS }
    const workerEnv = { DATABASE_URL: database.url, ...queue, JOB_LOCK_MS: '1000' }
    try {
      // The server only queues; the work is the workers'.
      const api = await server({ ...queue, JOB_WORKERS_IN_SERVER: 'false' })
      const doomed = await startWorker(workerEnv)
      const accepted = await rest(api.url, 'POST', '/v1/jobs', {
        key,
        raw: portfolioCsv(),
        contentType: 'text/csv',
      })
      const { id } = accepted.body as { id: string }
      // Killed while it scores: it holds chunks (concurrency 2) whose locks then lapse.
      expect(
        await eventually(async () => (await status(api.url, key, id)).rows_done >= 1000, 30_000, 20),
      ).toBe(true)
      await kill(doomed)
      const partial = await status(api.url, key, id)
      expect(partial.status).toBe('running')
      expect(partial.rows_done).toBeLessThan(ROWS)

      const rescuer = await startWorker(workerEnv)
      processes.push({ stop: () => kill(rescuer) })
      expect(
        await eventually(async () => (await status(api.url, key, id)).status === 'succeeded', 60_000, 100),
      ).toBe(true)
      expect((await status(api.url, key, id)).rows_done).toBe(ROWS)
      await expectEveryRowOnce(api.url, key, id)
    } finally {
      await deleteKeysWithPrefix(prefix)
    }
  })
})
