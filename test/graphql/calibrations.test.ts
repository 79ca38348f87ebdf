import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IssuedKey } from '../../src/types.ts'
import { rest } from '../rest/client.ts'
import { CALIBRATION_POINTS, calibrationSurveys } from '../support/calibration-surveys.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** Calibrations over GraphQL: the same operations as REST, and the shift on each prediction. */
let db: TestDatabase
let server: TestServer
let owner: IssuedKey
let other: IssuedKey

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, keyCacheMs: 0, calibrationWaitMs: 60_000 })
  owner = await issueKey(db, 'mycel')
  other = await issueKey(db, 'mycel')
  const sent = await rest(server.url, 'POST', '/v1/surveys', {
    key: owner.key,
    json: { plots: calibrationSurveys() },
  })
  expect(sent.status, sent.text).toBe(200)
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

const CALIBRATE = `mutation($filter: SurveyFilterInput) {
  calibrateModel(filter: $filter) {
    id status stagesDone stages plots errorMessage
    filter { speciesCode plantingMethod bbox surveyedFrom surveyedTo }
    model {
      version kind parent isDefault uncertainty { status }
      fit {
        method intervalLevel plots trees plantingYears
        offsets { speciesCode plantingMethod offset interval ownEstimate shrinkage plots trees }
        plantingYearSd { value status interval } siteSd { value status } clumpingDispersion { value status }
        crossValidation { folds plots beatsBase base { logLoss brier calibrationInTheLarge calibrationSlope } calibrated { logLoss } }
        notes warnings
      }
    }
  }
}`
const { latitude, longitude } = CALIBRATION_POINTS[0] as { latitude: number; longitude: number }
const PREDICT = `query($version: String) {
  predict(input: { latitude: ${latitude}, longitude: ${longitude}, speciesCode: "PSME", plantingMethod: MANUAL, modelVersion: $version }) {
    model { version kind }
    predictions { survivalProbability baselineLogOdds logOdds allFactors { contribution }
      calibration { offset interval intervalLevel plots trees } }
  }
}`

let version: string

