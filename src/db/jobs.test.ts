import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import type { JobResultChunk, NewJob } from '../types.ts'
import {
  acceptJob,
  addInputChunk,
  cancelJob,
  createJob,
  failJob,
  findJob,
  finishJobIfComplete,
  inputChunk,
  markJobRunning,
  pendingChunks,
  purgeJobs,
  removeJob,
  resultSizes,
  resultTexts,
  writeResultChunk,
} from './jobs.ts'
import { migrate } from './migrate.ts'

const HOUR = 3_600_000
const FUTURE = new Date(Date.now() + 24 * HOUR)

function newJob(overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: `job_${randomBytes(12).toString('hex')}`,
    accountId: 'acct_a',
    keyId: 'key_a',
    tier: 'mycel',
    format: 'csv',
    columns: ['plot', 'latitude', 'longitude', 'species_code', 'planting_method'],
    chunkRows: 2,
    modelVersion: '0.2',
    defaults: {},
    expiresAt: FUTURE,
    ...overrides,
  }
}

/** A chunk's results whose text holds multi-byte characters (bytes ≠ characters). */
function result(chunkIndex: number, overrides: Partial<JobResultChunk> = {}): JobResultChunk {
  return {
    rowsDone: 2,
    rowsFailed: 0,
    errors: {},
    csv: `Ñandú ${chunkIndex},44.6,-123.6,PSME,manual,0.9,,,,,,\r\n🌲 ${chunkIndex},44.6,-123.6,PSME,manual,0.8,,,,,,\r\n`,
    ndjson: `{"row":${chunkIndex * 2 + 1},"plot":"Ñandú ✓"}\n{"row":${chunkIndex * 2 + 2},"plot":"🌲"}\n`,
    geojson: '',
    ...overrides,
  }
}

