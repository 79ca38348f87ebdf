import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { firstError, graphql } from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'

/** Model versions over GraphQL: models, model(version), and modelVersion on each prediction field. */
let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({}, 'mycel'))
})

afterAll(() => stopSeededServer({ db, server }))

const { latitude, longitude } = FOREST_POINTS.coastRange
const MODEL =
  'version series codename kind parent createdAt isDefault uncertainty { plantingYearSd siteSd clumpingDispersion status }'
const BASE = {
  version: '0.2',
  series: 'mycel',
  codename: 'chanterelle',
  kind: 'BASE',
  parent: null,
  createdAt: '2026-11-24T00:00:00.000Z',
  isDefault: true,
  uncertainty: { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2, status: 'assumption' },
}

describe('models and model(version)', () => {
  it('lists the versions as GET /v1/models does; model alone is public, model(version) needs a key', async () => {
    const listed = await graphql(server.url, `{ models { ${MODEL} } }`, { key })
    expect(listed.body.data).toEqual({ models: [BASE] })
    const current = await graphql(server.url, `{ model { ${MODEL} } }`)
    expect(current.body.data).toEqual({ model: BASE })
    const named = await graphql(server.url, `{ model(version: "0.2") { version } }`, { key })
    expect(named.body.data).toEqual({ model: { version: '0.2' } })
    expect(
      firstError(await graphql(server.url, '{ model(version: "0.2") { version } }')).extensions?.code,
    ).toBe('invalid_api_key')
    const unknown = await graphql(server.url, '{ model(version: "9.9") { version } }', { key })
    expect(firstError(unknown).extensions).toMatchObject({
      code: 'invalid_model_version',
      details: { model_version: '9.9' },
    })
  })

  it('describes the model an answer names with the same fields', async () => {
    const result = await graphql(
      server.url,
      `{ predict(input: { latitude: ${latitude}, longitude: ${longitude}, speciesCode: "PSME", plantingMethod: MANUAL }) { model { ${MODEL} } } }`,
      { key },
    )
    expect(result.body.data).toEqual({ predict: { model: BASE } })
  })
})

describe('modelVersion on every prediction field', () => {
  const site = `latitude: ${latitude}, longitude: ${longitude}`
  const fields = (version: string) => [
    `predict(input: { ${site}, speciesCode: "PSME", plantingMethod: MANUAL${version} }) { predictions { survivalProbability logOdds survivalInterval { lower upper } } model { version } }`,
    `compareMethods(input: { ${site}, speciesCode: "PSME"${version} }) { manual { survivalProbability } droneSeeded { survivalProbability } model { version } }`,
    `speciesRanking(${site}, plantingMethod: MANUAL, horizon: 5${version}) { ranking { rank survivalProbability species { code } } model { version } }`,
    `predictBatch(sites: [{ ${site}, speciesCode: "PSME", plantingMethod: "manual" }]${version}) { index error { code } prediction { predictions { survivalProbability } } }`,
    `stockingPlan(input: { ${site}, plantingMethod: MANUAL, speciesMix: [{ speciesCode: "PSME", share: 1 }], treesPerAcre: 300${version} }) { meetsProbability horizons { horizonYears expectedTreesPerAcre } model { version } }`,
    `survivalMap(speciesCode: "PSME", plantingMethod: MANUAL, horizon: 5, cellKm: 100${version}) { siteCount cells { h3Index meanSurvival } model { version } }`,
  ]

  it('pinned to the base version, each answers exactly as without a version', async () => {
    const plain = fields('')
    const pinned = fields(', modelVersion: "0.2"')
    for (const [index, field] of plain.entries()) {
      const without = await graphql(server.url, `{ ${field} }`, { key })
      const withVersion = await graphql(server.url, `{ ${pinned[index]} }`, { key })
      expect(without.body.errors, JSON.stringify(without.body.errors)).toBeUndefined()
      expect(withVersion.body.data).toEqual(without.body.data)
    }
  })

  it('an unknown version is invalid_model_version on each', async () => {
    for (const field of fields(', modelVersion: "9.9"')) {
      const result = await graphql(server.url, `{ ${field} }`, { key })
      expect(firstError(result).extensions, field).toMatchObject({ code: 'invalid_model_version' })
    }
    const tooLong = await graphql(server.url, `{ ${fields(`, modelVersion: "${'v'.repeat(65)}"`)[0]} }`, {
      key,
    })
    expect(firstError(tooLong).extensions?.code).toBe('invalid_request')
  })
})
