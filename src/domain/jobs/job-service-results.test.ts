import { parse } from 'csv-parse/sync'
import { describe, expect, it, vi } from 'vitest'
import { apiErrorOf } from '../../../test/support/api-errors.ts'
import { FOREST_POINTS } from '../../../test/support/fakes.ts'
import { NDJSON_RESULTS_HEADER } from '../../../test/support/job-columns.ts'
import { newJob, runAll, setup, T0 } from '../../../test/support/job-service-setup.ts'
import { csvUpload, HEADER, ndjsonUpload, owner } from '../../../test/support/job-uploads.ts'
import { RESULT_COLUMNS } from '../../job-files/job-output.ts'
import type { JobService } from './job-service.ts'

describe('JobService.results', () => {
  it('refuses before the job has succeeded (job_not_finished)', async () => {
    const { jobs, charge } = setup()
    const { id } = await jobs.create(owner(), csvUpload(3), charge)
    const error = await apiErrorOf(jobs.results(owner(), id, 'csv'))
    expect(error.code).toBe('job_not_finished')
    expect(error.status).toBe(409)
  })

  it.each(['csv', 'ndjson'] as const)(
    'plans %s results whose byte total is the header plus every chunk’s text, read in order across pages',
    async (format) => {
      // 40 chunks of one row: more than one page (16) of chunks.
      const { jobs, queue, charge } = setup({ chunkRows: 1 })
      const { id } = await jobs.create(owner(), csvUpload(40), charge)
      // Scored last chunk first: the results still read in input order.
      await runAll(jobs, queue, 'reversed')
      const plan = await jobs.results(owner(), id, format)
      expect(plan.chunkBytes).toHaveLength(40)

      const texts: string[] = []
      for await (const text of jobs.resultChunks(plan, 0)) texts.push(text)
      expect(texts).toHaveLength(40)
      expect(plan.chunkBytes).toEqual(texts.map((text) => Buffer.byteLength(text)))
      const whole = plan.header + texts.join('')
      expect(plan.totalBytes).toBe(Buffer.byteLength(whole))
      // The multi-byte plot names make bytes and characters differ.
      expect(plan.totalBytes).toBeGreaterThan(whole.length)

      const rows =
        format === 'csv'
          ? (parse(whole) as string[][]).slice(1).map((cells) => cells[0])
          : whole
              .trim()
              .split('\n')
              .map((line) => (JSON.parse(line) as { plot: string }).plot)
      expect(rows).toEqual(Array.from({ length: 40 }, (_, index) => `p${index + 1} · Ñ`))
      if (format === 'csv') expect(plan.header).toBe(`${[...HEADER, ...RESULT_COLUMNS].join(',')}\r\n`)
      else expect(plan.header).toBe('')

      const tail: string[] = []
      for await (const text of jobs.resultChunks(plan, 17)) tail.push(text)
      expect(tail).toEqual(texts.slice(17))
    },
  )
})

