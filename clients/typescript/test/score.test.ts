import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS, forestGrid, NO_DATA_POINTS, OUTSIDE_POINTS } from '../../../test/support/sites.ts'
import { createSurvivalClient } from '../src/client.ts'
import { runScorer, startProxy, startScorer, until } from './support.ts'

const HEADER = 'id,latitude,longitude,species_code,planting_method,horizons,note'

/** Five scorable rows and four that fail: no data, outside, a bad latitude, an unknown species. */
const MIXED = [
  HEADER,
  `a1,${FOREST_POINTS.coastRange.latitude},${FOREST_POINTS.coastRange.longitude},PSME,manual,1|3|5,"coast, wet"`,
  `a2,${FOREST_POINTS.westCascades.latitude},${FOREST_POINTS.westCascades.longitude},TSHE,drone_seeded,5,`,
  `a3,${FOREST_POINTS.eastCascades.latitude},${FOREST_POINTS.eastCascades.longitude},PIPO,manual,,"says ""dry"""`,
  `b1,${NO_DATA_POINTS.downtownPortland.latitude},${NO_DATA_POINTS.downtownPortland.longitude},PSME,manual,,city`,
  `b2,${OUTSIDE_POINTS.boise.latitude},${OUTSIDE_POINTS.boise.longitude},PIPO,manual,,idaho`,
  `b3,north,${FOREST_POINTS.coastRange.longitude},PSME,manual,,typo`,
  `b4,${FOREST_POINTS.coastRange.latitude},${FOREST_POINTS.coastRange.longitude},PSMA,manual,,`,
  `a4,${FOREST_POINTS.coastRange.latitude},${FOREST_POINTS.coastRange.longitude},PSME,drone_seeded,3,`,
  `a5,${FOREST_POINTS.westCascades.latitude},${FOREST_POINTS.westCascades.longitude},ABAM,manual,1|5,`,
].join('\n')

function gridCsv(count: number): string {
  const lines = forestGrid(count).map(
    (point, index) =>
      `g${index},${point.latitude},${point.longitude},${index % 2 ? 'TSHE' : 'PSME'},manual,,`,
  )
  return `${[HEADER, ...lines].join('\n')}\n`
}

