import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { seedAll } from '../../src/seed/seed-all.ts'
import { calibrationSurveys } from '../support/calibration-surveys.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { forestGrid } from '../support/sites.ts'
import { rest } from './client.ts'

/** Surveys on the embedded path (`npm start` without configuration: PGlite, no Redis): the same SQL. */
let db: Database
let server: TestServer

beforeAll(async () => {
  db = await openDatabase({ DATABASE_URL: undefined, DB_POOL_MAX: 1 })
  expect(db.mode).toBe('embedded')
  await migrate(db.sql)
  await seedAll(db.sql)
  server = await startTestServer({ database: db, quota: 'memory', calibrationWaitMs: 60_000 })
}, 180_000)

afterAll(async () => {
  await server?.close()
  await db?.close()
})

describe('surveys on the embedded store', () => {
  it('stores, lists, reports and deletes plots', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    const plots = forestGrid(6).map((point, i) => ({
      plot_id: `e-${i}`,
      ...point,
      species_code: 'PSME',
      planting_method: 'manual',
      planted_on: '2021',
      surveyed_on: '2024-05-01',
      planted: 50,
      alive: 30 + i,
    }))
    const stored = await rest(server.url, 'POST', '/v1/surveys', { key, json: { plots } })
    expect(stored.status, stored.text).toBe(200)
    const page = await rest(server.url, 'GET', '/v1/surveys?limit=4', { key })
    const body = page.body as { plots: { plot_id: string }[]; next_cursor: string | null }
    expect(body.plots.map((p) => p.plot_id)).toEqual(['e-0', 'e-1', 'e-2', 'e-3'])
    const rest2 = await rest(server.url, 'GET', `/v1/surveys?cursor=${body.next_cursor}`, { key })
    expect((rest2.body as { plots: unknown[] }).plots).toHaveLength(2)
    const report = await rest(server.url, 'GET', '/v1/surveys/report', { key })
    expect((report.body as { overall: { plots: number; trees_alive: number } }).overall).toMatchObject({
      plots: 6,
      trees_alive: 6 * 30 + 15,
    })
    expect((await rest(server.url, 'DELETE', '/v1/surveys?confirm=all', { key })).body).toEqual({
      deleted: 6,
    })
  })

  it('stores an upload atomically, and lists its refused rows', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    const header =
      'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive'
    const rows = forestGrid(3).map(
      (point, i) =>
        `u-${i},${point.latitude},${point.longitude},PSME,manual,2021,2024-05-01,50,${i === 2 ? 51 : 40}`,
    )
    const refused = await rest(server.url, 'POST', '/v1/surveys/uploads', {
      key,
      raw: [header, ...rows].join('\n'),
      contentType: 'text/csv',
    })
    expect(refused.status, refused.text).toBe(422)
    expect((await rest(server.url, 'GET', '/v1/surveys', { key })).body.plots).toEqual([])
    const stored = await rest(server.url, 'POST', '/v1/surveys/uploads?skip_invalid=true', {
      key,
      raw: [header, ...rows].join('\n'),
      contentType: 'text/csv',
    })
    expect(stored.status, stored.text).toBe(201)
    expect(stored.body).toMatchObject({ stored: 2, refused_rows: 1, refused: [{ row: 3, field: 'alive' }] })
    const again = await rest(server.url, 'GET', `/v1/surveys/uploads/${stored.body.upload_id}`, { key })
    expect(again.body.refused).toEqual(stored.body.refused)
  })

  it('takes an upload through a GraphQL ticket, once', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    const ticket = await graphql(server.url, 'mutation { surveyUploadTicket { path } }', { key })
    const path = ticket.body.data.surveyUploadTicket.path as string
    const [point] = forestGrid(1)
    const body = [
      'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive',
      `t-0,${point?.latitude},${point?.longitude},PSME,manual,2021,2024-05-01,50,40`,
    ].join('\n')
    const stored = await rest(server.url, 'POST', path, { raw: body, contentType: 'text/csv' })
    expect(stored.status, stored.text).toBe(201)
    expect(stored.body).toMatchObject({ stored: 1 })
    const again = await rest(server.url, 'POST', path, { raw: body, contentType: 'text/csv' })
    expect(again.status).toBe(404)
  })

  it('calibrates a version on the surveys, pins it and makes it the default', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    const plots = calibrationSurveys().slice(0, 96)
    expect((await rest(server.url, 'POST', '/v1/surveys', { key, json: { plots } })).status).toBe(200)
    const made = await rest(server.url, 'POST', '/v1/models/calibrations', { key, json: {} })
    expect(made.status, made.text).toBe(201)
    const version = made.body.model_version as string
    expect(version).toMatch(/^0\.2\+cal\.[0-9a-f]{8}$/)
    expect(made.body.model.fit.surveys.plots).toBe(96)
    const point = plots[0] as { latitude: number; longitude: number }
    const body = {
      latitude: point.latitude,
      longitude: point.longitude,
      species_code: 'PSME',
      planting_method: 'manual',
    }
    const pinned = await rest(server.url, 'POST', '/v1/predict', {
      key,
      json: { ...body, model_version: version },
    })
    expect(pinned.body).toMatchObject({ model: { version }, calibration: { plots: 48 } })
    const set = await rest(server.url, 'PUT', '/v1/models/default', { key, json: { model_version: version } })
    expect(set.body).toMatchObject({ version, default: true })
    expect((await rest(server.url, 'POST', '/v1/predict', { key, json: body })).body.model.version).toBe(
      version,
    )
  })
})
