import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IssuedKey } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, forestGrid, NO_DATA_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { expectError, rest } from './client.ts'

/**
 * Field surveys over HTTP against real PostgreSQL and Redis: plots kept per account, matched and
 * predicted once when stored, all or nothing, paged, deleted, and never seen by another account.
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

function plot(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    plot_id: 'A-1',
    ...FOREST_POINTS.coastRange,
    species_code: 'PSME',
    planting_method: 'manual',
    planted_on: '2021-03-15',
    surveyed_on: '2024-03-15',
    planted: 40,
    alive: 31,
    ...overrides,
  }
}

const send = (key: string, plots: unknown[]) =>
  rest(server.url, 'POST', '/v1/surveys', { key, json: { plots } })

describe('POST /v1/surveys', () => {
  it('keeps the plots with the matched site and the model’s survival at their age', async () => {
    const stored = await send(mycel.key, [
      plot({ plot_id: 'keep-1', protocol: 'or_fpa_stocking', plot_area_m2: 404.7 }),
    ])
    expect(stored.status, stored.text).toBe(200)
    const body = stored.body as { stored: number; plots: Record<string, unknown>[] }
    expect(body.stored).toBe(1)
    const [kept] = body.plots
    expect(kept).toMatchObject({
      plot_id: 'keep-1',
      species_code: 'PSME',
      planted: 40,
      alive: 31,
      observed_survival: 31 / 40,
      protocol: 'or_fpa_stocking',
      plot_area_m2: 404.7,
      model_version: '0.2',
    })
    expect(kept?.age_years).toBeCloseTo(1096 / 365.25, 10)
    // At three years the plot's prediction is the model's 3-year survival for the same site.
    const predicted = await rest(server.url, 'POST', '/v1/predict', {
      key: mycel.key,
      json: { ...FOREST_POINTS.coastRange, species_code: 'PSME', planting_method: 'manual', horizons: [3] },
    })
    const threeYears = (predicted.body as { predictions: { survival_probability: number }[] }).predictions[0]
    // 1096 days is a shade over 3 years: the value sits on the 3→5 line just past 3.
    expect(kept?.predicted_survival as number).toBeCloseTo(threeYears?.survival_probability as number, 2)
  })

  it('takes a bare year for planted_on as 1 March, and refuses one for surveyed_on', async () => {
    const stored = await send(mycel.key, [
      plot({ plot_id: 'year-1', planted_on: '2022', surveyed_on: '2023-03-01' }),
    ])
    const [kept] = (stored.body as { plots: { planted_on: string; age_years: number }[] }).plots
    expect(kept?.planted_on).toBe('2022-03-01')
    // 365 days, in years of 365.25 days.
    expect(kept?.age_years).toBeCloseTo(365 / 365.25, 12)
    const refused = await send(mycel.key, [plot({ surveyed_on: '2023' })])
    expectError(refused, 400, 'invalid_request')
    expect((refused.body as { error: { details: unknown } }).error.details).toMatchObject({
      index: 0,
      field: 'surveyed_on',
    })
  })

  it.each([
    ['alive above planted', { alive: 41 }, 'alive'],
    [
      'a survey 0.2 years after planting',
      { planted_on: '2024-01-01', surveyed_on: '2024-03-01' },
      'surveyed_on',
    ],
    [
      'a survey 11 years after planting',
      { planted_on: '2010-01-01', surveyed_on: '2021-06-01' },
      'surveyed_on',
    ],
    ['a survey in the future', { surveyed_on: '2999-01-01' }, 'surveyed_on'],
    ['30 February', { planted_on: '2021-02-30' }, 'planted_on'],
    ['a plot id of 65 characters', { plot_id: 'x'.repeat(65) }, 'plot_id'],
    ['the plot id "report"', { plot_id: 'report' }, 'plot_id'],
    ['the plot id ".."', { plot_id: '..' }, 'plot_id'],
    ['planted 0', { planted: 0 }, 'planted'],
    ['planted 10,001', { planted: 10_001, alive: 1 }, 'planted'],
    ['an unknown field', { colour: 'green' }, 'colour'],
  ])('refuses %s: all or nothing, naming the index and field', async (_label, overrides, field) => {
    const good = plot({ plot_id: 'never-kept' })
    const refused = await send(mycel.key, [good, plot(overrides)])
    expectError(refused, 400, 'invalid_request')
    expect((refused.body as { error: { details: unknown } }).error.details).toMatchObject({ index: 1, field })
    const [row] = await db.sql`SELECT count(*)::int AS n FROM survey_plots WHERE plot_id = 'never-kept'`
    expect(row?.n).toBe(0)
  })

  it.each([
    ['an unknown species', { species_code: 'PSMA' }, 'invalid_species', 'species_code'],
    ['an unknown method', { planting_method: 'hovercraft' }, 'invalid_method', 'planting_method'],
    ['a point outside Oregon and Washington', OUTSIDE_POINTS.boise, 'outside_coverage', 'latitude'],
    ['a point with no data site near', NO_DATA_POINTS.downtownPortland, 'no_nearby_data', 'latitude'],
  ])('refuses %s with the prediction’s 422 code, index and field', async (_label, overrides, code, field) => {
    const refused = await send(mycel.key, [plot({ plot_id: 'never-kept' }), plot(overrides)])
    expectError(refused, 422, code)
    expect((refused.body as { error: { details: unknown } }).error.details).toMatchObject({ index: 1, field })
  })

  it('replaces a plot sent again for the same survey date, and keeps other dates as other surveys', async () => {
    await send(mycel.key, [plot({ plot_id: 'again', alive: 30 })])
    await send(mycel.key, [
      plot({ plot_id: 'again', alive: 25 }),
      plot({ plot_id: 'again', surveyed_on: '2025-03-15', alive: 20 }),
    ])
    const surveys = await rest(server.url, 'GET', '/v1/surveys/again', { key: mycel.key })
    expect(surveys.status).toBe(200)
    const list = (surveys.body as { surveys: { surveyed_on: string; alive: number }[] }).surveys
    expect(list.map((s) => [s.surveyed_on, s.alive])).toEqual([
      ['2024-03-15', 25],
      ['2025-03-15', 20],
    ])
  })

  it('refuses more than 1,000 plots in one call', async () => {
    const refused = await send(
      mycel.key,
      Array.from({ length: 1001 }, (_, i) => plot({ plot_id: `p${i}` })),
    )
    expectError(refused, 400, 'invalid_request')
  })
})

describe('an account’s plots are its own', () => {
  it('another account sees none of them: not in the list, 404 for the plot, and it cannot delete them', async () => {
    await send(mycel.key, [plot({ plot_id: 'mine' })])
    const listed = await rest(server.url, 'GET', '/v1/surveys?limit=1000', { key: other.key })
    expect((listed.body as { plots: unknown[] }).plots).toEqual([])
    expectError(await rest(server.url, 'GET', '/v1/surveys/mine', { key: other.key }), 404, 'not_found')
    expectError(await rest(server.url, 'DELETE', '/v1/surveys/mine', { key: other.key }), 404, 'not_found')
    await rest(server.url, 'DELETE', '/v1/surveys?confirm=all', { key: other.key })
    expect((await rest(server.url, 'GET', '/v1/surveys/mine', { key: mycel.key })).status).toBe(200)
  })

  it('keeps the plots when the key is rolled', async () => {
    const key = await issueKey(db, 'mycel')
    await send(key.key, [plot({ plot_id: 'rolled' })])
    const rolled = await rest(server.url, 'POST', '/v1/keys/rotate', { key: key.key })
    const replacement = (rolled.body as { key: string }).key
    expect((await rest(server.url, 'GET', '/v1/surveys/rolled', { key: replacement })).status).toBe(200)
  })

  it('holds a spore account to 1,000 plots: past it, 409 survey_limit_reached and nothing stored', async () => {
    const spore = await issueKey(db, 'spore')
    // Filled in the database: the spore tier sends 10 sites a batch and 100 requests a day.
    const [{ accountId } = { accountId: '' }] = await db.sql<{ accountId: string }[]>`
      SELECT account_id FROM api_keys WHERE id = ${spore.id}`
    await db.sql`
      INSERT INTO survey_plots (account_id, plot_id, surveyed_on, planted_on, latitude, longitude, species_code,
        planting_method, planted, alive, site_id, matched_latitude, matched_longitude, match_distance_km,
        age_years, predicted, model_version)
      SELECT ${accountId}, 'filled-' || g, '2024-03-15', '2021-03-15', 44.6, -123.6, 'PSME', 'manual', 10, 8,
        1, 44.6, -123.6, 0.5, 3.0, 0.8, '0.2'
      FROM generate_series(1, 999) AS g`
    expect((await send(spore.key, [plot({ plot_id: 'the-1000th' })])).status).toBe(200)
    const over = await send(spore.key, [plot({ plot_id: 'the-1001st' })])
    expectError(over, 409, 'survey_limit_reached')
    expectError(await rest(server.url, 'GET', '/v1/surveys/the-1001st', { key: spore.key }), 404, 'not_found')
  })
})

describe('GET /v1/surveys', () => {
  it('pages with a cursor and filters by species, method, bbox and survey dates', async () => {
    const key = await issueKey(db, 'mycel')
    const points = forestGrid(12)
    const plots = points.map((point, i) =>
      plot({
        ...point,
        plot_id: `grid-${String(i).padStart(2, '0')}`,
        species_code: i % 2 === 0 ? 'PSME' : 'THPL',
        surveyed_on: i < 6 ? '2024-03-15' : '2025-03-15',
      }),
    )
    expect((await send(key.key, plots)).status).toBe(200)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const query: string = cursor ? `?limit=5&cursor=${cursor}` : '?limit=5'
      const page = await rest(server.url, 'GET', `/v1/surveys${query}`, { key: key.key })
      const body = page.body as { plots: { plot_id: string }[]; next_cursor: string | null }
      seen.push(...body.plots.map((p) => p.plot_id))
      cursor = body.next_cursor
    } while (cursor)
    expect(seen).toEqual(plots.map((p) => p.plot_id))
    const cedar = await rest(server.url, 'GET', '/v1/surveys?species_code=THPL&surveyed_from=2025-01-01', {
      key: key.key,
    })
    expect((cedar.body as { plots: { plot_id: string }[] }).plots.map((p) => p.plot_id)).toEqual([
      'grid-07',
      'grid-09',
      'grid-11',
    ])
    const first = points[0] as { latitude: number; longitude: number }
    const box = `${first.longitude - 0.001},${first.latitude - 0.001},${first.longitude + 0.001},${first.latitude + 0.001}`
    const boxed = await rest(server.url, 'GET', `/v1/surveys?bbox=${box}`, { key: key.key })
    expect((boxed.body as { plots: { plot_id: string }[] }).plots.map((p) => p.plot_id)).toEqual(['grid-00'])
  })

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['bbox=1,2,3', 'bbox'],
    ['bbox=10,0,-10,5', 'bbox'],
    ['surveyed_from=2024', 'surveyed_from'],
    ['cursor=not-ours', 'cursor'],
    ['colour=green', 'colour'],
  ])('refuses %s naming the field', async (query, field) => {
    const refused = await rest(server.url, 'GET', `/v1/surveys?${query}`, { key: mycel.key })
    expectError(refused, 400, 'invalid_request')
    expect((refused.body as { error: { details: { field: string } } }).error.details.field).toBe(field)
  })
})

describe('DELETE', () => {
  it('deletes one plot, every survey of it, and then every plot with confirm=all only', async () => {
    const key = await issueKey(db, 'mycel')
    await send(key.key, [
      plot({ plot_id: 'gone' }),
      plot({ plot_id: 'gone', surveyed_on: '2025-01-10' }),
      plot({ plot_id: 'stays' }),
    ])
    const deleted = await rest(server.url, 'DELETE', '/v1/surveys/gone', { key: key.key })
    expect(deleted.body).toEqual({ plot_id: 'gone', deleted: 2 })
    expectError(await rest(server.url, 'DELETE', '/v1/surveys', { key: key.key }), 400, 'invalid_request')
    expect((await rest(server.url, 'GET', '/v1/surveys/stays', { key: key.key })).status).toBe(200)
    expect((await rest(server.url, 'DELETE', '/v1/surveys?confirm=all', { key: key.key })).body).toEqual({
      deleted: 1,
    })
    const audit = await rest(server.url, 'GET', '/v1/audit', { key: key.key })
    const kinds = (audit.body as { events: { kind: string }[] }).events.map((e) => e.kind)
    expect(kinds.filter((k) => k.startsWith('survey.'))).toEqual([
      'survey.deleted',
      'survey.deleted',
      'survey.stored',
    ])
  })

  it('finds a plot id with spaces and slashes when it is percent-encoded', async () => {
    const key = await issueKey(db, 'mycel')
    await send(key.key, [plot({ plot_id: 'Unit 4/NE corner' })])
    const found = await rest(server.url, 'GET', `/v1/surveys/${encodeURIComponent('Unit 4/NE corner')}`, {
      key: key.key,
    })
    expect(found.status).toBe(200)
    expect((found.body as { plot_id: string }).plot_id).toBe('Unit 4/NE corner')
  })
})
