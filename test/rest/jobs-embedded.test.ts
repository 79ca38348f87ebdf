import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { seedAll } from '../../src/seed/seed-all.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, forestGrid, NO_DATA_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { rest } from './client.ts'

/**
 * Jobs on the embedded path (`npm start` without configuration: PGlite, no Redis): the same chunk
 * runner in process, the same SQL for chunks and results.
 */
let db: Database
let server: TestServer

beforeAll(async () => {
  db = await openDatabase({ DATABASE_URL: undefined, DB_POOL_MAX: 1 })
  expect(db.mode).toBe('embedded')
  await migrate(db.sql)
  await seedAll(db.sql)
  server = await startTestServer({ database: db, quota: 'memory', jobChunkRows: 100 })
}, 180_000)

afterAll(async () => {
  await server?.close()
  await db?.close()
})

describe('jobs on the embedded store', () => {
  it('scores an NDJSON upload in process and streams the results in input order', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    const lines = [
      ...forestGrid(240).map((point, index) =>
        JSON.stringify({
          id: `s${index}`,
          ...point,
          species_code: 'PSME',
          planting_method: 'manual',
          horizons: [3],
        }),
      ),
      JSON.stringify({
        id: 'city',
        ...NO_DATA_POINTS.downtownPortland,
        species_code: 'PSME',
        planting_method: 'manual',
      }),
    ]
    const accepted = await rest(server.url, 'POST', '/v1/jobs', {
      key,
      raw: `${lines.join('\n')}\n`,
      contentType: 'application/x-ndjson',
    })
    expect(accepted.status, accepted.text).toBe(202)
    const { id } = accepted.body as { id: string }
    expect(
      await eventually(
        async () => (await rest(server.url, 'GET', `/v1/jobs/${id}`, { key })).body.status === 'succeeded',
        60_000,
        100,
      ),
    ).toBe(true)
    const status = await rest(server.url, 'GET', `/v1/jobs/${id}`, { key })
    expect(status.body).toMatchObject({
      rows_total: 241,
      rows_done: 241,
      rows_failed: 1,
      errors_by_code: { no_nearby_data: 1 },
    })

    const results = await rest(server.url, 'GET', `/v1/jobs/${id}/results`, {
      key,
      headers: { accept: 'text/csv' },
    })
    const rows = parse(results.text, { columns: true }) as Record<string, string>[]
    expect(rows.map((row) => row.id)).toEqual([...Array.from({ length: 240 }, (_, i) => `s${i}`), 'city'])
    expect(rows.every((row, i) => i === 240 || (row.survival_3y !== '' && row.survival_1y === ''))).toBe(true)
    expect(rows[240]?.error_code).toBe('no_nearby_data')
  })

  it('scores rows under a climate beside rows of today, echoing period and scenario (NDJSON: after error_code)', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    const body = { ...FOREST_POINTS.westCascades, species_code: 'PSME', planting_method: 'manual' }
    const lines = [
      { id: 'today', ...body },
      { id: 'baseline', ...body, period: '1991_2020' },
      { id: 'future', ...body, period: '2071-2100', scenario: 'ssp245' },
      { id: 'bad', ...body, period: '2071-2100', scenario: 'ssp999' },
    ].map((line) => JSON.stringify(line))
    const accepted = await rest(server.url, 'POST', '/v1/jobs', {
      key,
      raw: `${lines.join('\n')}\n`,
      contentType: 'application/x-ndjson',
    })
    expect(accepted.status, accepted.text).toBe(202)
    const { id } = accepted.body as { id: string }
    expect(
      await eventually(
        async () => (await rest(server.url, 'GET', `/v1/jobs/${id}`, { key })).body.status === 'succeeded',
        60_000,
        100,
      ),
    ).toBe(true)
    const results = await rest(server.url, 'GET', `/v1/jobs/${id}/results`, {
      key,
      headers: { accept: 'text/csv' },
    })
    const [header, ...rows] = parse(results.text) as string[][]
    expect(header?.slice(-3)).toEqual(['error_code', 'period', 'scenario'])
    expect(rows.map((cells) => [cells[0], ...cells.slice(-3)])).toEqual([
      ['today', '', '', ''],
      ['baseline', '', '1991_2020', ''],
      ['future', '', '2071-2100', 'ssp245'],
      ['bad', 'invalid_climate', '2071-2100', 'ssp999'],
    ])
    const [today, baseline, future] = rows.map((cells) => cells.slice(6, 13))
    expect(baseline).toEqual(today)
    expect(future).not.toEqual(today)
  })
})
