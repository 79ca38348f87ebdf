import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IssuedKey } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { deleteKeysWithPrefix, withRedis } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, forestGrid, NO_DATA_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { expectError, rest } from './client.ts'

const RESULT_COLUMNS = [
  'survival_1y',
  'survival_3y',
  'survival_5y',
  'top_factor_1y',
  'top_factor_3y',
  'top_factor_5y',
  'error_code',
]

interface JobBody {
  id: string
  status: string
  model_version: string
  rows_total: number
  rows_done: number
  rows_failed: number
  errors_by_code: Record<string, number>
  eta_seconds: number | null
}

/** A CSV upload of `count` forest rows (ids f1…), with extra rows appended as given. */
function forestCsv(count: number, extra: string[] = []): string {
  const rows = forestGrid(count).map(
    (point, index) => `f${index + 1},${point.latitude},${point.longitude},PSME,manual,1|5,stand ${index % 7}`,
  )
  return ['id,latitude,longitude,species_code,planting_method,horizons,notes', ...rows, ...extra, ''].join(
    '\n',
  )
}

describe('portfolio jobs (REST, real PostgreSQL, in-process queue)', () => {
  let database: TestDatabase
  let server: TestServer
  let mycel: string
  let otherMycel: string
  let spore: string
  let hypha: string

  beforeAll(async () => {
    database = await createSeededDatabase()
    server = await startTestServer({ database, jobChunkRows: 100 })
    mycel = (await issueKey(database, 'mycel')).key
    otherMycel = (await issueKey(database, 'mycel')).key
    spore = (await issueKey(database, 'spore')).key
    hypha = (await issueKey(database, 'hypha')).key
  })

  afterAll(async () => {
    await server?.close()
    await database?.drop()
  })

  /** Every answer is checked against schema/openapi.yaml by the REST test client. */
  function upload(key: string, body: string, contentType = 'text/csv') {
    return rest(server.url, 'POST', '/v1/jobs', { key, raw: body, contentType })
  }

  async function job(key: string, id: string): Promise<{ status: number; body: JobBody }> {
    const { status, body } = await rest(server.url, 'GET', `/v1/jobs/${id}`, { key })
    return { status, body: body as JobBody }
  }

  function results(key: string, id: string, headers: Record<string, string> = {}) {
    return rest(server.url, 'GET', `/v1/jobs/${id}/results`, { key, headers })
  }

  async function finished(key: string, id: string): Promise<JobBody> {
    let last: JobBody | undefined
    await eventually(async () => {
      last = (await job(key, id)).body
      return ['succeeded', 'failed', 'cancelled'].includes(last.status)
    }, 30_000)
    return last as JobBody
  }

  it('scores a CSV upload in chunks and answers every row in input order, failures with their code', async () => {
    const extra = [
      `bad1,${NO_DATA_POINTS.downtownPortland.latitude},${NO_DATA_POINTS.downtownPortland.longitude},PSME,manual,,city`,
      `bad2,${OUTSIDE_POINTS.boise.latitude},${OUTSIDE_POINTS.boise.longitude},PSME,manual,,idaho`,
      `bad3,91,-123,PSME,manual,,too far north`,
      `bad4,${FOREST_POINTS.coastRange.latitude},${FOREST_POINTS.coastRange.longitude},XXXX,manual,,unknown species`,
      'bad5,44.6,-123.6,PSME',
    ]
    const response = await upload(mycel, forestCsv(250, extra))
    expect(response.status).toBe(202)
    const accepted = response.body as {
      id: string
      status: string
      rows: number
      links: { self: string }
    }
    expect(accepted.rows).toBe(255)
    expect(response.headers.get('location')).toBe(`/v1/jobs/${accepted.id}`)
    expect(accepted.links.self).toBe(response.headers.get('location'))

    const done = await finished(mycel, accepted.id)
    expect(done).toMatchObject({ status: 'succeeded', rows_total: 255, rows_done: 255, rows_failed: 5 })
    expect(done.errors_by_code).toEqual({
      no_nearby_data: 1,
      outside_coverage: 1,
      invalid_request: 2,
      invalid_species: 1,
    })

    const results = await fetch(`${server.url}/v1/jobs/${accepted.id}/results`, {
      headers: { 'x-api-key': mycel },
    })
    expect(results.status).toBe(200)
    expect(results.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const text = await results.text()
    expect(Number(results.headers.get('content-length'))).toBe(Buffer.byteLength(text))
    const rows = parse(text, { columns: true }) as Record<string, string>[]
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'id',
      'latitude',
      'longitude',
      'species_code',
      'planting_method',
      'horizons',
      'notes',
      ...RESULT_COLUMNS,
    ])
    expect(rows.map((row) => row.id)).toEqual([
      ...Array.from({ length: 250 }, (_, i) => `f${i + 1}`),
      'bad1',
      'bad2',
      'bad3',
      'bad4',
      'bad5',
    ])
    const first = rows[0] as Record<string, string>
    expect(Number(first.survival_1y)).toBeGreaterThan(0)
    expect(first.survival_3y).toBe('')
    expect(Number(first.survival_5y)).toBeGreaterThan(0)
    expect(first.top_factor_1y).not.toBe('')
    expect(rows.slice(250).map((row) => row.error_code)).toEqual([
      'no_nearby_data',
      'outside_coverage',
      'invalid_request',
      'invalid_species',
      'invalid_request',
    ])
  })

  it('takes NDJSON too, and serves either format by Accept, with byte ranges', async () => {
    const lines = forestGrid(120).map((point, index) =>
      JSON.stringify({ id: index, ...point, species_code: 'TSHE', planting_method: 'drone_seeded' }),
    )
    lines.splice(10, 0, '{not json', '{"latitude": 44.6}')
    const response = await upload(hypha, `${lines.join('\n')}\n`, 'application/x-ndjson')
    expect(response.status).toBe(202)
    const { id } = response.body as { id: string }
    const done = await finished(hypha, id)
    expect(done).toMatchObject({ status: 'succeeded', rows_total: 122, rows_failed: 2 })
    expect(done.errors_by_code).toEqual({ invalid_json: 1, invalid_request: 1 })

    const ndjson = await results(hypha, id)
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    const full = ndjson.text
    const records = full
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(records.map((record) => record.row)).toEqual(Array.from({ length: 122 }, (_, i) => i + 1))
    expect(records[11]).toMatchObject({ row: 12, error_code: 'invalid_request', survival_1y: null })
    expect(records[0]).toMatchObject({ row: 1, id: 0, species_code: 'TSHE' })

    const csv = await results(hypha, id, { accept: 'text/csv' })
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect((parse(csv.text, { columns: true }) as unknown[]).length).toBe(122)

    // Resume a download part-way: the rest from a byte offset, then the two parts make the whole.
    const cut = Math.floor(Buffer.byteLength(full) / 3)
    const rest = await fetch(`${server.url}/v1/jobs/${id}/results`, {
      headers: { 'x-api-key': hypha, range: `bytes=${cut}-` },
    })
    expect(rest.status).toBe(206)
    expect(rest.headers.get('content-range')).toBe(
      `bytes ${cut}-${Buffer.byteLength(full) - 1}/${Buffer.byteLength(full)}`,
    )
    const joined = Buffer.concat([Buffer.from(full).subarray(0, cut), Buffer.from(await rest.arrayBuffer())])
    expect(joined.toString()).toBe(full)

    const past = await fetch(`${server.url}/v1/jobs/${id}/results`, {
      headers: { 'x-api-key': hypha, range: `bytes=${Buffer.byteLength(full)}-` },
    })
    expect(past.status).toBe(416)
  })

  it('reports rows scored, failed chunks and the queue depth as Prometheus metrics', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    const rows = (outcome: string) =>
      Number(new RegExp(`^survival_job_rows_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(metrics)?.[1])
    // The two jobs above: 250 + 5 rows (5 failed) and 122 rows (2 failed).
    expect(rows('ok')).toBe(370)
    expect(rows('failed')).toBe(7)
    expect(metrics).toMatch(/^survival_job_queue_depth 0$/m)
    expect(metrics).toMatch(/^survival_job_chunks_failed_total 0$/m)
  })

  /** The seven result cells of a parsed CSV results row. */
  const resultsOf = (row: Record<string, string> | undefined) => RESULT_COLUMNS.map((name) => row?.[name])

  it('takes period and scenario columns: rows with and without a climate in one upload, a bad climate failing its row alone', async () => {
    // Each point three times (no climate, the baseline alone, a future), across two chunks of 100.
    const points = forestGrid(50)
    const climates = [
      ['', ''],
      ['1991_2020', ''],
      ['2071-2100', 'ssp585'],
    ]
    const lines = points.flatMap((point, index) =>
      climates.map(
        ([period, scenario], which) =>
          `p${index}-${which},${point.latitude},${point.longitude},TSHE,manual,${period},${scenario},n`,
      ),
    )
    const { coastRange } = FOREST_POINTS
    const bad = [
      `unknown,${coastRange.latitude},${coastRange.longitude},TSHE,manual,2050s,ssp245,`,
      `no-scenario,${coastRange.latitude},${coastRange.longitude},TSHE,manual,2041-2070,,`,
      `baseline+scenario,${coastRange.latitude},${coastRange.longitude},TSHE,manual,1991_2020,ssp245,`,
    ]
    const header = 'id,latitude,longitude,species_code,planting_method,Period,scenario,note'
    const response = await upload(mycel, [header, ...lines, ...bad, ''].join('\n'))
    expect(response.status, response.text).toBe(202)
    const { id } = response.body as { id: string }
    const done = await finished(mycel, id)
    expect(done).toMatchObject({ status: 'succeeded', rows_total: 153 })
    // Every failure is one of the three bad climates (a grid point without data fails thrice alike).
    expect(done.errors_by_code.invalid_climate).toBe(3)

    const csv = await results(mycel, id, { accept: 'text/csv' })
    expect(csv.text.split('\r\n')[0]).toBe(`${header},${RESULT_COLUMNS.join(',')}`)
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[]
    expect(rows.slice(150).map((row) => [row.id, row.Period, row.scenario, row.error_code])).toEqual([
      ['unknown', '2050s', 'ssp245', 'invalid_climate'],
      ['no-scenario', '2041-2070', '', 'invalid_climate'],
      ['baseline+scenario', '1991_2020', 'ssp245', 'invalid_climate'],
    ])
    let differ = 0
    for (let index = 0; index < points.length; index++) {
      const [today, baseline, future] = rows.slice(index * 3, index * 3 + 3)
      expect([today?.Period, baseline?.Period, future?.Period]).toEqual(['', '1991_2020', '2071-2100'])
      expect(resultsOf(baseline)).toEqual(resultsOf(today))
      expect(future?.error_code).toBe(today?.error_code)
      if (future?.survival_5y !== today?.survival_5y) differ += 1
    }
    expect(differ).toBeGreaterThan(points.length / 2)

    // The same number /v1/predict gives for that site under that climate.
    const first = points[0] as { latitude: number; longitude: number }
    const direct = await rest(server.url, 'POST', '/v1/predict', {
      key: mycel,
      json: {
        ...first,
        species_code: 'TSHE',
        planting_method: 'manual',
        climate: { period: '2071-2100', scenario: 'ssp585' },
      },
    })
    expect(direct.status, direct.text).toBe(200)
    expect(Number(rows[2]?.survival_5y)).toBe(direct.body.predictions[2].survival_probability)

    const ndjson = await results(mycel, id, { accept: 'application/x-ndjson' })
    const records = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(records[2]).toMatchObject({
      id: 'p0-2',
      Period: '2071-2100',
      scenario: 'ssp585',
      error_code: null,
    })
    expect(records[0]).toMatchObject({ id: 'p0-0', Period: '', scenario: '' })
  })

  it('takes period and scenario fields in NDJSON (or a predict body’s climate) and echoes them after error_code', async () => {
    const body = { ...FOREST_POINTS.coastRange, species_code: 'TSHE', planting_method: 'manual' }
    const lines = [
      { id: 'today', ...body },
      { id: 'baseline', ...body, period: '1991_2020' },
      { id: 'future', ...body, period: '2041-2070', scenario: 'ssp370' },
      { id: 'nested', ...body, climate: { period: '2041-2070', scenario: 'ssp370' } },
      { id: 'bad', ...body, scenario: 'ssp370' },
      { id: 'twice', ...body, period: '2041-2070', climate: { period: '2041-2070', scenario: 'ssp370' } },
    ].map((line) => JSON.stringify(line))
    const response = await upload(hypha, `${lines.join('\n')}\n`, 'application/x-ndjson')
    expect(response.status, response.text).toBe(202)
    const { id } = response.body as { id: string }
    const done = await finished(hypha, id)
    expect(done).toMatchObject({ status: 'succeeded', rows_total: 6, rows_failed: 2 })
    expect(done.errors_by_code).toEqual({ invalid_climate: 1, invalid_request: 1 })

    const ndjson = await results(hypha, id)
    const records = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(Object.keys(records[0] ?? {})).toEqual([
      'row',
      'id',
      'latitude',
      'longitude',
      'species_code',
      'planting_method',
      'horizons',
      ...RESULT_COLUMNS,
      'period',
      'scenario',
    ])
    expect(records.map((record) => [record.id, record.period, record.scenario, record.error_code])).toEqual([
      ['today', null, null, null],
      ['baseline', '1991_2020', null, null],
      ['future', '2041-2070', 'ssp370', null],
      ['nested', '2041-2070', 'ssp370', null],
      ['bad', null, 'ssp370', 'invalid_climate'],
      ['twice', '2041-2070', 'ssp370', 'invalid_request'],
    ])
    const survival = (record: Record<string, unknown> | undefined) =>
      ['survival_1y', 'survival_3y', 'survival_5y'].map((name) => record?.[name])
    expect(survival(records[1])).toEqual(survival(records[0]))
    expect(survival(records[3])).toEqual(survival(records[2]))
    expect(survival(records[2])).not.toEqual(survival(records[0]))

    // As CSV: the thirteen columns of before in their places, then period and scenario.
    const csv = await results(hypha, id, { accept: 'text/csv' })
    expect(csv.text.split('\r\n')[0]).toBe(
      `id,latitude,longitude,species_code,planting_method,horizons,${RESULT_COLUMNS.join(',')},period,scenario`,
    )
    const cells = parse(csv.text) as string[][]
    expect(cells[3]?.slice(-3)).toEqual(['', '2041-2070', 'ssp370'])
    expect(cells[3]?.[6]).toBe(String(records[2]?.survival_1y))
  })

  it('belongs to its account: another key sees 404, and spore keys may not run jobs', async () => {
    const response = await upload(mycel, forestCsv(5))
    const { id } = response.body as { id: string }
    expect((await job(otherMycel, id)).status).toBe(404)
    expect((await job(mycel, 'job_000000000000000000000000')).status).toBe(404)
    const refused = await upload(spore, forestCsv(5))
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('jobs_not_in_tier')
  })

  it('scores every row with the model version named at upload, records it, and refuses one the account cannot use', async () => {
    const pinned = await rest(server.url, 'POST', '/v1/jobs?model_version=0.2', {
      key: mycel,
      raw: forestCsv(3),
      contentType: 'text/csv',
    })
    expect(pinned.status, pinned.text).toBe(202)
    const done = await finished(mycel, pinned.body.id)
    expect(done).toMatchObject({ status: 'succeeded', model_version: '0.2' })
    const plain = await upload(mycel, forestCsv(3))
    expect((await finished(mycel, plain.body.id)).model_version).toBe('0.2')
    expect((await results(mycel, pinned.body.id)).text).toBe((await results(mycel, plain.body.id)).text)

    const unknown = await rest(server.url, 'POST', '/v1/jobs?model_version=9.9', {
      key: mycel,
      raw: forestCsv(3),
      contentType: 'text/csv',
    })
    expectError(unknown, 422, 'invalid_model_version')
    const tooLong = await rest(server.url, 'POST', `/v1/jobs?model_version=${'v'.repeat(65)}`, {
      key: mycel,
      raw: forestCsv(3),
      contentType: 'text/csv',
    })
    expectError(tooLong, 400, 'invalid_request')
    // The tier is checked first: a spore key is told jobs are not its tier's, whatever the version.
    const spored = await rest(server.url, 'POST', '/v1/jobs?model_version=9.9', {
      key: spore,
      raw: forestCsv(3),
      contentType: 'text/csv',
    })
    expectError(spored, 403, 'jobs_not_in_tier')
  })

  it('refuses a malformed header whole, and a body of another type', async () => {
    const noHeader = await upload(mycel, 'lat,lon,species\n44.6,-123.6,PSME\n')
    expect(noHeader.status).toBe(400)
    expect(noHeader.body.error.code).toBe('invalid_request')
    expect(noHeader.body.error.message).toContain('latitude, longitude, species_code, planting_method')
    const json = await upload(mycel, '{}', 'application/json')
    expect(json.status).toBe(415)
  })
})

describe('jobs against the daily quota, and cancelling (BullMQ queue, no worker: jobs stay queued)', () => {
  let database: TestDatabase
  let server: TestServer
  let mycel: IssuedKey

  beforeAll(async () => {
    database = await createSeededDatabase()
    server = await startTestServer({ database, jobQueue: 'redis', jobWorkers: false })
    mycel = await issueKey(database, 'mycel')
  })

  afterAll(async () => {
    await server?.close()
    await deleteKeysWithPrefix(`${server?.quotaPrefix}bull`)
    await database?.drop()
  })

  const upload = (key: string, body: string) =>
    rest(server.url, 'POST', '/v1/jobs', { key, raw: body, contentType: 'text/csv' })
  const remaining = (result: { headers: Headers }) => Number(result.headers.get('x-ratelimit-remaining'))

  it('charges ⌈rows ÷ batch size⌉ requests when accepted, and nothing for status, results or cancel', async () => {
    const before = remaining(await rest(server.url, 'GET', '/v1/methods', { key: mycel.key }))
    const accepted = await upload(mycel.key, forestCsv(250))
    expect(accepted.status).toBe(202)
    // mycel batches hold 100 sites: 250 rows cost 3 requests, the upload's own call among them.
    expect(remaining(accepted)).toBe(before - 3)
    const { id } = accepted.body as { id: string }
    const status = await rest(server.url, 'GET', `/v1/jobs/${id}`, { key: mycel.key })
    expect(status.body.status).toBe('queued')
    expect(remaining(status)).toBe(before - 3)
    expectError(
      await rest(server.url, 'GET', `/v1/jobs/${id}/results`, { key: mycel.key }),
      409,
      'job_not_finished',
    )

    const cancelled = await rest(server.url, 'DELETE', `/v1/jobs/${id}`, { key: mycel.key })
    expect(cancelled.status).toBe(200)
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled' })
    expect(remaining(cancelled)).toBe(before - 3)
    // Deleting a finished (here: cancelled) job removes it.
    expect((await rest(server.url, 'DELETE', `/v1/jobs/${id}`, { key: mycel.key })).status).toBe(204)
    expectError(await rest(server.url, 'GET', `/v1/jobs/${id}`, { key: mycel.key }), 404, 'not_found')
  })

  it('refuses a job that needs more requests than remain, saying how many, and keeps nothing', async () => {
    // Spend the day's quota down to 5 requests.
    await withRedis(async (redis) => {
      const counter = `${server.quotaPrefix}${mycel.id}:${new Date().toISOString().slice(0, 10)}`
      await redis.set(counter, 9995)
    })
    const refused = await upload(mycel.key, forestCsv(700))
    expectError(refused, 429, 'rate_limit_exceeded')
    expect(refused.body.error.details).toEqual({ requests_needed: 7, remaining: 5 })
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    // The upload's own request was counted; the job's cost was not.
    expect(remaining(await rest(server.url, 'GET', '/v1/methods', { key: mycel.key }))).toBe(3)
    const [row] = await database.sql<{ count: number }[]>`SELECT count(*)::int AS count FROM jobs`
    expect(row?.count).toBe(0)
  })
})
