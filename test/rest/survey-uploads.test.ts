import { request } from 'node:http'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IssuedKey } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { expectError, rest } from './client.ts'

/**
 * Bulk survey uploads over HTTP against real PostgreSQL and Redis: CSV, NDJSON and GeoJSON read a row
 * at a time, every valid row stored or none, refused rows listed by number, field and reason, and an
 * upload cut short leaving nothing behind.
 */
let db: TestDatabase
let server: TestServer
let mycel: IssuedKey
let other: IssuedKey

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, keyCacheMs: 0 })
  mycel = await issueKey(db, 'mycel')
  other = await issueKey(db, 'mycel')
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

const HEADER = 'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive'
const { latitude, longitude } = FOREST_POINTS.coastRange

function csvRow(plotId: string, overrides: Partial<Record<string, string | number>> = {}): string {
  const row = {
    plot_id: plotId,
    latitude,
    longitude,
    species_code: 'PSME',
    planting_method: 'manual',
    planted_on: '2021-03-15',
    surveyed_on: '2024-03-15',
    planted: 40,
    alive: 31,
    ...overrides,
  }
  return HEADER.split(',')
    .map((name) => row[name as keyof typeof row])
    .join(',')
}

const upload = (
  key: string,
  body: string | Uint8Array,
  contentType = 'text/csv',
  query = '',
  headers: Record<string, string> = {},
) => rest(server.url, 'POST', `/v1/surveys/uploads${query}`, { key, raw: body, contentType, headers })

const plotsOf = async (key: string, prefix: string) => {
  const page = await rest(server.url, 'GET', '/v1/surveys?limit=1000', { key })
  return (page.body.plots as { plot_id: string }[]).filter((plot) => plot.plot_id.startsWith(prefix))
}

