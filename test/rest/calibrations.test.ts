import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IssuedKey } from '../../src/types.ts'
import {
  CALIBRATION_POINTS as POINTS,
  calibrationSurveys as surveys,
  CALIBRATION_YEARS as YEARS,
} from '../support/calibration-surveys.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { expectError, expectInvalidRequest, post, rest } from './client.ts'

/**
 * Calibrated versions over HTTP against real PostgreSQL and Redis: a fit on an account's surveys,
 * kept once under its content hash, pinned, made the default, private to the account, and the same
 * after a restart.
 */
let db: TestDatabase
let server: TestServer
let owner: IssuedKey
let other: IssuedKey

const PSME = { latitude: POINTS[0]?.latitude, longitude: POINTS[0]?.longitude, species_code: 'PSME' }

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, keyCacheMs: 0, calibrationWaitMs: 60_000 })
  owner = await issueKey(db, 'mycel')
  other = await issueKey(db, 'mycel')
  const sent = await rest(server.url, 'POST', '/v1/surveys', { key: owner.key, json: { plots: surveys() } })
  expect(sent.status, sent.text).toBe(200)
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

const calibrate = (key: string, json: unknown = {}) =>
  rest(server.url, 'POST', '/v1/models/calibrations', { key, json })

let version: string

describe('POST /v1/models/calibrations', () => {
  it('fits a version on the account’s surveys and answers it at once', async () => {
    const made = await calibrate(owner.key)
    expect(made.status, made.text).toBe(201)
    expect(made.body).toMatchObject({
      status: 'succeeded',
      progress: { stages_done: 6, stages: 6, plots: 288 },
      error: null,
    })
    version = made.body.model_version
    expect(version).toMatch(/^0\.2\+cal\.[0-9a-f]{8}$/)
    expect(made.headers.get('location')).toBe(`/v1/models/${encodeURIComponent(version)}`)
    const model = made.body.model
    expect(model).toMatchObject({ version, kind: 'calibrated', parent: '0.2', default: false })
    const offsets = model.fit.offsets as {
      species_code: string
      planting_method: string
      offset: number
      plots: number
      interval: number[]
    }[]
    expect(offsets).toHaveLength(40)
    const psme = offsets.find((o) => o.species_code === 'PSME' && o.planting_method === 'manual')
    const thpl = offsets.find((o) => o.species_code === 'THPL' && o.planting_method === 'manual')
    expect(psme?.plots).toBe(144)
    expect(psme?.offset).toBeLessThan(-0.8)
    expect(psme?.interval[1]).toBeLessThan(0)
    expect(Math.abs(thpl?.offset ?? 9)).toBeLessThan(Math.abs(psme?.offset ?? 0))
    expect(model.fit.surveys).toMatchObject({ plots: 288, planting_years: YEARS, other_version_plots: 0 })
    // The site data the plots' predictions were made from: the one active version.
    const [active] = await db.sql<{ version: string }[]>`SELECT version FROM site_data_versions WHERE active`
    expect(model.fit.surveys.data_versions).toEqual([active?.version])
    expect(model.fit.terms.planting_year_sd.status).toBe('estimated')
    expect(model.fit.cross_validation).toMatchObject({ folds: 5, plots: 288, beats_base: true })
    expect(model.fit.cross_validation.calibrated.log_loss).toBeLessThan(
      model.fit.cross_validation.base.log_loss,
    )
    expect(model.fit.warnings).toEqual([])
  })

  it('gives the same version for the same surveys, and a status resource to poll', async () => {
    const again = await calibrate(owner.key)
    expect(again.status, again.text).toBe(201)
    expect(again.body.model_version).toBe(version)
    const polled = await rest(server.url, 'GET', again.body.links.self, { key: owner.key })
    expect(polled.status, polled.text).toBe(200)
    expect(polled.body).toMatchObject({ id: again.body.id, status: 'succeeded', model_version: version })
  })

  it('fits on the filter’s plots only', async () => {
    const onlyPsme = await calibrate(owner.key, { species_code: 'PSME', surveyed_from: '2020-01-01' })
    expect(onlyPsme.status, onlyPsme.text).toBe(201)
    expect(onlyPsme.body.model_version).not.toBe(version)
    expect(onlyPsme.body.model.fit.surveys).toMatchObject({
      filter: { species_code: 'PSME', surveyed_from: '2020-01-01' },
      plots: 144,
    })
  })

  it('refuses bad filters, and a filter that keeps too few plots', async () => {
    expectInvalidRequest(await calibrate(owner.key, { species: 'PSME' }), 'species')
    expectInvalidRequest(await calibrate(owner.key, { bbox: [-120, 45, -121, 46] }), 'bbox')
    expectInvalidRequest(await calibrate(owner.key, { surveyed_to: '2024-02-30' }), 'surveyed_to')
    const none = await calibrate(owner.key, { species_code: 'TSHE' })
    expectError(none, 422, 'not_enough_surveys')
    expectError(await calibrate(other.key), 422, 'not_enough_surveys')
    expectError(await calibrate('tsp_live_00000000000000000000000000000000'), 401, 'invalid_api_key')
  })
})

