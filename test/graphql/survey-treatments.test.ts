import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IssuedKey } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'

/**
 * A surveyed plot's treatments in GraphQL (storeSurveys, surveyPlot) and a calibration's treatment
 * effects (Model.fit.treatmentEffects), on the real stack: the same rules and answers as REST's.
 */
let db: TestDatabase
let server: TestServer
let owner: IssuedKey

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, keyCacheMs: 0, calibrationWaitMs: 60_000 })
  owner = await issueKey(db, 'mycel')
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

const STORE = `mutation Store($plots: [SurveyPlotInput!]!) {
  storeSurveys(plots: $plots) { stored plots { plotId predictedSurvival
    treatments { vegetationControl animalProtection stockType shade } } } }`

const CALIBRATE = `mutation { calibrateModel { status model { version fit { treatmentEffects {
  effectId treatment values factors evidence estimated plots prior { mean sd }
  posterior { mean sd interval } moved note } } } } }`

function plot(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    plotId: 'G-1',
    ...FOREST_POINTS.coastRange,
    speciesCode: 'PSME',
    plantingMethod: 'manual',
    plantedOn: '2021-03-15',
    surveyedOn: '2024-03-15',
    planted: 40,
    alive: 31,
    ...overrides,
  }
}

describe('survey treatments in GraphQL', () => {
  it('stores a plot’s treatments, shows them, and refuses tubes on a drone-seeded plot naming it', async () => {
    const stored = await graphql(server.url, STORE, {
      key: owner.key,
      variables: {
        plots: [plot({ treatments: { vegetationControl: 'RELEASE_2YR' } }), plot({ plotId: 'G-2' })],
      },
    })
    expect(stored.status, JSON.stringify(stored.body)).toBe(200)
    const [treated, untreated] = stored.body.data.storeSurveys.plots
    expect(treated.treatments).toEqual({
      vegetationControl: 'RELEASE_2YR',
      animalProtection: null,
      stockType: null,
      shade: null,
    })
    expect(untreated.treatments).toBeNull()
    expect(treated.predictedSurvival).toBeGreaterThan(untreated.predictedSurvival)
    const refused = await graphql(server.url, STORE, {
      key: owner.key,
      variables: {
        plots: [
          plot({
            plotId: 'G-3',
            plantingMethod: 'drone_seeded',
            treatments: { animalProtection: 'MESH_TUBES' },
          }),
        ],
      },
    })
    const error = firstError(refused)
    expect(error.extensions?.code).toBe('invalid_treatment')
    expect(error.extensions?.details).toMatchObject({ index: 0, field: 'treatments.animal_protection' })
  })

  it('answers a calibration’s treatment effects', async () => {
    const plots = Array.from({ length: 30 }, (_, i) =>
      plot({
        plotId: `cal-${i}`,
        ...(i % 2 === 0 ? FOREST_POINTS.coastRange : FOREST_POINTS.westCascades),
        plantedOn: `${2019 + (i % 3)}-03-15`,
        planted: 50,
        alive: 28 + ((i * 5) % 17),
        ...(i % 4 < 2 ? { treatments: { vegetationControl: 'RELEASE_2YR' } } : {}),
      }),
    )
    const stored = await graphql(server.url, STORE, { key: owner.key, variables: { plots } })
    expect(stored.status, JSON.stringify(stored.body)).toBe(200)
    const made = await graphql(server.url, CALIBRATE, { key: owner.key })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const [effect] = made.body.data.calibrateModel.model.fit.treatmentEffects
    expect(effect).toMatchObject({ treatment: 'vegetation_control', estimated: true, note: null })
    expect(effect.plots).toBeGreaterThan(0)
    expect(effect.posterior.interval).toHaveLength(2)
    expect(effect.moved).toBeCloseTo((effect.posterior.mean - effect.prior.mean) / effect.prior.sd, 12)
  })
})