describe('JobService.resultsSummary (a job’s report)', () => {
  it('refuses before the job has succeeded, and another account’s job is not found', async () => {
    const { jobs, queue, charge } = setup()
    const { id } = await jobs.create(owner(), csvUpload(3), charge)
    const early = await apiErrorOf(jobs.resultsSummary(owner(), id))
    expect([early.code, early.status]).toEqual(['job_not_finished', 409])
    await runAll(jobs, queue)
    const stranger = await apiErrorOf(jobs.resultsSummary({ ...owner(), accountId: 'acct_other' }, id))
    expect([stranger.code, stranger.status]).toEqual(['not_found', 404])
  })

  it('sums every row once, its NDJSON results read a page of chunks at a time', async () => {
    // 40 chunks of one row, two of them failing: more than one page (16) of chunks.
    const { jobs, queue, charge, store } = setup({ chunkRows: 1 })
    const bad = [
      ['x1', '44.6', '-123.6', 'XXXX', 'manual'],
      ['x2', '44.6', '-123.6', 'PSME', 'cannon'],
    ]
    const { id } = await jobs.create(owner(), csvUpload(38, bad), charge)
    await runAll(jobs, queue, 'reversed')
    const reads = vi.spyOn(store, 'resultTexts')
    const { job, summary } = await jobs.resultsSummary(owner(), id)
    expect(reads.mock.calls.map(([, format, from, count]) => [format, from, count])).toEqual([
      ['ndjson', 0, 16],
      ['ndjson', 16, 16],
      ['ndjson', 32, 8],
    ])
    expect(job.status).toBe('succeeded')
    expect(summary.rows).toBe(40)
    expect(summary.failed).toBe(job.rowsFailed)
    expect(Object.fromEntries(summary.errors.map((e) => [e.code, e.rows]))).toEqual(job.errorsByCode)
    // Each horizon counts the rows with a survival there, and its bins add up to them.
    const plan = await jobs.results(owner(), id, 'csv')
    let csv = plan.header
    for await (const text of jobs.resultChunks(plan, 0)) csv += text
    const rows = (parse(csv, { columns: true }) as Record<string, string>[]).filter(
      (row) => row.error_code === '',
    )
    for (const [index, horizon] of summary.horizons.entries()) {
      const column = `survival_${['1y', '3y', '5y'][index]}`
      const values = rows.filter((row) => row[column] !== '').map((row) => Number(row[column]))
      expect(values.length).toBeGreaterThan(0)
      expect(horizon.rows).toBe(values.length)
      expect(horizon.bins.reduce((sum, n) => sum + n, 0)).toBe(values.length)
      expect(horizon.mean).toBeCloseTo(values.reduce((sum, v) => sum + v, 0) / values.length, 12)
      expect(horizon.lowest).toBe(Math.min(...values))
      expect(horizon.highest).toBe(Math.max(...values))
    }
  })
})

describe('JobService.results: where the climate goes', () => {
  const body = { ...FOREST_POINTS.coastRange, species_code: 'TSHE', planting_method: 'manual' }

  async function csvResults(jobs: JobService, id: string): Promise<string> {
    const plan = await jobs.results(owner(), id, 'csv')
    let text = plan.header
    for await (const chunk of jobs.resultChunks(plan, 0)) text += chunk
    return text
  }

  it('an NDJSON job: the columns of before, the results, then period and scenario', async () => {
    const { jobs, queue, charge } = setup()
    const lines = [
      JSON.stringify({ id: 'a', ...body }),
      JSON.stringify({ id: 'b', ...body, period: '2041-2070', scenario: 'ssp370' }),
      JSON.stringify({ id: 'c', ...body, period: 'soon' }),
    ]
    const { id } = await jobs.create(owner(), ndjsonUpload(lines), charge)
    await runAll(jobs, queue)
    const [header, ...rows] = parse(await csvResults(jobs, id)) as string[][]
    expect(header).toEqual(NDJSON_RESULTS_HEADER)
    expect(rows.map((cells) => [cells[0], ...cells.slice(-3)])).toEqual([
      ['a', '', '', ''],
      ['b', '', '2041-2070', 'ssp370'],
      ['c', 'invalid_climate', 'soon', ''],
    ])
    expect(await jobs.status(owner(), id)).toMatchObject({
      rowsFailed: 1,
      errorsByCode: { invalid_climate: 1 },
    })
  })

  it('a job stored before climate input (NDJSON, six columns) is scored and read as it was', async () => {
    const { jobs, store, queue } = setup()
    const id = 'job_444444444444444444444444'
    const six = ['id', 'latitude', 'longitude', 'species_code', 'planting_method', 'horizons']
    await store.create(
      newJob({ id, format: 'ndjson', columns: six, expiresAt: new Date(T0.getTime() + 3_600_000) }),
    )
    const row = {
      r: 1,
      c: ['a', body.latitude, body.longitude, 'TSHE', 'manual', null],
      q: { ...FOREST_POINTS.coastRange, speciesCode: 'TSHE', plantingMethod: 'manual', horizons: null },
    }
    await store.addInputChunk(id, 0, 1, JSON.stringify([row]))
    await store.accept(id, 1, 1)
    await jobs.runChunk({ jobId: id, chunkIndex: 0 })
    expect(queue.added).toEqual([])
    const [header, first] = parse(await csvResults(jobs, id)) as string[][]
    expect(header).toEqual([...six, ...RESULT_COLUMNS])
    expect(first).toHaveLength(13)
    expect(first?.at(-1)).toBe('')
  })
})

