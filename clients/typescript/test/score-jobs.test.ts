import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueKey } from '../../../test/support/fixtures.ts'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS, forestGrid, NO_DATA_POINTS, OUTSIDE_POINTS } from '../../../test/support/sites.ts'
import { endsWithin, runScorer, startProxy, startScorer, until } from './support.ts'

const HEADER = 'id,latitude,longitude,species_code,planting_method,horizons,note'

const MIXED = [
  HEADER,
  `a1,${FOREST_POINTS.coastRange.latitude},${FOREST_POINTS.coastRange.longitude},PSME,manual,1|3|5,"coast, wet"`,
  `a2,${FOREST_POINTS.westCascades.latitude},${FOREST_POINTS.westCascades.longitude},TSHE,drone_seeded,5,`,
  `b1,${NO_DATA_POINTS.downtownPortland.latitude},${NO_DATA_POINTS.downtownPortland.longitude},PSME,manual,,city`,
  `b2,${OUTSIDE_POINTS.boise.latitude},${OUTSIDE_POINTS.boise.longitude},PIPO,manual,,idaho`,
  `b3,north,${FOREST_POINTS.coastRange.longitude},PSME,manual,,typo`,
  `b4,${FOREST_POINTS.coastRange.latitude},${FOREST_POINTS.coastRange.longitude},PSME,manual,2,"says ""2"""`,
  `a3,${FOREST_POINTS.eastCascades.latitude},${FOREST_POINTS.eastCascades.longitude},PIPO,manual,3|1,`,
].join('\r\n')

function gridCsv(count: number): string {
  const lines = forestGrid(count).map(
    (point, index) =>
      `g${index},${point.latitude},${point.longitude},${index % 3 ? 'TSHE' : 'PSME'},manual,,n${index}`,
  )
  return `${[HEADER, ...lines].join('\n')}\n`
}

