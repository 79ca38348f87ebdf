import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueKey } from '../../../test/support/fixtures.ts'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS, forestGrid, NO_DATA_POINTS, OUTSIDE_POINTS } from '../../../test/support/sites.ts'
import { createSurvivalClient, SurvivalApiError, type SurvivalClient } from '../src/client.ts'
import { startProxy } from './support.ts'

const CSV = [
  'id,latitude,longitude,species_code,planting_method,horizons',
  `a,${FOREST_POINTS.coastRange.latitude},${FOREST_POINTS.coastRange.longitude},PSME,manual,1|5`,
  `b,${NO_DATA_POINTS.openPugetSound.latitude},${NO_DATA_POINTS.openPugetSound.longitude},PSME,manual,`,
  `c,${OUTSIDE_POINTS.openPacific.latitude},${OUTSIDE_POINTS.openPacific.longitude},PSME,manual,`,
  `d,${FOREST_POINTS.eastCascades.latitude},${FOREST_POINTS.eastCascades.longitude},PIPO,drone_seeded,`,
].join('\n')

async function caught(promise: Promise<unknown>): Promise<SurvivalApiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SurvivalApiError) return error
    throw error
  }
  throw new Error('expected a SurvivalApiError')
}

async function text(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = []
  for await (const chunk of stream) parts.push(Buffer.from(chunk))
  return Buffer.concat(parts).toString('utf8')
}