describe('POST /v1/surveys/uploads', () => {
  it('stores every row of a CSV, each as POST /v1/surveys would, and names the columns it ignored', async () => {
    const body = [
      `${HEADER},crew`,
      `${csvRow('csv-1')},north`,
      `${csvRow('csv-2', { species_code: 'THPL', planted: 38, alive: 30 })},south`,
    ].join('\n')
    const stored = await upload(mycel.key, body)
    expect(stored.status, stored.text).toBe(201)
    expect(stored.body).toMatchObject({
      status: 'committed',
      format: 'csv',
      skip_invalid: false,
      rows: 2,
      valid_rows: 2,
      refused_rows: 0,
      stored: 2,
      ignored_columns: ['crew'],
      failure: null,
      refused: [],
      next_cursor: null,
    })
    expect(stored.headers.get('location')).toBe(`/v1/surveys/uploads/${stored.body.upload_id}`)
    const one = await rest(server.url, 'POST', '/v1/surveys', {
      key: other.key,
      json: {
        plots: [
          {
            plot_id: 'csv-1',
            latitude,
            longitude,
            species_code: 'PSME',
            planting_method: 'manual',
            planted_on: '2021-03-15',
            surveyed_on: '2024-03-15',
            planted: 40,
            alive: 31,
          },
        ],
      },
    })
    const [kept] = await plotsOf(mycel.key, 'csv-1')
    const { updated_at: _, ...uploaded } = kept as Record<string, unknown>
    const { updated_at: __, ...single } = one.body.plots[0]
    expect(uploaded).toEqual(single)
  })

  it('stores nothing when a row is refused, and lists each refused row with its number, field and reason', async () => {
    const body = [
      HEADER,
      csvRow('atomic-1'),
      csvRow('atomic-2', { alive: 41 }),
      csvRow('atomic-3', { ...OUTSIDE_POINTS.boise }),
      csvRow('atomic-4', { species_code: 'XXXX' }),
      csvRow('atomic-5', { surveyed_on: '2024' }),
      'atomic-6,44.6',
    ].join('\n')
    const refused = await upload(mycel.key, body)
    expectError(refused, 422, 'survey_upload_refused')
    const details = refused.body.error.details
    expect(details).toMatchObject({ rows: 6, refused_rows: 5 })
    expect(details.refused).toEqual([
      {
        row: 2,
        plot_id: 'atomic-2',
        field: 'alive',
        code: 'invalid_request',
        reason: 'must be at most planted (40)',
      },
      expect.objectContaining({ row: 3, plot_id: 'atomic-3', field: 'latitude', code: 'outside_coverage' }),
      expect.objectContaining({
        row: 4,
        plot_id: 'atomic-4',
        field: 'species_code',
        code: 'invalid_species',
      }),
      expect.objectContaining({ row: 5, plot_id: 'atomic-5', field: 'surveyed_on', code: 'invalid_request' }),
      expect.objectContaining({ row: 6, plot_id: 'atomic-6', field: '(row)', code: 'invalid_request' }),
    ])
    expect(await plotsOf(mycel.key, 'atomic-')).toEqual([])
    const kept = await rest(server.url, 'GET', `/v1/surveys/uploads/${details.upload_id}`, { key: mycel.key })
    expect(kept.status).toBe(200)
    expect(kept.body).toMatchObject({
      status: 'refused',
      stored: 0,
      refused_rows: 5,
      failure: { code: 'survey_upload_refused' },
    })
    expect(kept.body.refused).toEqual(details.refused)
  })

  it('with skip_invalid=true stores the valid rows and reports the rest', async () => {
    const body = [
      HEADER,
      csvRow('skip-1'),
      csvRow('skip-2', { ...NO_DATA_POINTS.downtownPortland }),
      csvRow('skip-3', { planted: 'many' }),
      csvRow('skip-4'),
    ].join('\r\n')
    const stored = await upload(mycel.key, body, 'text/csv', '?skip_invalid=true')
    expect(stored.status, stored.text).toBe(201)
    expect(stored.body).toMatchObject({
      status: 'committed',
      rows: 4,
      valid_rows: 2,
      refused_rows: 2,
      stored: 2,
    })
    expect(stored.body.refused).toEqual([
      expect.objectContaining({ row: 2, field: 'latitude', code: 'no_nearby_data' }),
      { row: 3, plot_id: 'skip-3', field: 'planted', code: 'invalid_request', reason: 'must be a number' },
    ])
    expect((await plotsOf(mycel.key, 'skip-')).map((plot) => plot.plot_id)).toEqual(['skip-1', 'skip-4'])
  })

  it('reads NDJSON by line and GeoJSON points by feature, gzipped or not', async () => {
    const plot = (plotId: string, extra: Record<string, unknown> = {}) => ({
      plot_id: plotId,
      species_code: 'PSME',
      planting_method: 'manual',
      planted_on: '2021',
      surveyed_on: '2024-03-15',
      planted: 40,
      alive: 31,
      ...extra,
    })
    const ndjson = [
      JSON.stringify(plot('nd-1', { latitude, longitude })),
      '',
      'not json',
      JSON.stringify(plot('nd-2', { latitude, longitude, colour: 'red' })),
    ].join('\n')
    const lines = await upload(mycel.key, gzipSync(ndjson), 'application/x-ndjson', '?skip_invalid=true', {
      'content-encoding': 'gzip',
    })
    expect(lines.status, lines.text).toBe(201)
    expect(lines.body.refused).toEqual([
      { row: 3, plot_id: null, field: '(row)', code: 'invalid_json', reason: 'is not valid JSON' },
      expect.objectContaining({ row: 4, plot_id: 'nd-2', field: 'colour' }),
    ])
    expect(lines.body.stored).toBe(1)

    const point = (coordinates: unknown, properties: unknown) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates },
      properties,
    })
    const collection = {
      type: 'FeatureCollection',
      features: [
        point([longitude, latitude], plot('geo-1')),
        { type: 'Feature', geometry: { type: 'LineString', coordinates: [] }, properties: plot('geo-2') },
        point([longitude, latitude], { ...plot('geo-3'), latitude }),
        point([longitude], plot('geo-4')),
      ],
    }
    const features = await upload(
      mycel.key,
      JSON.stringify(collection),
      'application/geo+json',
      '?skip_invalid=true',
    )
    expect(features.status, features.text).toBe(201)
    expect(features.body).toMatchObject({ format: 'geojson', rows: 4, stored: 1 })
    expect(features.body.refused.map((r: { row: number; field: string }) => [r.row, r.field])).toEqual([
      [2, 'geometry'],
      [3, 'properties.latitude'],
      [4, 'geometry.coordinates'],
    ])
  })

  it('keeps a survey sent twice as last sent, and counts it once', async () => {
    const body = [HEADER, csvRow('twice-1', { alive: 10 }), csvRow('twice-1', { alive: 20 })].join('\n')
    const stored = await upload(mycel.key, body)
    expect(stored.body).toMatchObject({ rows: 2, valid_rows: 2, stored: 1 })
    const [kept] = (await plotsOf(mycel.key, 'twice-1')) as unknown as { alive: number }[]
    expect(kept?.alive).toBe(20)
  })

  it('refuses an upload it cannot read as a whole, and keeps nothing of it', async () => {
    const before = await uploadsOf(mycel)
    expectError(await upload(mycel.key, 'plot_id,latitude\nx,44'), 400, 'invalid_request')
    expectError(await upload(mycel.key, HEADER), 400, 'invalid_request')
    expectError(await upload(mycel.key, `${HEADER}\n"unclosed,44.6`), 400, 'invalid_request')
    expectError(await upload(mycel.key, '{"type":"Feature"}', 'application/geo+json'), 400, 'invalid_request')
    expectError(await upload(mycel.key, HEADER, 'text/csv', '?skip_invalid=yes'), 400, 'invalid_request')
    expectError(await upload(mycel.key, HEADER, 'application/json'), 415, 'unsupported_media_type')
    const after = await uploadsOf(mycel)
    // The unreadable CSV had begun (its header was read): it is kept as failed, with nothing staged.
    const added = after.filter((row) => !before.some((seen) => seen.id === row.id))
    expect(added.every((row) => row.status === 'failed' && row.staged === 0)).toBe(true)
  })

  it('refuses an upload that would take the account past its tier, storing nothing', async () => {
    const spore = await issueKey(db, 'spore')
    const rows = Array.from({ length: 1001 }, (_, index) => csvRow(`limit-${index}`))
    const refused = await upload(spore.key, [HEADER, ...rows].join('\n'))
    expectError(refused, 409, 'survey_limit_reached')
    const uploadId = refused.body.error.details.upload_id
    expect(await plotsOf(spore.key, 'limit-')).toEqual([])
    const kept = await rest(server.url, 'GET', `/v1/surveys/uploads/${uploadId}`, { key: spore.key })
    expect(kept.body).toMatchObject({ status: 'refused', valid_rows: 1001, stored: 0 })
    expect(kept.body.failure.code).toBe('survey_limit_reached')
  })

  it('counts one request per upload, and records the store in the audit log', async () => {
    const fresh = await issueKey(db, 'mycel')
    const stored = await upload(fresh.key, [HEADER, csvRow('audit-1'), csvRow('audit-2')].join('\n'))
    const limit = Number(stored.headers.get('x-ratelimit-limit'))
    expect(Number(stored.headers.get('x-ratelimit-remaining'))).toBe(limit - 1)
    const audit = await rest(server.url, 'GET', '/v1/audit', { key: fresh.key })
    const event = (audit.body.events as { kind: string; details: Record<string, unknown> }[]).find(
      (e) => e.kind === 'survey.stored',
    )
    expect(event?.details).toEqual({ upload_id: stored.body.upload_id, surveys: 2 })
  })
})