describe('a calibrated version in use', () => {
  it('is listed first, and pins predictions with its shift reported apart from the factors', async () => {
    const listed = await rest(server.url, 'GET', '/v1/models', { key: owner.key })
    expect(listed.body.models[0]).toMatchObject({ kind: 'calibrated' })
    expect(listed.body.models.map((m: { version: string }) => m.version)).toContain(version)
    const base = await post(server.url, '/v1/predict', { ...PSME, planting_method: 'manual' }, owner.key)
    const pinned = await post(
      server.url,
      '/v1/predict',
      { ...PSME, planting_method: 'manual', model_version: version },
      owner.key,
    )
    expect(pinned.status, pinned.text).toBe(200)
    expect(pinned.body.model.version).toBe(version)
    expect(base.body.calibration).toBeUndefined()
    expect(pinned.body.calibration).toMatchObject({ interval_level: 0.9, plots: 144 })
    expect(pinned.body.calibration.offset).toBeLessThan(-0.8)
    expect(pinned.body.predictions[2].survival_probability).toBeLessThan(
      base.body.predictions[2].survival_probability,
    )
    // The factors are the parent's: the shift is not a risk factor.
    expect(pinned.body.predictions[2].risk_factors).toEqual(base.body.predictions[2].risk_factors)
    const compared = await post(
      server.url,
      '/v1/predict/compare',
      { ...PSME, model_version: version },
      owner.key,
    )
    expect(compared.body.calibration.manual.offset).toBe(pinned.body.calibration.offset)
    const ranked = await post(
      server.url,
      '/v1/predict/rank',
      {
        latitude: PSME.latitude,
        longitude: PSME.longitude,
        planting_method: 'manual',
        horizon: 5,
        model_version: version,
      },
      owner.key,
    )
    expect(ranked.body.ranking.every((entry: { calibration?: unknown }) => entry.calibration)).toBe(true)
  })

  it('re-expresses the survey report, so base and calibration compare side by side', async () => {
    const report = (version?: string) =>
      rest(
        server.url,
        'GET',
        `/v1/surveys/report?species_code=PSME${version ? `&model_version=${encodeURIComponent(version)}` : ''}`,
        {
          key: owner.key,
        },
      )
    const base = await report()
    const calibrated = await report(version)
    expect(base.status, base.text).toBe(200)
    expect(calibrated.status, calibrated.text).toBe(200)
    expect(base.body.model_version).toBe('0.2')
    expect(calibrated.body.model_version).toBe(version)
    // The same plots; the calibration predicts them far closer.
    expect(calibrated.body.overall.trees_alive).toBe(base.body.overall.trees_alive)
    expect(base.body.overall.differs).toBe(true)
    expect(Math.abs(calibrated.body.overall.difference)).toBeLessThan(
      Math.abs(base.body.overall.difference) / 4,
    )
    expect(calibrated.body.scores.log_loss).toBeLessThan(base.body.scores.log_loss)
    expectError(
      await rest(server.url, 'GET', `/v1/surveys/report?model_version=${encodeURIComponent(version)}`, {
        key: other.key,
      }),
      422,
      'invalid_model_version',
    )
  })

  it('is another account’s to no one: invalid_model_version, not_found for its calibration', async () => {
    const body = { ...PSME, planting_method: 'manual', model_version: version }
    expectError(await post(server.url, '/v1/predict', body, other.key), 422, 'invalid_model_version')
    expectError(
      await rest(server.url, 'GET', `/v1/models/${encodeURIComponent(version)}`, { key: other.key }),
      422,
      'invalid_model_version',
    )
    const made = await calibrate(owner.key)
    expectError(await rest(server.url, 'GET', made.body.links.self, { key: other.key }), 404, 'not_found')
    expectError(
      await rest(server.url, 'GET', '/v1/models/calibrations/not-a-uuid', { key: owner.key }),
      404,
      'not_found',
    )
  })

  it('becomes the account’s default with PUT /v1/models/default, and stops being it with null', async () => {
    const set = await rest(server.url, 'PUT', '/v1/models/default', {
      key: owner.key,
      json: { model_version: version },
    })
    expect(set.status, set.text).toBe(200)
    expect(set.body).toMatchObject({ version, default: true })
    const unpinned = await post(server.url, '/v1/predict', { ...PSME, planting_method: 'manual' }, owner.key)
    expect(unpinned.body.model.version).toBe(version)
    const others = await post(server.url, '/v1/predict', { ...PSME, planting_method: 'manual' }, other.key)
    expect(others.body.model.version).toBe('0.2')
    expectError(
      await rest(server.url, 'PUT', '/v1/models/default', {
        key: other.key,
        json: { model_version: version },
      }),
      422,
      'invalid_model_version',
    )
    expectInvalidRequest(
      await rest(server.url, 'PUT', '/v1/models/default', { key: owner.key, json: {} }),
      'model_version',
    )
    const cleared = await rest(server.url, 'PUT', '/v1/models/default', {
      key: owner.key,
      json: { model_version: null },
    })
    expect(cleared.body).toMatchObject({ version: '0.2', default: true })
    const back = await post(server.url, '/v1/predict', { ...PSME, planting_method: 'manual' }, owner.key)
    expect(back.body.model.version).toBe('0.2')
  })

  it('answers byte for byte the same after 10 further calibrations and a restart', async () => {
    const timeless = (text: string) => text.replace(/"generated_at":"[^"]+"/g, '')
    const asked = [
      ['/v1/predict', { ...PSME, planting_method: 'manual', model_version: version }],
      ['/v1/predict/compare', { ...PSME, model_version: version }],
      [
        '/v1/plans/stocking',
        {
          latitude: PSME.latitude,
          longitude: PSME.longitude,
          planting_method: 'manual',
          species_mix: [{ species_code: 'PSME', share: 1 }],
          trees_per_acre: 300,
          model_version: version,
        },
      ],
    ] as const
    const answers = async () =>
      Promise.all(
        asked.map(async ([path, body]) => timeless((await post(server.url, path, body, owner.key)).text)),
      )
    const before = await answers()
    const made = new Set<string>([version])
    for (let k = 0; k < 10; k++) {
      const more = await rest(server.url, 'POST', '/v1/surveys', {
        key: owner.key,
        json: {
          plots: [
            {
              plot_id: `late-${k}`,
              ...POINTS[k + 1],
              species_code: 'PSME',
              planting_method: 'manual',
              planted_on: '2021-03-01',
              surveyed_on: '2024-03-01',
              planted: 50,
              alive: 45 - k,
            },
          ],
        },
      })
      expect(more.status, more.text).toBe(200)
      const newer = await calibrate(owner.key)
      expect(newer.status, newer.text).toBe(201)
      made.add(newer.body.model_version)
    }
    expect(made.size).toBe(11)
    expect(await answers()).toEqual(before)
    await server.close()
    server = await startTestServer({ database: db, keyCacheMs: 0, calibrationWaitMs: 60_000 })
    expect(await answers()).toEqual(before)
  })

  it('fits on one snapshot of surveys that change while it starts', async () => {
    const listed = await rest(server.url, 'GET', '/v1/surveys/report', { key: owner.key })
    const held = listed.body.overall.plots as number
    const batch = POINTS.slice(0, 20).map((point, i) => ({
      plot_id: `during-${i}`,
      ...point,
      species_code: 'THPL',
      planting_method: 'manual',
      planted_on: '2019-03-01',
      surveyed_on: '2022-03-01',
      planted: 40,
      alive: 30,
    }))
    const [stored, made] = await Promise.all([
      rest(server.url, 'POST', '/v1/surveys', { key: owner.key, json: { plots: batch } }),
      calibrate(owner.key),
    ])
    expect(stored.status, stored.text).toBe(200)
    expect(made.status, made.text).toBe(201)
    expect([held, held + batch.length]).toContain(made.body.model.fit.surveys.plots)
  })

  it('records calibrations and default changes in the audit log', async () => {
    const log = await rest(server.url, 'GET', '/v1/audit', { key: owner.key })
    const kinds = (log.body.events as { kind: string }[]).map((event) => event.kind)
    expect(kinds).toContain('model.calibrated')
    expect(kinds).toContain('model.default_set')
  })
})