describe('npm run score (job path) against a live server', () => {
  let running: SeededServer
  let dir: string
  let env: Record<string, string>
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
    dir = mkdtempSync(join(tmpdir(), 'score-jobs-'))
    env = { SURVIVAL_API_KEY: running.key, SURVIVAL_API_URL: running.server.url }
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await stopSeededServer(running)
  })

  it('writes the same file through a job as through batch calls (CSV and NDJSON out), same summary', async () => {
    const input = join(dir, 'mixed.csv')
    writeFileSync(input, MIXED)
    for (const extension of ['csv', 'ndjson']) {
      const viaBatch = join(dir, `batch.${extension}`)
      const viaJob = join(dir, `job.${extension}`)
      const batch = await runScorer([input, '--out', viaBatch, '--via', 'batch'], env)
      const job = await runScorer([input, '--out', viaJob, '--via', 'job', '--poll', '0.1'], env)
      expect(job.stderr).toMatch(/Job job_\w+: 7 rows queued/)
      const summary = '4 rows failed: invalid_request 2, no_nearby_data 1, outside_coverage 1'
      expect(batch.stderr).toContain(summary)
      expect(job.stderr).toContain(summary)
      expect([batch.code, job.code]).toEqual([1, 1])
      expect(readFileSync(viaJob, 'utf8')).toBe(readFileSync(viaBatch, 'utf8'))
    }
  })

  it('climate columns and --period/--scenario: the same file through a job as through batch calls', async () => {
    const { coastRange } = FOREST_POINTS
    const at = `${coastRange.latitude},${coastRange.longitude}`
    const scored = async (name: string, text: string, extra: string[] = [], out = 'csv') => {
      const input = join(dir, name)
      writeFileSync(input, text)
      const viaBatch = join(dir, `${name}.batch.${out}`)
      const viaJob = join(dir, `${name}.job.${out}`)
      const batch = await runScorer([input, '--out', viaBatch, '--via', 'batch', ...extra], env)
      const job = await runScorer([input, '--out', viaJob, '--via', 'job', '--poll', '0.1', ...extra], env)
      expect(job.stderr).toMatch(/Job job_\w+: \d+ rows queued/)
      expect(batch.code).toBe(job.code)
      const written = readFileSync(viaJob, 'utf8')
      expect(written).toBe(readFileSync(viaBatch, 'utf8'))
      return { text: written, stderr: job.stderr, batchStderr: batch.stderr, code: job.code }
    }

    const ownClimate = [
      'id,latitude,longitude,species_code,planting_method,period,scenario',
      `today,${at},TSHE,manual,,`,
      `baseline,${at},TSHE,manual,1991_2020,`,
      `own,${at},TSHE,manual,2071-2100,ssp585`,
      `bad,${at},TSHE,manual,2071-2100,`,
    ].join('\n')
    const plain = await scored('climate.csv', ownClimate)
    expect(plain.code).toBe(1)
    expect(plain.stderr).toContain('1 row failed: invalid_climate 1')
    const rows = parse(plain.text, { columns: true }) as Record<string, string>[]
    const results = (row: Record<string, string> | undefined) =>
      ['survival_1y', 'survival_3y', 'survival_5y', 'top_factor_1y', 'error_code'].map((name) => row?.[name])
    expect(results(rows[1])).toEqual(results(rows[0]))
    expect(rows[2]?.survival_5y).not.toBe(rows[0]?.survival_5y)
    expect(rows.map((row) => [row.period, row.scenario, row.error_code])).toEqual([
      ['', '', ''],
      ['1991_2020', '', ''],
      ['2071-2100', 'ssp585', ''],
      ['2071-2100', '', 'invalid_climate'],
    ])

    // The flags fill only the row naming no climate: it is then scored, and echoed, under them.
    const flags = ['--period', '2071-2100', '--scenario', 'ssp585']
    const defaulted = await scored('climate.csv', ownClimate, flags)
    expect(defaulted.stderr).toContain('Rows that name no climate: period 2071-2100, scenario ssp585')
    const withFlags = parse(defaulted.text, { columns: true }) as Record<string, string>[]
    expect(withFlags.map((row) => [row.id, row.period, row.scenario])).toEqual([
      ['today', '2071-2100', 'ssp585'],
      ['baseline', '1991_2020', ''],
      ['own', '2071-2100', 'ssp585'],
      ['bad', '2071-2100', ''],
    ])
    expect(results(withFlags[0])).toEqual(results(withFlags[2]))
    expect(results(withFlags[1])).toEqual(results(rows[0]))

    // A file without climate columns gains them, at the end of its columns.
    const noColumns = [`id,latitude,longitude,species_code,planting_method`, `a,${at},TSHE,manual`].join('\n')
    const gained = await scored('no-climate.csv', noColumns, flags)
    expect(gained.text.split('\r\n')[0]).toMatch(
      /^id,latitude,longitude,species_code,planting_method,period,scenario,survival_1y,/,
    )
    expect((parse(gained.text, { columns: true }) as Record<string, string>[])[0]?.survival_5y).toBe(
      withFlags[0]?.survival_5y,
    )

    // NDJSON in and out: period and scenario after error_code, a line's own climate kept.
    const body = { ...coastRange, species_code: 'TSHE', planting_method: 'manual' }
    const ndjson = [
      JSON.stringify({ id: 'flags', ...body }),
      JSON.stringify({ id: 'own', ...body, climate: { period: '1991_2020' } }),
    ].join('\n')
    const lines = (await scored('climate.ndjson', ndjson, flags, 'ndjson')).text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(Object.keys(lines[0] ?? {}).slice(-3)).toEqual(['error_code', 'period', 'scenario'])
    expect(lines.map((line) => [line.id, line.period, line.scenario])).toEqual([
      ['flags', '2071-2100', 'ssp585'],
      ['own', '1991_2020', null],
    ])
    expect(String(lines[0]?.survival_5y)).toBe(withFlags[0]?.survival_5y)
    expect(String(lines[1]?.survival_5y)).toBe(rows[0]?.survival_5y)
  })

  it('auto: a file over the threshold goes through a job and matches the batch path byte for byte', async () => {
    const input = join(dir, 'grid.csv')
    writeFileSync(input, gridCsv(1200))
    const viaJob = join(dir, 'grid-job.csv')
    const viaBatch = join(dir, 'grid-batch.csv')
    const job = await runScorer([input, '--out', viaJob, '--batch-threshold', '1000', '--poll', '0.1'], env)
    expect(job.stderr).toMatch(/Job job_\w+: 1,200 rows queued/)
    expect(job.stderr).toMatch(/^scoring: .*rows/m)
    const batch = await runScorer([input, '--out', viaBatch], env)
    expect(batch.stderr).not.toContain('Job ')
    expect(job.code).toBe(batch.code)
    expect(readFileSync(viaJob, 'utf8')).toBe(readFileSync(viaBatch, 'utf8'))
  })

  it('a spore key (no jobs) is scored through batch calls instead', async () => {
    const input = join(dir, 'spore.csv')
    writeFileSync(input, gridCsv(30))
    const spore = (await issueKey(running.db, 'spore')).key
    const out = join(dir, 'spore.csv.out.csv')
    const result = await runScorer([input, '--out', out, '--batch-threshold', '10'], {
      ...env,
      SURVIVAL_API_KEY: spore,
    })
    expect(result.stderr).toContain('has no jobs; scoring through batch calls')
    expect(result.code).toBeLessThanOrEqual(1)
    expect(readFileSync(out, 'utf8').trimEnd().split('\r\n')).toHaveLength(31)
  })

  it('Ctrl-C while the job runs, then again mid-download: each rerun re-attaches and the file matches', async () => {
    const input = join(dir, 'resume.csv')
    writeFileSync(input, gridCsv(3000))
    const whole = join(dir, 'resume-whole.csv')
    const reference = await endsWithin(
      'the reference run',
      startScorer([input, '--out', whole, '--via', 'job', '--poll', '0.1'], env),
    )

    const proxy = await startProxy(running.server.url, {
      // The first run's status poll is held (Ctrl-C comes while waiting); the second run's download
      // stops after 100,000 bytes (Ctrl-C comes mid-download).
      hold: (req, seen) => req.method === 'GET' && /^\/v1\/jobs\/[^/]+$/.test(req.url ?? '') && seen === 1,
      stallAfterBytes: (req, seen) => (req.url?.endsWith('/results') && seen === 1 ? 100_000 : null),
    })
    try {
      const out = join(dir, 'resumed.csv')
      const state = `${out}.score-state.json`
      const args = [input, '--out', out, '--via', 'job', '--poll', '0.1']
      const slow = { ...env, SURVIVAL_API_URL: proxy.url }

      // 1. Interrupted while waiting for the job: the job id is saved.
      const waiting = startScorer(args, slow)
      await until('"rows queued" on stderr', () => /rows queued/.test(waiting.stderr()))
      waiting.child.kill('SIGINT')
      expect((await endsWithin('the first run, Ctrl-C while waiting for the job', waiting)).code).toBe(130)
      const saved = JSON.parse(readFileSync(state, 'utf8'))
      expect(saved).toMatchObject({ via: 'job', base_url: proxy.url, bytes_written: 0 })
      expect(saved.job_id).toMatch(/^job_/)

      // 2. Rerun: re-attached (no new upload); interrupted again once part of the results is on disk.
      const uploads = () => proxy.requests.filter((line) => line === 'POST /v1/jobs').length
      expect(uploads()).toBe(1)
      const downloading = startScorer(args, slow)
      await until(
        'the first 100,000 bytes of the results on disk',
        () => existsSync(out) && readFileSync(out).length === 100_000,
      ).catch((error: Error) => {
        const size = existsSync(out) ? readFileSync(out).length : 'no file'
        throw new Error(
          `${error.message} (on disk: ${size}); the proxy saw ${proxy.requests.join(', ')}; the scorer said:\n${downloading.stderr()}`,
        )
      })
      downloading.child.kill('SIGINT')
      const second = await endsWithin('the second run, Ctrl-C mid-download', downloading)
      expect(second.code).toBe(130)
      expect(second.stderr).toContain(`Re-attaching to job ${saved.job_id}`)
      expect(JSON.parse(readFileSync(state, 'utf8')).etag).toMatch(/^"/)

      // 3. Rerun: the download continues from the bytes on disk.
      proxy.release()
      const third = await endsWithin('the third run, resuming the download', startScorer(args, slow))
      expect(third.stderr).toContain(`Re-attaching to job ${saved.job_id}`)
      expect(third.stderr).toContain('Resuming the download at byte 100,000')
      expect(third.code).toBe(reference.code)
      expect(uploads()).toBe(1)
      expect(proxy.requests.filter((line) => line.endsWith('/results'))).toHaveLength(2)
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(whole, 'utf8'))
      expect(existsSync(state)).toBe(false)
    } finally {
      await proxy.close()
    }
  }, 180_000)
})
