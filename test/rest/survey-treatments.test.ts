import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { survivalAtAge } from '../../src/domain/surveys/survival-at-age.ts'
import type { IssuedKey } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { expectError, rest } from './client.ts'

/**
 * Surveyed plots with treatments over HTTP against real PostgreSQL and Redis: kept and shown as sent,
 * predicted treated, refused for drone seeding as a prediction is, read from upload columns, and
 * estimated by a calibration when the plots differ in them.
 */
let db: TestDatabase
let server: TestServer
let mycel: IssuedKey

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, keyCacheMs: 0, calibrationWaitMs: 60_000 })
  mycel = await issueKey(db, 'mycel')
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

const RELEASE = { vegetation_control: 'release_2yr' }

function plot(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    plot_id: 'T-1',
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

type Kept = { plot_id: string; treatments: unknown; predicted_survival: number; age_years: number }

describe('survey plots with treatments', () => {
  it('keeps them as sent, shows them when read, and keeps the treated prediction', async () => {
    const stored = await send(mycel.key, [
      plot({ plot_id: 'treated-1', treatments: { ...RELEASE, animal_protection: null } }),
      plot({ plot_id: 'untreated-1' }),
    ])
    expect(stored.status, stored.text).toBe(200)
    const [treated, untreated] = stored.body.plots as Kept[]
    expect(treated?.treatments).toEqual(RELEASE)
    expect(untreated?.treatments).toBeNull()
    const read = await rest(server.url, 'GET', '/v1/surveys/treated-1', { key: mycel.key })
    expect(read.status, read.text).toBe(200)
    expect(read.body.surveys[0].treatments).toEqual(RELEASE)
    const predicted = await rest(server.url, 'POST', '/v1/predict', {
      key: mycel.key,
      json: {
        ...FOREST_POINTS.coastRange,
        species_code: 'PSME',
        planting_method: 'manual',
        treatments: RELEASE,
      },
    })
    const at = Object.fromEntries(
      (predicted.body.predictions as { horizon_years: number; survival_probability: number }[]).map((p) => [
        p.horizon_years,
        p.survival_probability,
      ]),
    ) as { 1: number; 3: number; 5: number }
    expect(treated?.predicted_survival).toBeCloseTo(survivalAtAge(at, treated?.age_years as number), 12)
    // Vegetation control removes part of a penalty the coast range has: the treated plot is predicted higher.
    expect(treated?.predicted_survival).toBeGreaterThan(untreated?.predicted_survival as number)
  })

  it('refuses a treatment drone seeding does not take as a prediction does, naming the plot', async () => {
    const refused = await send(mycel.key, [
      plot({ plot_id: 'ok' }),
      plot({
        plot_id: 'drone',
        planting_method: 'drone_seeded',
        treatments: { animal_protection: 'mesh_tubes' },
      }),
    ])
    expectError(refused, 422, 'invalid_treatment')
    expect(refused.body.error.details).toMatchObject({ index: 1, field: 'treatments.animal_protection' })
    const unknown = await send(mycel.key, [plot({ treatments: { shade: 'parasol' } })])
    expectError(unknown, 400, 'invalid_request')
    expect(unknown.body.error.details).toMatchObject({ index: 0, field: 'treatments.shade' })
  })

  it('reads the treatment columns of a CSV upload, and refuses a drone row with tubes by its row', async () => {
    const header =
      'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive,vegetation_control,animal_protection'
    const { latitude, longitude } = FOREST_POINTS.coastRange
    const row = (id: string, method: string, vegetation: string, tubes: string) =>
      `${id},${latitude},${longitude},PSME,${method},2021-03-15,2024-03-15,40,30,${vegetation},${tubes}`
    const body = [
      header,
      row('csv-t1', 'manual', 'release_2yr', ''),
      row('csv-t2', 'manual', '', ''),
      row('csv-t3', 'drone_seeded', '', 'mesh_tubes'),
    ].join('\n')
    const uploaded = await rest(server.url, 'POST', '/v1/surveys/uploads?skip_invalid=true', {
      key: mycel.key,
      raw: body,
      contentType: 'text/csv',
    })
    expect(uploaded.status, uploaded.text).toBe(201)
    expect(uploaded.body).toMatchObject({ rows: 3, valid_rows: 2, refused_rows: 1, stored: 2 })
    const refusals = await rest(server.url, 'GET', `/v1/surveys/uploads/${uploaded.body.upload_id}`, {
      key: mycel.key,
    })
    expect(refusals.body.refused).toEqual([
      expect.objectContaining({
        row: 3,
        plot_id: 'csv-t3',
        field: 'treatments.animal_protection',
        code: 'invalid_treatment',
      }),
    ])
    const first = await rest(server.url, 'GET', '/v1/surveys/csv-t1', { key: mycel.key })
    expect(first.body.surveys[0].treatments).toEqual(RELEASE)
    const second = await rest(server.url, 'GET', '/v1/surveys/csv-t2', { key: mycel.key })
    expect(second.body.surveys[0].treatments).toBeNull()
  })

  it('a calibration on plots that differ in treatment reports the effect, prior and posterior', async () => {
    const owner = await issueKey(db, 'mycel')
    const points = [FOREST_POINTS.coastRange, FOREST_POINTS.westCascades]
    const plots = Array.from({ length: 40 }, (_, i) =>
      plot({
        plot_id: `cal-${i}`,
        ...(points[i % 2] as object),
        planted_on: `${2019 + (i % 3)}-03-15`,
        planted: 50,
        alive: 30 + ((i * 7) % 15),
        ...(i % 4 < 2 ? { treatments: RELEASE } : {}),
      }),
    )
    expect((await send(owner.key, plots)).status).toBe(200)
    const made = await rest(server.url, 'POST', '/v1/models/calibrations', { key: owner.key, json: {} })
    expect(made.status, made.text).toBe(201)
    const version = made.body.model_version as string
    const again = await rest(server.url, 'POST', '/v1/models/calibrations', { key: owner.key, json: {} })
    expect(again.body.model_version).toBe(version)
    const model = await rest(server.url, 'GET', `/v1/models/${encodeURIComponent(version)}`, {
      key: owner.key,
    })
    expect(model.status, model.text).toBe(200)
    const effects = model.body.fit.treatment_effects as Record<string, unknown>[]
    expect(effects).toHaveLength(1)
    const [effect] = effects as {
      treatment: string
      values: string[]
      status: string
      plots: number
      prior: { mean: number; sd: number }
      posterior: { mean: number; sd: number; interval: [number, number] }
      moved: number
    }[]
    expect(effect).toMatchObject({ treatment: 'vegetation_control', status: 'estimated', plots: 20 })
    expect(effect?.values).toContain('release_2yr')
    expect(effect?.posterior.sd).toBeLessThan(effect?.prior.sd as number)
    expect(effect?.moved).toBeCloseTo(
      ((effect?.posterior.mean as number) - (effect?.prior.mean as number)) / (effect?.prior.sd as number),
      12,
    )
    // A prediction under the version describes the effect as the version applies it: the posterior.
    const site = { ...FOREST_POINTS.coastRange, species_code: 'PSME', planting_method: 'manual' }
    const predicted = (model_version?: string) =>
      rest(server.url, 'POST', '/v1/predict', {
        key: owner.key,
        json: { ...site, treatments: RELEASE, ...(model_version ? { model_version } : {}) },
      })
    const pinned = await predicted(version)
    const base = await predicted()
    expect(pinned.status, pinned.text).toBe(200)
    const [informed] = pinned.body.treatments.effects as Record<string, unknown>[]
    expect(informed).toMatchObject({
      share_from: 'calibration',
      reduction: effect?.posterior.mean,
      reduction_sd: effect?.posterior.sd,
      reduction_range: effect?.posterior.interval,
    })
    const [reference] = base.body.treatments.effects as Record<string, unknown>[]
    expect(reference).toMatchObject({ share_from: 'reference', reduction: effect?.prior.mean })
    // The reference's odds ratio is the same in both: only the share the model applies moved.
    expect(informed?.odds_ratio).toEqual(reference?.odds_ratio)
    // The cheapest ways to meet the standard say which of their effects the version's surveys informed.
    const optionsUnder = async (model_version?: string) => {
      const found = await rest(server.url, 'POST', '/v1/plans/options', {
        key: owner.key,
        json: {
          ...FOREST_POINTS.coastRange,
          species_mix: [{ species_code: 'PSME', share: 1 }],
          methods: ['manual'],
          treatments: { vegetation_control: ['release_2yr'], animal_protection: ['none'], shade: ['none'] },
          ...(model_version ? { model_version } : {}),
        },
      })
      expect(found.status, found.text).toBe(200)
      const [option] = [...found.body.options, found.body.cheapest_failing].filter(Boolean)
      return option.treatment_effects
    }
    expect(await optionsUnder(version)).toEqual([
      expect.objectContaining({ treatment: 'vegetation_control', share_from: 'calibration' }),
    ])
    expect(await optionsUnder()).toEqual([
      expect.objectContaining({ treatment: 'vegetation_control', share_from: 'reference' }),
    ])
    // The report reads treated and untreated plots of one species × method as one group, under either version.
    for (const query of ['', `?model_version=${encodeURIComponent(version)}`]) {
      const report = await rest(server.url, 'GET', `/v1/surveys/report${query}`, { key: owner.key })
      expect(report.status, report.text).toBe(200)
      expect(report.body.overall.plots).toBe(40)
      expect(report.body.groups.filter((g: { age_band: string | null }) => g.age_band === null)).toHaveLength(
        1,
      )
    }
  })
})