describe('JobService.recover', () => {
  it('queues exactly the chunks of unfinished jobs that have no results yet', async () => {
    const { jobs, queue, charge } = setup()
    const running = await jobs.create(owner(), csvUpload(5), charge)
    const queued = await jobs.create(owner(), csvUpload(3), charge)
    const done = await jobs.create(owner(), csvUpload(2), charge)
    const cancelled = await jobs.create(owner(), csvUpload(2), charge)
    await jobs.runChunk({ jobId: running.id, chunkIndex: 1 })
    await jobs.runChunk({ jobId: done.id, chunkIndex: 0 })
    await jobs.cancel(owner(), cancelled.id)
    queue.added.length = 0

    expect(await jobs.recover()).toBe(4)
    expect(queue.added).toEqual([
      { jobId: running.id, chunkIndex: 0 },
      { jobId: running.id, chunkIndex: 2 },
      { jobId: queued.id, chunkIndex: 0 },
      { jobId: queued.id, chunkIndex: 1 },
    ])
  })

  it('an upload the queue could not take (Redis failing over) is still accepted, and the sweep queues it', async () => {
    const { jobs, store, queue, charge, charges } = setup()
    const add = vi.spyOn(queue, 'add').mockRejectedValueOnce(new Error('CLUSTERDOWN The cluster is down'))
    const job = await jobs.create(owner(), csvUpload(5), charge)
    expect(job).toMatchObject({ status: 'queued', rowsTotal: 5, chunksTotal: 3 })
    expect(charges).toEqual([1])
    expect(store.jobs.size).toBe(1)
    expect(queue.added).toEqual([])

    add.mockRestore()
    expect(await jobs.recover()).toBe(3)
    await runAll(jobs, queue)
    expect((await jobs.status(owner(), job.id)).status).toBe('succeeded')
  })

  it('adds nothing when nothing is pending', async () => {
    const { jobs, queue } = setup()
    const add = vi.spyOn(queue, 'add')
    expect(await jobs.recover()).toBe(0)
    expect(add).not.toHaveBeenCalled()
  })
})

describe('JobService.purge', () => {
  it('removes expired jobs and uploads abandoned while arriving, nothing else', async () => {
    // The fake store stamps createdAt with the real clock; the service's clock is set around it.
    const start = new Date()
    const { jobs, store, charge, clock } = setup({ ttlMs: 10 * 3_600_000, abandonedAfterMs: 3_600_000 })
    clock.now = start
    const old = await jobs.create(owner(), csvUpload(2), charge)
    clock.now = new Date(start.getTime() + 5 * 3_600_000)
    const young = await jobs.create(owner(), csvUpload(2), charge)
    await store.create(
      newJob({ id: 'job_333333333333333333333333', expiresAt: new Date(start.getTime() + 100 * 3_600_000) }),
    )

    // Half an hour on: nothing expired, the upload still within its hour.
    clock.now = new Date(start.getTime() + 1_800_000)
    expect(await jobs.purge()).toBe(0)
    expect(store.jobs.size).toBe(3)

    // Two hours on: the upload was abandoned.
    clock.now = new Date(start.getTime() + 2 * 3_600_000)
    expect(await jobs.purge()).toBe(1)
    expect([...store.jobs.keys()].sort()).toEqual([old.id, young.id].sort())

    // Eleven hours on: the first job expired (10 h), the second not yet (15 h).
    clock.now = new Date(start.getTime() + 11 * 3_600_000)
    expect(await jobs.purge()).toBe(1)
    expect([...store.jobs.keys()]).toEqual([young.id])
    expect([...store.inputs.keys()].every((key) => key.startsWith(young.id))).toBe(true)
  })
})