describe('jobs through the typed client', () => {
  let running: SeededServer
  let dir: string
  let api: SurvivalClient
  let file: string
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
    api = createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })
    dir = mkdtempSync(join(tmpdir(), 'client-jobs-'))
    file = join(dir, 'sites.csv')
    writeFileSync(file, CSV)
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await stopSeededServer(running)
  })

  it('uploadJob → waitForJob → streamResults: rows in input order, failures by code', async () => {
    const created = await api.uploadJob(file, { format: 'csv' })
    expect(created).toMatchObject({ rows: 4, links: { self: `/v1/jobs/${created.id}` } })
    // Four rows may be scored by the in-server worker before the upload's answer is written.
    expect(['queued', 'running', 'succeeded']).toContain(created.status)
    const seen: string[] = []
    const job = await api.waitForJob(created.id, {
      pollMs: 50,
      onProgress: (status) => seen.push(status.status),
    })
    expect(job).toMatchObject({
      status: 'succeeded',
      format: 'csv',
      rows_total: 4,
      rows_done: 4,
      rows_failed: 2,
      errors_by_code: { no_nearby_data: 1, outside_coverage: 1 },
    })
    expect(seen.at(-1)).toBe('succeeded')

    const csv = await text(await api.streamResults(created.id))
    const lines = csv.split('\r\n')
    expect(lines[0]).toBe(
      'id,latitude,longitude,species_code,planting_method,horizons,' +
        'survival_1y,survival_3y,survival_5y,top_factor_1y,top_factor_3y,top_factor_5y,error_code',
    )
    expect(lines.slice(1, 5).map((line) => [line.split(',')[0], line.split(',').at(-1)])).toEqual([
      ['a', ''],
      ['b', 'no_nearby_data'],
      ['c', 'outside_coverage'],
      ['d', ''],
    ])

    const ndjson = await text(await api.streamResults(created.id, { format: 'ndjson' }))
    const rows = ndjson
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rows.map((row) => [row.row, row.id, row.error_code])).toEqual([
      [1, 'a', null],
      [2, 'b', 'no_nearby_data'],
      [3, 'c', 'outside_coverage'],
      [4, 'd', null],
    ])
    expect(rows[0].survival_3y).toBeNull()
    expect(typeof rows[0].survival_5y).toBe('number')
  })

  it('streamResults from a byte offset sends Range and yields the rest; from the end, nothing', async () => {
    const { id } = await api.uploadJob(file, { format: 'csv' })
    await api.waitForJob(id, { pollMs: 50 })
    const whole = await api.streamResults(id)
    const all = await text(whole)
    expect(whole.totalBytes).toBe(Buffer.byteLength(all))
    expect(whole.etag).toMatch(/^"/)
    const rest = await api.streamResults(id, { from: 100 })
    expect(rest.totalBytes).toBe(whole.totalBytes)
    expect(await text(rest)).toBe(Buffer.from(all).subarray(100).toString('utf8'))
    expect(await text(await api.streamResults(id, { from: Buffer.byteLength(all) }))).toBe('')
  })

  it('a download cut mid-way resumes with Range from the bytes delivered', async () => {
    const big = join(dir, 'big.csv')
    const sites = forestGrid(1500).map((p, index) => `g${index},${p.latitude},${p.longitude},PSME,manual,`)
    writeFileSync(big, [CSV.split('\n')[0], ...sites].join('\n'))
    const { id } = await api.uploadJob(big, { format: 'csv' })
    await api.waitForJob(id, { pollMs: 50 })
    const expected = await text(await api.streamResults(id))

    const ranges: (string | undefined)[] = []
    const proxy = await startProxy(running.server.url, {
      answer: (req) => {
        if (req.url?.endsWith('/results')) ranges.push(req.headers.range)
        return false
      },
      cutAfterBytes: (req, seen) => (req.url?.endsWith('/results') && seen === 1 ? 50_000 : null),
    })
    try {
      const viaProxy = createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
      const results = await viaProxy.streamResults(id)
      expect(await text(results)).toBe(expected)
      expect(ranges).toHaveLength(2)
      expect(ranges[0]).toBeUndefined()
      expect(ranges[1]).toBe('bytes=50000-')
    } finally {
      await proxy.close()
    }
  })

  it('uploads NDJSON from a Node stream', async () => {
    const lines = [
      {
        id: 'x',
        ...FOREST_POINTS.westCascades,
        species_code: 'TSHE',
        planting_method: 'manual',
        horizons: [3],
      },
      { ...FOREST_POINTS.coastRange, species_code: 'NOPE', planting_method: 'manual' },
    ].map((line) => `${JSON.stringify(line)}\n`)
    const { id } = await api.uploadJob(Readable.from(lines), { format: 'ndjson' })
    const job = await api.waitForJob(id, { pollMs: 50 })
    expect(job).toMatchObject({ format: 'ndjson', rows_total: 2, errors_by_code: { invalid_species: 1 } })
    const rows = (await text(await api.streamResults(id)))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rows[0]).toMatchObject({ row: 1, id: 'x', horizons: [3], survival_1y: null, error_code: null })
    expect(typeof rows[0].survival_3y).toBe('number')
  })

  it('cancelJob on a finished job deletes it: then 404 not_found', async () => {
    const { id } = await api.uploadJob(file, { format: 'csv' })
    await api.waitForJob(id, { pollMs: 50 })
    expect(await api.cancelJob(id)).toBeNull()
    expect(await caught(api.getJob(id))).toMatchObject({ status: 404, code: 'not_found' })
  })

  it('a job of another account is not_found; a malformed header is 400 invalid_request', async () => {
    const { id } = await api.uploadJob(file, { format: 'csv' })
    const other = createSurvivalClient({
      baseUrl: running.server.url,
      apiKey: (await issueKey(running.db, 'hypha')).key,
    })
    const error = await caught(other.getJob(id))
    expect(error).toMatchObject({ status: 404, code: 'not_found' })
    expect(error.requestId).toBeTruthy()
    const bad = join(dir, 'bad.csv')
    writeFileSync(bad, 'lat,lon\n1,2\n')
    expect(await caught(api.uploadJob(bad, { format: 'csv' }))).toMatchObject({
      status: 400,
      code: 'invalid_request',
    })
  })

  it('spore keys have no jobs: 403 jobs_not_in_tier', async () => {
    const spore = createSurvivalClient({
      baseUrl: running.server.url,
      apiKey: (await issueKey(running.db, 'spore')).key,
    })
    expect(await caught(spore.uploadJob(file, { format: 'csv' }))).toMatchObject({
      status: 403,
      code: 'jobs_not_in_tier',
    })
  })
})