describe('calibrateModel, calibration(id), setDefaultModel', () => {
  it('fits a version and answers it with its fit', async () => {
    const made = await graphql(server.url, CALIBRATE, { key: owner.key })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const run = made.body.data.calibrateModel
    expect(run).toMatchObject({
      status: 'SUCCEEDED',
      stagesDone: 6,
      stages: 6,
      plots: 288,
      errorMessage: null,
    })
    version = run.model.version
    expect(version).toMatch(/^0\.2\+cal\.[0-9a-f]{8}$/)
    expect(run.model).toMatchObject({ kind: 'CALIBRATED', parent: '0.2', isDefault: false })
    expect(run.model.fit.offsets).toHaveLength(40)
    expect(run.model.fit.crossValidation).toMatchObject({ folds: 5, plots: 288, beatsBase: true })
    // The same as REST answers for the same surveys.
    const viaRest = await rest(server.url, 'POST', '/v1/models/calibrations', { key: owner.key, json: {} })
    expect(viaRest.body.model_version).toBe(version)
    const polled = await graphql(
      server.url,
      `{ calibration(id: "${run.id}") { id status model { version } } }`,
      {
        key: owner.key,
      },
    )
    expect(polled.body.data.calibration).toEqual({ id: run.id, status: 'SUCCEEDED', model: { version } })
  })

  it('pins predictions; the shift is in the baseline, and the factors still add up', async () => {
    const base = await graphql(server.url, PREDICT, { key: owner.key })
    const pinned = await graphql(server.url, PREDICT, { key: owner.key, variables: { version } })
    expect(pinned.status, JSON.stringify(pinned.body)).toBe(200)
    expect(pinned.body.data.predict.model).toEqual({ version, kind: 'CALIBRATED' })
    const [before, after] = [base.body.data.predict.predictions, pinned.body.data.predict.predictions]
    for (let h = 0; h < 3; h++) {
      const shift = after[h].calibration
      expect(before[h].calibration).toBeNull()
      expect(shift).toMatchObject({ intervalLevel: 0.9, plots: 144 })
      expect(after[h].logOdds).toBeCloseTo(before[h].logOdds + shift.offset, 12)
      expect(after[h].baselineLogOdds).toBeCloseTo(before[h].baselineLogOdds + shift.offset, 12)
      const sum = after[h].allFactors.reduce(
        (total: number, f: { contribution: number }) => total + f.contribution,
        0,
      )
      expect(after[h].baselineLogOdds + sum).toBeCloseTo(after[h].logOdds, 10)
      expect(after[h].allFactors).toEqual(before[h].allFactors)
    }
  })

  it('draws the survival map with it, and composes with a future climate', async () => {
    const map = (extra: string) =>
      graphql(
        server.url,
        `{ survivalMap(speciesCode: "PSME", plantingMethod: MANUAL, horizon: 5, cellKm: 100${extra}) { siteCount cells { h3Index meanSurvival } model { version } } }`,
        { key: owner.key },
      )
    const base = (await map('')).body.data.survivalMap
    const calibrated = (await map(`, modelVersion: "${version}"`)).body.data.survivalMap
    expect(calibrated.model.version).toBe(version)
    expect(calibrated.siteCount).toBe(base.siteCount)
    const mean = (cells: { meanSurvival: number }[]) =>
      cells.reduce((sum, c) => sum + c.meanSurvival, 0) / cells.length
    expect(mean(calibrated.cells)).toBeLessThan(mean(base.cells))
    const future = await graphql(
      server.url,
      `{ predict(input: { latitude: ${latitude}, longitude: ${longitude}, speciesCode: "PSME", plantingMethod: MANUAL, modelVersion: "${version}", climate: { period: "2071-2100", scenario: "ssp585" } }) { model { version } climate { period } predictions { logOdds calibration { offset } } } }`,
      { key: owner.key },
    )
    const today = await graphql(server.url, PREDICT, { key: owner.key, variables: { version } })
    const projected = future.body.data.predict
    expect(projected.model.version).toBe(version)
    expect(projected.climate.period).toBe('2071-2100')
    expect(projected.predictions[0].calibration.offset).toBe(
      today.body.data.predict.predictions[0].calibration.offset,
    )
    expect(projected.predictions[2].logOdds).not.toBe(today.body.data.predict.predictions[2].logOdds)
  })

  it('keeps versions and calibrations to their account', async () => {
    const pinned = await graphql(server.url, PREDICT, { key: other.key, variables: { version } })
    expect(firstError(pinned).extensions?.code).toBe('invalid_model_version')
    const runs = await graphql(server.url, CALIBRATE, { key: other.key })
    expect(firstError(runs).extensions?.code).toBe('not_enough_surveys')
    const missing = await graphql(
      server.url,
      '{ calibration(id: "00000000-0000-4000-8000-000000000000") { id } }',
      { key: owner.key },
    )
    expect(firstError(missing).extensions?.code).toBe('not_found')
  })

  it('sets and clears the account default', async () => {
    const set = await graphql(
      server.url,
      'mutation($v: String) { setDefaultModel(modelVersion: $v) { version isDefault } }',
      { key: owner.key, variables: { v: version } },
    )
    expect(set.body.data.setDefaultModel).toEqual({ version, isDefault: true })
    const unpinned = await graphql(server.url, PREDICT, { key: owner.key })
    expect(unpinned.body.data.predict.model.version).toBe(version)
    const cleared = await graphql(
      server.url,
      'mutation { setDefaultModel(modelVersion: null) { version isDefault } }',
      {
        key: owner.key,
      },
    )
    expect(cleared.body.data.setDefaultModel).toEqual({ version: '0.2', isDefault: true })
  })

  it('runs calibrateModel once per operation', async () => {
    const twice = await graphql(
      server.url,
      'mutation { a: calibrateModel { id } b: calibrateModel { id } }',
      {
        key: owner.key,
      },
    )
    expect(firstError(twice).extensions?.code).toBe('invalid_request')
  })
})