describe('GET /v1/surveys/uploads/{upload_id}', () => {
  it('pages the refused rows in row order, and hides another account’s upload', async () => {
    const rows = Array.from({ length: 250 }, (_, index) => csvRow(`page-${index}`, { alive: 50 }))
    const refused = await upload(mycel.key, [HEADER, csvRow('page-ok'), ...rows].join('\n'))
    expectError(refused, 422, 'survey_upload_refused')
    const id = refused.body.error.details.upload_id
    expect(refused.body.error.details.refused).toHaveLength(100)
    const seen: number[] = []
    let cursor: string | null = null
    do {
      const query: string = cursor ? `?limit=120&cursor=${cursor}` : '?limit=120'
      const page = await rest(server.url, 'GET', `/v1/surveys/uploads/${id}${query}`, { key: mycel.key })
      expect(page.status).toBe(200)
      seen.push(...page.body.refused.map((r: { row: number }) => r.row))
      cursor = page.body.next_cursor
    } while (cursor)
    expect(seen).toEqual(Array.from({ length: 250 }, (_, index) => index + 2))
    expectError(
      await rest(server.url, 'GET', `/v1/surveys/uploads/${id}`, { key: other.key }),
      404,
      'not_found',
    )
    expectError(
      await rest(server.url, 'GET', `/v1/surveys/uploads/${id}?cursor=bm9wZQ`, { key: mycel.key }),
      400,
      'invalid_request',
    )
    expectError(
      await rest(server.url, 'GET', `/v1/surveys/uploads/${id}?limit=1001`, { key: mycel.key }),
      400,
      'invalid_request',
    )
  })
})

describe('an upload cut short', () => {
  it('stores nothing when the client goes away mid-body', async () => {
    const gone = await issueKey(db, 'mycel')
    const rows = Array.from({ length: 3500 }, (_, index) => `${csvRow(`gone-${index}`)}\n`)
    await new Promise<void>((resolve) => {
      const req = request(`${server.url}/v1/surveys/uploads`, {
        method: 'POST',
        headers: { 'x-api-key': gone.key, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
      })
      req.on('error', () => resolve())
      req.write(`${HEADER}\n${rows.join('')}`)
      // Rows staged (more than one batch), then the connection dropped before the body's end.
      void eventually(async () => ((await uploadsOf(gone))[0]?.rowsRead ?? 0) >= 2000, 20_000, 50).then(
        () => {
          req.destroy()
          resolve()
        },
      )
    })
    const ended = await eventually(async () => (await uploadsOf(gone))[0]?.status === 'failed', 20_000, 50)
    expect(ended).toBe(true)
    const [left] = await uploadsOf(gone)
    expect(left).toMatchObject({ staged: 0, failure: { code: 'client_closed' } })
    expect(await plotsOf(gone.key, 'gone-')).toEqual([])
  })
})

/** The uploads of a key, newest first, with how many rows each still has staged. */
async function uploadsOf(key: IssuedKey) {
  return db.sql<
    { id: string; status: string; rowsRead: number; staged: number; failure: { code: string } | null }[]
  >`
    SELECT u.id, u.status, u.rows_read, u.failure,
      (SELECT count(*)::int FROM survey_upload_rows r WHERE r.upload_id = u.id) AS staged
    FROM survey_uploads u WHERE u.key_id = ${key.id} ORDER BY u.created_at DESC`
}