describe('job store (PostgreSQL)', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql)
  })
  afterAll(() => db?.drop())

  /** A job accepted with `chunks` input chunks (of `chunkRows` rows each). */
  async function acceptedJob(chunks: number, overrides: Partial<NewJob> = {}) {
    const job = newJob(overrides)
    await createJob(db.sql, job)
    for (let index = 0; index < chunks; index++)
      await addInputChunk(db.sql, job.id, index, index * 2 + 1, JSON.stringify([{ r: index * 2 + 1, c: [] }]))
    await acceptJob(db.sql, job.id, chunks * 2, chunks)
    return job
  }

  it('creates a job receiving its upload, then accepts it as queued with its size', async () => {
    const job = newJob({
      format: 'ndjson',
      columns: ['id', 'latitude', 'note, "quoted"'],
      defaults: { period: '2041-2070', species_code: 'PSME' },
    })
    await createJob(db.sql, job)
    expect(await findJob(db.sql, job.id)).toMatchObject({
      id: job.id,
      defaults: { period: '2041-2070', species_code: 'PSME' },
      accountId: 'acct_a',
      tier: 'mycel',
      format: 'ndjson',
      columns: ['id', 'latitude', 'note, "quoted"'],
      status: 'receiving',
      rowsTotal: 0,
      chunkRows: 2,
      chunksTotal: 0,
      chunksDone: 0,
      rowsDone: 0,
      rowsFailed: 0,
      errorsByCode: {},
      failure: null,
      startedAt: null,
      finishedAt: null,
      expiresAt: FUTURE,
    })
    await addInputChunk(db.sql, job.id, 0, 1, '[{"r":1}]')
    await addInputChunk(db.sql, job.id, 1, 3, '[{"r":3}]')
    await acceptJob(db.sql, job.id, 3, 2)
    expect(await findJob(db.sql, job.id)).toMatchObject({ status: 'queued', rowsTotal: 3, chunksTotal: 2 })
    expect(await inputChunk(db.sql, job.id, 1)).toBe('[{"r":3}]')
    expect(await inputChunk(db.sql, job.id, 2)).toBeNull()

    // Accepting again changes nothing: only a job still receiving is accepted.
    await acceptJob(db.sql, job.id, 99, 99)
    expect(await findJob(db.sql, job.id)).toMatchObject({ status: 'queued', rowsTotal: 3, chunksTotal: 2 })
    expect(await findJob(db.sql, 'job_missing')).toBeNull()
  })

  it('sums progress over the chunks written: rows done, rows failed, failures by code', async () => {
    const job = await acceptedJob(3)
    expect(
      await writeResultChunk(db.sql, job.id, 0, result(0, { rowsFailed: 1, errors: { invalid_species: 1 } })),
    ).toBe(true)
    expect(
      await writeResultChunk(
        db.sql,
        job.id,
        2,
        result(2, { rowsDone: 1, rowsFailed: 1, errors: { invalid_species: 1, no_nearby_data: 0 } }),
      ),
    ).toBe(true)
    expect(
      await writeResultChunk(
        db.sql,
        job.id,
        1,
        result(1, { rowsFailed: 2, errors: { no_nearby_data: 1, invalid_request: 1 } }),
      ),
    ).toBe(true)
    expect(await findJob(db.sql, job.id)).toMatchObject({
      chunksDone: 3,
      rowsDone: 5,
      rowsFailed: 4,
      errorsByCode: { invalid_species: 2, no_nearby_data: 1, invalid_request: 1 },
    })
  })

  it('writes a chunk’s results once: the second write of the same chunk returns false and changes nothing', async () => {
    const job = await acceptedJob(2)
    expect(await writeResultChunk(db.sql, job.id, 0, result(0))).toBe(true)
    expect(await writeResultChunk(db.sql, job.id, 0, result(0, { rowsDone: 50, csv: 'other\r\n' }))).toBe(
      false,
    )
    expect(await findJob(db.sql, job.id)).toMatchObject({ chunksDone: 1, rowsDone: 2 })
    expect(await resultTexts(db.sql, job.id, 'csv', 0, 1)).toEqual([result(0).csv])
  })

  it('lets exactly one of many concurrent writes of the same chunk through', async () => {
    const job = await acceptedJob(1)
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, (_, attempt) =>
        writeResultChunk(db.sql, job.id, 0, result(0, { csv: `attempt ${attempt}\r\n` })),
      ),
    )
    expect(outcomes.filter(Boolean)).toHaveLength(1)
    expect(await findJob(db.sql, job.id)).toMatchObject({ chunksDone: 1, rowsDone: 2 })
    const [written] = await resultTexts(db.sql, job.id, 'csv', 0, 1)
    expect(written).toBe(`attempt ${outcomes.indexOf(true)}\r\n`)
  })

  it('writes nothing for a job that is gone', async () => {
    expect(await writeResultChunk(db.sql, 'job_gone', 0, result(0))).toBe(false)
  })

  it('marks a job running once, keeping the first start', async () => {
    const job = await acceptedJob(1)
    const first = new Date('2026-11-22T12:00:00Z')
    expect(await markJobRunning(db.sql, job.id, first)).toBe(true)
    expect(await markJobRunning(db.sql, job.id, new Date('2026-11-22T12:05:00Z'))).toBe(true)
    expect(await findJob(db.sql, job.id)).toMatchObject({ status: 'running', startedAt: first })
    await cancelJob(db.sql, job.id, first)
    expect(await markJobRunning(db.sql, job.id, first)).toBe(false)
  })

  it('finishes a job only when every chunk is written and it is running', async () => {
    const at = new Date('2026-11-22T13:00:00Z')
    const job = await acceptedJob(2)
    await writeResultChunk(db.sql, job.id, 0, result(0))
    await writeResultChunk(db.sql, job.id, 1, result(1))
    // Still queued: not finished, though complete.
    expect(await finishJobIfComplete(db.sql, job.id, at)).toBe(false)

    const running = await acceptedJob(2)
    await markJobRunning(db.sql, running.id, at)
    await writeResultChunk(db.sql, running.id, 0, result(0))
    expect(await finishJobIfComplete(db.sql, running.id, at)).toBe(false)
    expect((await findJob(db.sql, running.id))?.status).toBe('running')
    await writeResultChunk(db.sql, running.id, 1, result(1))
    expect(await finishJobIfComplete(db.sql, running.id, at)).toBe(true)
    expect(await findJob(db.sql, running.id)).toMatchObject({ status: 'succeeded', finishedAt: at })
    expect(await finishJobIfComplete(db.sql, running.id, new Date())).toBe(false)
    expect((await findJob(db.sql, running.id))?.finishedAt).toEqual(at)

    const cancelled = await acceptedJob(1)
    await markJobRunning(db.sql, cancelled.id, at)
    await writeResultChunk(db.sql, cancelled.id, 0, result(0))
    await cancelJob(db.sql, cancelled.id, at)
    expect(await finishJobIfComplete(db.sql, cancelled.id, at)).toBe(false)
    expect((await findJob(db.sql, cancelled.id))?.status).toBe('cancelled')
  })

  it('cancels only a queued or running job', async () => {
    const at = new Date('2026-11-22T14:00:00Z')
    const queued = await acceptedJob(1)
    expect(await cancelJob(db.sql, queued.id, at)).toBe(true)
    expect(await findJob(db.sql, queued.id)).toMatchObject({ status: 'cancelled', finishedAt: at })
    expect(await cancelJob(db.sql, queued.id, at)).toBe(false)

    const running = await acceptedJob(1)
    await markJobRunning(db.sql, running.id, at)
    expect(await cancelJob(db.sql, running.id, at)).toBe(true)

    const succeeded = await acceptedJob(1)
    await markJobRunning(db.sql, succeeded.id, at)
    await writeResultChunk(db.sql, succeeded.id, 0, result(0))
    await finishJobIfComplete(db.sql, succeeded.id, at)
    expect(await cancelJob(db.sql, succeeded.id, at)).toBe(false)
    expect((await findJob(db.sql, succeeded.id))?.status).toBe('succeeded')

    const failed = await acceptedJob(1)
    await failJob(db.sql, failed.id, 'chunk 0 could not be scored', at)
    expect(await findJob(db.sql, failed.id)).toMatchObject({
      status: 'failed',
      failure: 'chunk 0 could not be scored',
      finishedAt: at,
    })
    expect(await cancelJob(db.sql, failed.id, at)).toBe(false)

    const receiving = newJob()
    await createJob(db.sql, receiving)
    expect(await cancelJob(db.sql, receiving.id, at)).toBe(false)
    expect(await cancelJob(db.sql, 'job_missing', at)).toBe(false)
  })

  it('fails only a queued or running job', async () => {
    const at = new Date('2026-11-22T15:00:00Z')
    const cancelled = await acceptedJob(1)
    await cancelJob(db.sql, cancelled.id, at)
    await failJob(db.sql, cancelled.id, 'late', at)
    expect(await findJob(db.sql, cancelled.id)).toMatchObject({ status: 'cancelled', failure: null })
  })

  describe('pendingChunks', () => {
    // Its own database: pendingChunks lists every job's, and the other tests leave jobs behind.
    let own: TestDatabase
    beforeAll(async () => {
      own = await createTestDatabase()
      await migrate(own.sql)
    })
    afterAll(() => own?.drop())

    it('lists exactly the unwritten chunks of queued and running jobs, oldest job first', async () => {
      const at = new Date('2026-11-22T16:00:00Z')
      const make = async (chunks: number, createdAt: Date) => {
        const job = newJob()
        await createJob(own.sql, job)
        await own.sql`UPDATE jobs SET created_at = ${createdAt} WHERE id = ${job.id}`
        for (let index = 0; index < chunks; index++)
          await addInputChunk(own.sql, job.id, index, index + 1, '[]')
        return job
      }
      const receiving = await make(2, new Date('2026-11-22T10:00:00Z'))
      const queued = await make(3, new Date('2026-11-22T11:00:00Z'))
      const running = await make(3, new Date('2026-11-22T10:30:00Z'))
      const succeeded = await make(1, new Date('2026-11-22T09:00:00Z'))
      const cancelled = await make(2, new Date('2026-11-22T09:30:00Z'))
      await acceptJob(own.sql, queued.id, 3, 3)
      await acceptJob(own.sql, running.id, 3, 3)
      await acceptJob(own.sql, succeeded.id, 1, 1)
      await acceptJob(own.sql, cancelled.id, 2, 2)
      await writeResultChunk(own.sql, queued.id, 1, result(1))
      await markJobRunning(own.sql, running.id, at)
      await writeResultChunk(own.sql, running.id, 0, result(0))
      await writeResultChunk(own.sql, running.id, 2, result(2))
      await markJobRunning(own.sql, succeeded.id, at)
      await writeResultChunk(own.sql, succeeded.id, 0, result(0))
      expect(await finishJobIfComplete(own.sql, succeeded.id, at)).toBe(true)
      await cancelJob(own.sql, cancelled.id, at)
      expect((await findJob(own.sql, receiving.id))?.status).toBe('receiving')

      expect(await pendingChunks(own.sql)).toEqual([
        { jobId: running.id, chunkIndex: 1 },
        { jobId: queued.id, chunkIndex: 0 },
        { jobId: queued.id, chunkIndex: 2 },
      ])
    })
  })

  it('gives each chunk’s size in bytes (not characters), in chunk order, per format', async () => {
    const job = await acceptedJob(3)
    const chunks = [result(0), result(1, { csv: 'é\r\n', ndjson: '{"plot":"𝒳"}\n' }), result(2)]
    for (const index of [2, 0, 1])
      await writeResultChunk(db.sql, job.id, index, chunks[index] as JobResultChunk)
    const csvBytes = chunks.map((chunk) => Buffer.byteLength(chunk.csv))
    const ndjsonBytes = chunks.map((chunk) => Buffer.byteLength(chunk.ndjson))
    expect(await resultSizes(db.sql, job.id, 'csv')).toEqual(csvBytes)
    expect(await resultSizes(db.sql, job.id, 'ndjson')).toEqual(ndjsonBytes)
    expect(csvBytes).not.toEqual(chunks.map((chunk) => chunk.csv.length))
    expect(await resultSizes(db.sql, 'job_missing', 'csv')).toEqual([])
  })

  it('reads result texts a page at a time, in chunk order', async () => {
    const job = await acceptedJob(7)
    for (const index of [6, 3, 0, 5, 1, 4, 2]) await writeResultChunk(db.sql, job.id, index, result(index))
    const all = Array.from({ length: 7 }, (_, index) => result(index))
    expect(await resultTexts(db.sql, job.id, 'csv', 0, 7)).toEqual(all.map((chunk) => chunk.csv))
    expect(await resultTexts(db.sql, job.id, 'ndjson', 0, 3)).toEqual(
      all.slice(0, 3).map((chunk) => chunk.ndjson),
    )
    expect(await resultTexts(db.sql, job.id, 'csv', 3, 3)).toEqual(all.slice(3, 6).map((chunk) => chunk.csv))
    expect(await resultTexts(db.sql, job.id, 'csv', 6, 3)).toEqual([all[6]?.csv])
    expect(await resultTexts(db.sql, job.id, 'csv', 7, 3)).toEqual([])
    const paged: string[] = []
    for (let from = 0; from < 7; from += 2)
      paged.push(...(await resultTexts(db.sql, job.id, 'ndjson', from, 2)))
    expect(paged).toEqual(all.map((chunk) => chunk.ndjson))
  })

  it('deletes a job with its input and result chunks (cascade)', async () => {
    const job = await acceptedJob(2)
    await writeResultChunk(db.sql, job.id, 0, result(0))
    await removeJob(db.sql, job.id)
    expect(await findJob(db.sql, job.id)).toBeNull()
    const [inputs] = await db.sql<{ count: number }[]>`
      SELECT count(*)::int AS count FROM job_input_chunks WHERE job_id = ${job.id}`
    const [results] = await db.sql<{ count: number }[]>`
      SELECT count(*)::int AS count FROM job_result_chunks WHERE job_id = ${job.id}`
    expect([inputs?.count, results?.count]).toEqual([0, 0])
  })

  describe('purgeJobs', () => {
    let own: TestDatabase
    beforeAll(async () => {
      own = await createTestDatabase()
      await migrate(own.sql)
    })
    afterAll(() => own?.drop())

    it('deletes expired jobs and uploads abandoned while receiving, with their chunks, and nothing else', async () => {
      const now = new Date('2026-11-22T12:00:00Z')
      const abandonedBefore = new Date(now.getTime() - HOUR)
      const make = async (name: string, expiresAt: Date, createdAt: Date, accept: boolean) => {
        const job = newJob({ expiresAt })
        await createJob(own.sql, job)
        await own.sql`UPDATE jobs SET created_at = ${createdAt} WHERE id = ${job.id}`
        await addInputChunk(own.sql, job.id, 0, 1, '[]')
        if (accept) {
          await acceptJob(own.sql, job.id, 1, 1)
          await writeResultChunk(own.sql, job.id, 0, result(0))
        }
        return [name, job.id] as const
      }
      const jobs = new Map([
        await make('expired', new Date(now.getTime() - 1), new Date(now.getTime() - 10 * HOUR), true),
        await make('expires now', now, new Date(now.getTime() - 10 * HOUR), true),
        await make('fresh', new Date(now.getTime() + HOUR), new Date(now.getTime() - 10 * HOUR), true),
        await make('abandoned', new Date(now.getTime() + HOUR), new Date(now.getTime() - 2 * HOUR), false),
        await make('arriving', new Date(now.getTime() + HOUR), new Date(now.getTime() - 30 * 60_000), false),
        await make(
          'old but accepted',
          new Date(now.getTime() + HOUR),
          new Date(now.getTime() - 2 * HOUR),
          true,
        ),
      ])

      expect(await purgeJobs(own.sql, now, abandonedBefore)).toBe(2)
      const left = await own.sql<{ id: string }[]>`SELECT id FROM jobs ORDER BY id`
      const names = [...jobs].filter(([, id]) => left.some((row) => row.id === id)).map(([name]) => name)
      expect(names.sort()).toEqual(['arriving', 'expires now', 'fresh', 'old but accepted'])
      const [orphans] = await own.sql<{ count: number }[]>`
        SELECT (SELECT count(*) FROM job_input_chunks WHERE job_id NOT IN (SELECT id FROM jobs))
             + (SELECT count(*) FROM job_result_chunks WHERE job_id NOT IN (SELECT id FROM jobs)) AS count`
      expect(Number(orphans?.count)).toBe(0)
      const [chunks] = await own.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM job_input_chunks`
      expect(chunks?.count).toBe(4)
      expect(await purgeJobs(own.sql, now, abandonedBefore)).toBe(0)
    })
  })
})