describe('npm run score (batch path) against a live server', () => {
  let running: SeededServer
  let dir: string
  let env: Record<string, string>
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
    dir = mkdtempSync(join(tmpdir(), 'score-test-'))
    env = { SURVIVAL_API_KEY: running.key, SURVIVAL_API_URL: running.server.url }
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await stopSeededServer(running)
  })

  it('writes every row in input order with the result columns; failed rows → exit 1 and a summary by code', async () => {
    const input = join(dir, 'mixed.csv')
    const out = join(dir, 'mixed-scored.csv')
    writeFileSync(input, MIXED)
    const { code, stderr } = await runScorer([input, '--out', out], env)
    expect(stderr).toContain(
      '4 rows failed: invalid_request 1, invalid_species 1, no_nearby_data 1, outside_coverage 1',
    )
    expect(code).toBe(1)
    expect(existsSync(`${out}.score-state.json`)).toBe(false)

    const text = readFileSync(out, 'utf8')
    expect(text.split('\r\n')[0]).toBe(
      `${HEADER},survival_1y,survival_3y,survival_5y,top_factor_1y,top_factor_3y,top_factor_5y,error_code`,
    )
    const rows = parse(text, { columns: true }) as Record<string, string>[]
    expect(rows.map((row) => [row.id, row.error_code])).toEqual([
      ['a1', ''],
      ['a2', ''],
      ['a3', ''],
      ['b1', 'no_nearby_data'],
      ['b2', 'outside_coverage'],
      ['b3', 'invalid_request'],
      ['b4', 'invalid_species'],
      ['a4', ''],
      ['a5', ''],
    ])
    // Other columns echoed as they were; horizons not asked for stay empty; probabilities are full doubles.
    expect(rows.map((row) => row.note)).toEqual([
      'coast, wet',
      '',
      'says "dry"',
      'city',
      'idaho',
      'typo',
      '',
      '',
      '',
    ])
    const [a1, a2] = rows as [Record<string, string>, Record<string, string>]
    const direct = await createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key }).predict({
      ...FOREST_POINTS.coastRange,
      species_code: 'PSME',
      planting_method: 'manual',
    })
    expect(Number(a1.survival_5y)).toBe(direct.predictions[2]?.survival_probability)
    expect(a1.survival_5y).toBe(String(direct.predictions[2]?.survival_probability))
    expect(a1.top_factor_1y).toBe(direct.predictions[0]?.risk_factors[0]?.factor)
    expect([a2.survival_1y, a2.survival_3y, a2.top_factor_3y]).toEqual(['', '', ''])
    expect(Number(a2.survival_5y)).toBeGreaterThan(0)
    expect(rows[3]?.survival_1y).toBe('')
  })

  it('treatments: batch calls score the rows as a job does (CSV columns, NDJSON fields); treated differs; drone seeding with tubes is invalid_treatment', async () => {
    const { coastRange } = FOREST_POINTS
    const site = { ...coastRange, species_code: 'PSME' }
    const csv = [
      'id,latitude,longitude,species_code,planting_method,vegetation_control,animal_protection,stock_type,shade',
      `plain,${coastRange.latitude},${coastRange.longitude},PSME,manual,,,,`,
      `treated,${coastRange.latitude},${coastRange.longitude},PSME,manual,site_prep_release_2yr,mesh_tubes,container,shade_cards`,
      `none,${coastRange.latitude},${coastRange.longitude},PSME,manual,none,none,,none`,
      `drone,${coastRange.latitude},${coastRange.longitude},PSME,drone_seeded,site_prep,,,`,
      `drone-tubes,${coastRange.latitude},${coastRange.longitude},PSME,drone_seeded,,mesh_tubes,,`,
      `bad,${coastRange.latitude},${coastRange.longitude},PSME,manual,herbicide,,,`,
    ].join('\n')
    const ndjson = [
      { id: 'plain', ...site, planting_method: 'manual' },
      {
        id: 'treated',
        ...site,
        planting_method: 'manual',
        treatments: {
          vegetation_control: 'site_prep_release_2yr',
          animal_protection: 'mesh_tubes',
          stock_type: 'container',
          shade: 'shade_cards',
        },
      },
      {
        id: 'none',
        ...site,
        planting_method: 'manual',
        vegetation_control: 'none',
        animal_protection: 'none',
      },
      { id: 'drone', ...site, planting_method: 'drone_seeded', vegetation_control: 'site_prep' },
      {
        id: 'drone-tubes',
        ...site,
        planting_method: 'drone_seeded',
        treatments: { animal_protection: 'mesh_tubes' },
      },
      { id: 'bad', ...site, planting_method: 'manual', vegetation_control: 'site_prep', treatments: {} },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join('')
    const results = (row: Record<string, string> | undefined) =>
      ['survival_1y', 'survival_3y', 'survival_5y', 'top_factor_1y', 'top_factor_5y', 'error_code'].map(
        (name) => row?.[name],
      )
    const api = createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })
    const treatedDirect = await api.predict({
      ...site,
      planting_method: 'manual',
      treatments: {
        vegetation_control: 'site_prep_release_2yr',
        animal_protection: 'mesh_tubes',
        stock_type: 'container',
        shade: 'shade_cards',
      },
    })
    for (const [name, text] of [
      ['treatments.csv', csv],
      ['treatments.ndjson', ndjson],
    ] as const) {
      const input = join(dir, name)
      writeFileSync(input, text)
      const viaBatch = join(dir, `${name}.batch.csv`)
      const viaJob = join(dir, `${name}.job.csv`)
      const batch = await runScorer([input, '--out', viaBatch, '--via', 'batch'], env)
      const job = await runScorer([input, '--out', viaJob, '--via', 'job', '--poll', '0.1'], env)
      expect(job.stderr).toMatch(/Job job_\w+: 6 rows queued/)
      const summary = '2 rows failed: invalid_request 1, invalid_treatment 1'
      expect(batch.stderr).toContain(summary)
      expect(job.stderr).toContain(summary)
      expect([batch.code, job.code]).toEqual([1, 1])
      const written = readFileSync(viaBatch, 'utf8')
      expect(readFileSync(viaJob, 'utf8')).toBe(written)

      const rows = parse(written, { columns: true }) as Record<string, string>[]
      const [plain, treated, none, drone, droneTubes, bad] = rows
      expect(rows.map((row) => [row.id, row.error_code])).toEqual([
        ['plain', ''],
        ['treated', ''],
        ['none', ''],
        ['drone', ''],
        ['drone-tubes', 'invalid_treatment'],
        ['bad', 'invalid_request'],
      ])
      // Treated is not untreated; `none` everywhere is untreated, to the digit.
      expect(treated?.survival_5y).not.toBe(plain?.survival_5y)
      expect(treated?.survival_5y).toBe(String(treatedDirect.predictions[2]?.survival_probability))
      expect(results(none)).toEqual(results(plain))
      expect(Number(drone?.survival_5y)).toBeGreaterThan(0)
      // A failed row's result cells are empty but for its code, as for any failed item.
      expect(results(droneTubes)).toEqual(['', '', '', '', '', 'invalid_treatment'])
      expect(results(bad)).toEqual(['', '', '', '', '', 'invalid_request'])
    }
  })

  it('--default treatments: rows naming none take them, a row keeps its own value (none included); batch and job alike', async () => {
    const { coastRange } = FOREST_POINTS
    const site = { ...coastRange, species_code: 'PSME' }
    const defaults = [
      '--default',
      'vegetation_control=release_2yr',
      '--default',
      'animal_protection=mesh_tubes',
    ]
    const csv = [
      'id,latitude,longitude,species_code,planting_method,vegetation_control,animal_protection',
      `defaulted,${coastRange.latitude},${coastRange.longitude},PSME,manual,,`,
      `own,${coastRange.latitude},${coastRange.longitude},PSME,manual,none,`,
      `drone,${coastRange.latitude},${coastRange.longitude},PSME,drone_seeded,,none`,
      `drone-tubes,${coastRange.latitude},${coastRange.longitude},PSME,drone_seeded,,`,
    ].join('\n')
    const ndjson = [
      { id: 'defaulted', ...site, planting_method: 'manual', vegetation_control: null },
      { id: 'own', ...site, planting_method: 'manual', treatments: { vegetation_control: 'none' } },
      { id: 'drone', ...site, planting_method: 'drone_seeded', animal_protection: 'none' },
      { id: 'drone-tubes', ...site, planting_method: 'drone_seeded' },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join('')
    const api = createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })
    const direct = async (
      planting_method: string,
      treatments: { vegetation_control?: 'none' | 'release_2yr'; animal_protection?: 'none' | 'mesh_tubes' },
    ) =>
      String(
        (await api.predict({ ...site, planting_method, treatments })).predictions[2]?.survival_probability,
      )
    const expected = [
      await direct('manual', { vegetation_control: 'release_2yr', animal_protection: 'mesh_tubes' }),
      await direct('manual', { vegetation_control: 'none', animal_protection: 'mesh_tubes' }),
      await direct('drone_seeded', { vegetation_control: 'release_2yr', animal_protection: 'none' }),
      '',
    ]
    const untreated = String(
      (await api.predict({ ...site, planting_method: 'manual' })).predictions[2]?.survival_probability,
    )
    expect(expected[0]).not.toBe(untreated)
    for (const [name, text] of [
      ['defaults.csv', csv],
      ['defaults.ndjson', ndjson],
    ] as const) {
      const input = join(dir, name)
      writeFileSync(input, text)
      const viaBatch = join(dir, `${name}.batch.csv`)
      const viaJob = join(dir, `${name}.job.csv`)
      const batch = await runScorer([input, '--out', viaBatch, '--via', 'batch', ...defaults], env)
      const job = await runScorer([input, '--out', viaJob, '--via', 'job', '--poll', '0.1', ...defaults], env)
      for (const run of [batch, job]) {
        expect(run.code, run.stderr).toBe(1)
        expect(run.stderr).toContain(
          'Rows that name none: vegetation_control=release_2yr, animal_protection=mesh_tubes',
        )
        expect(run.stderr).toContain('1 row failed: invalid_treatment 1')
      }
      // The output echoes the rows as they are, never the defaults: both paths write the same file.
      const written = readFileSync(viaBatch, 'utf8')
      expect(readFileSync(viaJob, 'utf8')).toBe(written)
      const rows = parse(written, { columns: true }) as Record<string, string>[]
      expect(rows.map((row) => row.id)).toEqual(['defaulted', 'own', 'drone', 'drone-tubes'])
      expect(rows.map((row) => row.survival_5y)).toEqual(expected)
      expect(rows[3]?.error_code).toBe('invalid_treatment')
      if (name.endsWith('.csv')) expect(rows[0]?.vegetation_control).toBe('')
    }
  })

  it('--default with CSV or NDJSON input names treatments only, each with a value the API takes', async () => {
    const input = join(dir, 'default-usage.csv')
    writeFileSync(input, MIXED)
    for (const [flag, message] of [
      ['shade=umbrella', '--default: shade must be one of none, shade_cards'],
      [
        'species_code=PSME',
        '--default species_code=PSME: not a default CSV and NDJSON rows take (vegetation_control, animal_protection, stock_type, shade)',
      ],
      ['stock_type=', '--default stock_type=: give it as name=value, e.g. vegetation_control=release_2yr'],
    ] as const) {
      const run = await runScorer([input, '--out', join(dir, 'never.csv'), '--default', flag as string], env)
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toContain(`score: ${message}`)
      expect(existsSync(join(dir, 'never.csv'))).toBe(false)
    }
  })

  it('exits 0 with a one-line summary when every row scored; NDJSON in and out', async () => {
    const input = join(dir, 'good.ndjson')
    const out = join(dir, 'good-scored.ndjson')
    writeFileSync(
      input,
      `${JSON.stringify({ id: 7, ...FOREST_POINTS.coastRange, species_code: 'PSME', planting_method: 'manual', horizons: [1, 5] })}\n\n` +
        `${JSON.stringify({ ...FOREST_POINTS.westCascades, species_code: 'TSHE', planting_method: 'drone_seeded' })}\n`,
    )
    const { code, stderr } = await runScorer([input, '-o', out], env)
    expect(stderr).toContain(`Scored 2 rows → ${out}`)
    expect(code).toBe(0)
    const lines = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines[0]).toMatchObject({ row: 1, id: 7, horizons: [1, 5], survival_3y: null, error_code: null })
    expect(lines[1]).toMatchObject({
      row: 2,
      id: null,
      species_code: 'TSHE',
      horizons: null,
      error_code: null,
    })
    expect(typeof lines[1].survival_3y).toBe('number')
  })

  it('usage errors exit 2: no key, no such file, a header without the required columns, a bad option', async () => {
    const input = join(dir, 'usage.csv')
    writeFileSync(input, MIXED)
    const noKey = await runScorer([input, '--out', join(dir, 'x.csv')], {
      SURVIVAL_API_URL: running.server.url,
    })
    expect([noKey.code, noKey.stderr]).toEqual([2, 'score: set SURVIVAL_API_KEY to your API key\n'])
    const missing = await runScorer([join(dir, 'nope.csv'), '--out', join(dir, 'x.csv')], env)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('does not exist')
    const badHeader = join(dir, 'bad-header.csv')
    writeFileSync(badHeader, 'lat,lon,species_code,planting_method\n44.6,-123.6,PSME,manual\n')
    const header = await runScorer([badHeader, '--out', join(dir, 'x.csv')], env)
    expect(header.code).toBe(2)
    expect(header.stderr).toContain('the header lacks latitude, longitude')
    const option = await runScorer([input, '--out', join(dir, 'x.csv'), '--via', 'fax'], env)
    expect(option.code).toBe(2)
    const noOut = await runScorer([input], env)
    expect(noOut.code).toBe(2)
    const noFolder = await runScorer([input, '--out', join(dir, 'no-such-folder', 'x.csv')], env)
    expect([noFolder.code, noFolder.stderr]).toEqual([2, expect.stringContaining('does not exist')])
  })

  it('prints plain progress lines when stderr is not a terminal', async () => {
    const proxy = await startProxy(running.server.url, {
      delayMs: (req) => (req.url === '/v1/predict/batch' ? 250 : 0),
    })
    try {
      const input = join(dir, 'progress.csv')
      writeFileSync(input, gridCsv(500))
      const { code, stderr } = await runScorer(
        [input, '--out', join(dir, 'progress-scored.csv'), '--concurrency', '1', '--progress-every', '0.3'],
        { ...env, SURVIVAL_API_URL: proxy.url },
      )
      expect(code).toBeLessThanOrEqual(1)
      const lines = stderr.split('\n').filter((line) => / rows \(\d+%\)/.test(line))
      expect(lines.length).toBeGreaterThanOrEqual(3)
      for (const line of lines)
        expect(line).toMatch(/^\d{1,3}(,\d{3})*\/500 rows \(\d+%\)(, [\d,]+ rows\/s, ETA \d+ s)?$/)
      expect(lines.at(-1)).toMatch(/^500\/500 rows \(100%\), [\d,]+ rows\/s, ETA 0 s$/)
      expect(lines.some((line) => /rows\/s, ETA [1-9]/.test(line))).toBe(true)
    } finally {
      await proxy.close()
    }
  })

  it('Ctrl-C leaves a resumable state; the rerun carries on after the last complete row and matches an uninterrupted run', async () => {
    const input = join(dir, 'resume.csv')
    writeFileSync(input, gridCsv(1000))
    const whole = join(dir, 'whole.csv')
    const first = await runScorer([input, '--out', whole], env)
    expect(first.code).toBeLessThanOrEqual(1)

    // Three batch calls go through; the fourth is held until Ctrl-C.
    const proxy = await startProxy(running.server.url, {
      hold: (req, seen) => req.url === '/v1/predict/batch' && seen === 4,
    })
    try {
      const out = join(dir, 'resumed.csv')
      const state = `${out}.score-state.json`
      const slow = { ...env, SURVIVAL_API_URL: proxy.url }
      const interrupted = startScorer([input, '--out', out, '--concurrency', '1'], slow)
      await until(
        '300 rows recorded in the state file',
        () => existsSync(state) && JSON.parse(readFileSync(state, 'utf8')).rows_written === 300,
      )
      interrupted.child.kill('SIGINT')
      const stopped = await interrupted.done
      expect(stopped.code).toBe(130)
      expect(stopped.stderr).toContain('Rerun the same command to resume')
      const saved = JSON.parse(readFileSync(state, 'utf8'))
      expect(saved).toMatchObject({ via: 'batch', out_format: 'csv' })
      expect(saved.rows_written).toBe(300)
      // A write cut short after the last complete row is dropped on resume.
      writeFileSync(out, `${readFileSync(out, 'utf8')}g999,44.`)
      const batchesBefore = proxy.requests.filter((line) => line === 'POST /v1/predict/batch').length

      const rerun = await runScorer([input, '--out', out, '--concurrency', '1'], slow)
      expect(rerun.stderr).toContain(`Resuming after row ${saved.rows_written.toLocaleString('en-US')}`)
      expect(rerun.code).toBe(first.code)
      const batchesAfter = proxy.requests.filter((line) => line === 'POST /v1/predict/batch').length
      expect(batchesAfter - batchesBefore).toBe(Math.ceil((1000 - saved.rows_written) / 100))
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(whole, 'utf8'))
      expect(existsSync(state)).toBe(false)
    } finally {
      await proxy.close()
    }
  })
})
