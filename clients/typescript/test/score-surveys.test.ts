import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueKey } from '../../../test/support/fixtures.ts'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS } from '../../../test/support/sites.ts'
import { createSurvivalClient } from '../src/client.ts'
import { runScorer, startProxy, startScorer, until } from './support.ts'
import { surveyCsv, surveyPlot } from './survey-files.ts'

/** `npm run score -- surveys upload FILE` as a child process against a live server. */

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`)

describe('npm run score -- surveys upload', () => {
  let running: SeededServer
  let dir: string
  let env: Record<string, string>
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
    dir = mkdtempSync(join(tmpdir(), 'score-surveys-'))
    env = { SURVIVAL_API_KEY: running.key, SURVIVAL_API_URL: running.server.url }
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await stopSeededServer(running)
  })
  const storedIds = async (prefix: string, key = running.key) => {
    const api = createSurvivalClient({ baseUrl: running.server.url, apiKey: key })
    const kept: string[] = []
    for await (const plot of api.allSurveys({ limit: 1000 })) kept.push(plot.plot_id)
    return kept.filter((id) => id.startsWith(prefix))
  }

  it('streams a CSV up with progress on stderr, prints the summary on stdout, exits 0; the plots are stored', async () => {
    const file = join(dir, 'plots.csv')
    writeFileSync(file, surveyCsv(ids('ok-', 300)))
    const { code, stdout, stderr } = await runScorer(
      ['surveys', 'upload', file, '--progress-every', '0.1'],
      env,
    )
    expect(code, stderr).toBe(0)
    expect(stderr).toMatch(/^Uploading plots\.csv \([\d.]+ KiB, CSV, ~30\d rows\)$/m)
    // The plain progress line (stderr is a pipe): bytes of the file size, percent, rate, rows/s estimate.
    expect(stderr).toMatch(
      /^uploading: [\d.]+ KiB\/[\d.]+ KiB \(100%\), [\d.,]+ [KM]iB\/s, ETA 0 s, ~[\d,]+ rows\/s$/m,
    )
    expect(stderr).toContain('Sent; the server is checking and storing the rows…')
    expect(stdout).toMatch(
      /^Committed upload upl_[0-9a-f]{24}: stored 300 of 300 rows, refused 0 \([\d.]+ s, [\d,]+ rows\/s\)\n$/,
    )
    expect(await storedIds('ok-')).toHaveLength(300)
  })

  it('rows refused: exit 1, nothing stored, the first 100 listed; --refused-out writes all of them, paged', async () => {
    const file = join(dir, 'refused.csv')
    const refusedOut = join(dir, 'refused-rows.csv')
    writeFileSync(file, surveyCsv(['bad-ok'], ids('bad-', 1201)))
    const { code, stdout, stderr } = await runScorer(
      ['surveys', 'upload', file, '--refused-out', refusedOut],
      env,
    )
    expect(code, stderr).toBe(1)
    const lines = stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^Refused upload upl_[0-9a-f]{24}: 1,201 of 1,202 rows refused, nothing stored$/)
    expect(lines[1]).toBe('Refused rows (the first 100 of 1,201):')
    expect(lines[2]).toMatch(/^ {2}row +plot_id +field +code +reason$/)
    expect(lines[3]).toMatch(/^ {2}2 +bad-0 +alive +invalid_request +must be at most planted \(40\)$/)
    expect(lines).toHaveLength(3 + 100)
    expect(stderr).toContain(
      'Fix the refused rows, or rerun with --skip-invalid to store the 1 row that passed.',
    )
    expect(stderr).toContain(`Wrote 1,201 refused rows → ${refusedOut}`)
    const written = parse(readFileSync(refusedOut, 'utf8'), { columns: true }) as Record<string, string>[]
    expect(written).toHaveLength(1201)
    expect(written.map((row) => Number(row.row))).toEqual(
      Array.from({ length: 1201 }, (_, index) => index + 2),
    )
    expect(written[0]).toEqual({
      row: '2',
      plot_id: 'bad-0',
      field: 'alive',
      code: 'invalid_request',
      reason: 'must be at most planted (40)',
    })
    expect(await storedIds('bad-')).toEqual([])
  })

  it('--skip-invalid stores the valid rows of a gzipped NDJSON file and of a GeoJSON .json, and lists the rest', async () => {
    const ndjson = join(dir, 'plots.ndjson.gz')
    const lines = [JSON.stringify(surveyPlot('skip-1')), '{"plot_id": ', JSON.stringify(surveyPlot('skip-2'))]
    writeFileSync(ndjson, gzipSync(`${lines.join('\n')}\n`))
    const zipped = await runScorer(['surveys', 'upload', ndjson, '--skip-invalid'], env)
    expect(zipped.code, zipped.stderr).toBe(0)
    expect(zipped.stderr).toMatch(
      /^Uploading plots\.ndjson\.gz \([\d,]+ B, NDJSON, gzipped\), skipping invalid rows$/m,
    )
    expect(zipped.stdout).toMatch(/^Committed upload upl_\w+: stored 2 of 3 rows, refused 1 /)
    expect(zipped.stdout).toContain('Refused rows (1):')
    expect(zipped.stdout).toMatch(/^ {2}2 +- +\(row\) +invalid_json +is not valid JSON$/m)
    expect(await storedIds('skip-')).toEqual(['skip-1', 'skip-2'])

    const geojson = join(dir, 'plots.json')
    const { latitude: _, longitude: __, ...properties } = surveyPlot('geo-1')
    const point = [FOREST_POINTS.coastRange.longitude, FOREST_POINTS.coastRange.latitude]
    writeFileSync(
      geojson,
      JSON.stringify({
        type: 'FeatureCollection',
        features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: point }, properties }],
      }),
    )
    const features = await runScorer(['surveys', 'upload', geojson], env)
    expect(features.code, features.stderr).toBe(0)
    expect(features.stdout).toMatch(/^Committed upload upl_\w+: stored 1 of 1 row, refused 0 /)
    expect(await storedIds('geo-')).toEqual(['geo-1'])
  })

  it('an account past its limit: exit 3 with the API message, nothing stored', async () => {
    const spore = await issueKey(running.db, 'spore')
    const file = join(dir, 'too-many.csv')
    writeFileSync(file, surveyCsv(ids('limit-', 1001)))
    const { code, stdout, stderr } = await runScorer(['surveys', 'upload', file], {
      ...env,
      SURVIVAL_API_KEY: spore.key,
    })
    expect(code, stderr).toBe(3)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/\(survey_limit_reached, HTTP 409, request [\w-]+\)/)
    expect(stderr).toMatch(/^Upload upl_\w+: nothing was stored\.$/m)
    expect(await storedIds('limit-', spore.key)).toEqual([])
  })

  it('Ctrl-C mid-upload: exit 130, nothing stored', async () => {
    const proxy = await startProxy(running.server.url, { hold: (req) => req.method === 'POST' })
    try {
      const file = join(dir, 'interrupted.csv')
      writeFileSync(file, surveyCsv(ids('cut-', 20_000)))
      const run = startScorer(['surveys', 'upload', file], { ...env, SURVIVAL_API_URL: proxy.url })
      await until('a request at the proxy', () => proxy.requests.length > 0)
      run.child.kill('SIGINT')
      const { code, stderr } = await run.done
      expect(code, stderr).toBe(130)
      expect(stderr).toContain('Interrupted: the upload was cut short, so nothing was stored.')
    } finally {
      await proxy.close()
    }
    expect(await storedIds('cut-')).toEqual([])
  })

  it('--help documents the mode; usage errors exit 2', async () => {
    const help = await runScorer(['--help'], {})
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('score surveys upload <file> [--skip-invalid] [--refused-out <csv>]')
    const own = await runScorer(['surveys', 'upload', '--help'], {})
    expect(own.code).toBe(0)
    for (const text of [
      'Usage: score surveys upload [options] <file>',
      '--skip-invalid',
      '--refused-out <file>',
    ])
      expect(own.stdout).toContain(text)

    const file = join(dir, 'usage.csv')
    writeFileSync(file, surveyCsv(['usage-1']))
    const noKey = await runScorer(['surveys', 'upload', file], { SURVIVAL_API_URL: running.server.url })
    expect([noKey.code, noKey.stderr]).toEqual([2, 'score: set SURVIVAL_API_KEY to your API key\n'])
    const txt = join(dir, 'plots.txt')
    writeFileSync(txt, 'x')
    const wrongKind = await runScorer(['surveys', 'upload', txt], env)
    expect([wrongKind.code, wrongKind.stderr]).toEqual([
      2,
      `score: ${txt}: a survey file is .csv, .ndjson, .jsonl, .geojson or .json, optionally .gz\n`,
    ])
    const missing = await runScorer(['surveys', 'upload', join(dir, 'missing.csv')], env)
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('does not exist')])
    const noMode = await runScorer(['surveys', 'delete'], env)
    expect([noMode.code, noMode.stderr]).toEqual([2, expect.stringContaining('no mode "delete"')])
    const noFolder = await runScorer(
      ['surveys', 'upload', file, '--refused-out', join(dir, 'no-such-folder', 'x.csv')],
      env,
    )
    expect(noFolder.code).toBe(2)
    expect(await storedIds('usage-')).toEqual([])
  })
})
