import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, WASHINGTON_POINTS } from '../support/sites.ts'
import { rest } from './client.ts'

/*
 * Answers without `treatments`, byte for byte as they were before treatments existed: the bodies of
 * these requests were recorded from the code of that time (test/rest/golden/untreated.json) and every
 * answer must still be exactly that text, but for the moment it was made. Record again only for a
 * change meant to alter untreated answers: GOLDEN_RECORD=1 npx vitest run test/rest/untreated-golden.test.ts
 */

const GOLDEN = new URL('./golden/untreated.json', import.meta.url)
const RECORD = process.env.GOLDEN_RECORD === '1'

const { coastRange, westCascades, eastCascades } = FOREST_POINTS
const FUTURE = { period: '2041-2070', scenario: 'ssp370' }
const STAND = {
  type: 'Polygon',
  coordinates: [
    [
      [-123.66, 44.56],
      [-123.54, 44.56],
      [-123.54, 44.64],
      [-123.66, 44.64],
      [-123.66, 44.56],
    ],
  ],
}

const REST_REQUESTS: [string, unknown][] = [
  ['/v1/predict', { ...coastRange, species_code: 'PSME', planting_method: 'manual' }],
  [
    '/v1/predict',
    { ...eastCascades, species_code: 'PIPO', planting_method: 'drone_seeded', horizons: [5, 1] },
  ],
  ['/v1/predict', { ...westCascades, species_code: 'THPL', planting_method: 'manual', climate: FUTURE }],
  ['/v1/predict/compare', { ...westCascades, species_code: 'TSHE' }],
  ['/v1/predict/compare', { ...eastCascades, species_code: 'PIPO', climate: FUTURE, horizons: [3] }],
  ['/v1/predict/rank', { ...coastRange, planting_method: 'manual', horizon: 5 }],
  ['/v1/predict/rank', { ...WASHINGTON_POINTS.eastCascades, planting_method: 'drone_seeded', horizon: 1 }],
  [
    '/v1/predict/batch',
    {
      sites: [
        { ...coastRange, species_code: 'PSME', planting_method: 'manual' },
        { ...eastCascades, species_code: 'PICO', planting_method: 'drone_seeded', climate: FUTURE },
        { latitude: 43.615, longitude: -116.202, species_code: 'PSME', planting_method: 'manual' },
        { ...westCascades, species_code: 'ABPR', planting_method: 'manual', horizons: [3] },
      ],
    },
  ],
  [
    '/v1/plans/stocking',
    {
      ...coastRange,
      planting_method: 'manual',
      species_mix: [{ species_code: 'PSME', share: 1 }],
      trees_per_acre: 300,
    },
  ],
  [
    '/v1/plans/stocking',
    {
      stand: STAND,
      planting_method: 'drone_seeded',
      species_mix: [
        { species_code: 'PSME', share: 0.7 },
        { species_code: 'ALRU', share: 0.3 },
      ],
      trees_per_acre: 600,
      confidence: 0.8,
      climate: FUTURE,
    },
  ],
]

const GRAPHQL_QUERY = `{
  predict(input: { latitude: 44.6, longitude: -123.6, speciesCode: "PSME", plantingMethod: MANUAL }) {
    predictions { horizonYears survivalProbability logOdds baselineLogOdds
      allFactors { key factor contribution impact magnitude }
      survivalInterval(level: 0.8) { lower upper level } }
    survivalInterval { horizonYears lower upper level }
  }
  compareMethods(input: { latitude: 44.2, longitude: -122.2, speciesCode: "TSHE" }) {
    methodDifferential { horizonYears manual droneSeeded difference }
    droneSeeded { riskFactors { key contribution } survivalInterval { lower upper } }
  }
  speciesRanking(latitude: 44.0, longitude: -121.6, plantingMethod: MANUAL, horizon: 3) {
    ranking { rank survivalProbability topFactor { key contribution } species { code } }
  }
  stockingPlan(input: { latitude: 44.6, longitude: -123.6, plantingMethod: MANUAL,
      speciesMix: [{ speciesCode: "PSME", share: 1 }], treesPerAcre: 250 }) {
    horizons { horizonYears survivalProbability lower upper expectedTreesPerAcre }
    meetsProbability requiredTreesPerAcre ninetyPercentHalfWidthShare notes
  }
}`

/**
 * The answer's text with its moments replaced (when it was made, and when the caller's quota day
 * ends): the only parts that may differ between two runs.
 */
const timeless = (text: string) =>
  text.replace(/"(generated_at|generatedAt|resetAt)":"[^"]+"/g, '"$1":"(moment)"')

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({}, 'hypha'))
})

afterAll(() => stopSeededServer({ db, server }))

describe('answers without treatments', () => {
  it('are byte for byte those recorded before treatments existed', async () => {
    const answers: { request: string; status: number; body: string }[] = []
    for (const [path, body] of REST_REQUESTS) {
      const result = await rest(server.url, 'POST', path, { json: body, key })
      answers.push({
        request: `POST ${path} ${JSON.stringify(body)}`,
        status: result.status,
        body: timeless(result.text),
      })
    }
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: GRAPHQL_QUERY }),
    })
    answers.push({ request: 'POST /graphql', status: response.status, body: timeless(await response.text()) })
    // Every request answered as it should, so the golden holds real answers (one batch item is outside).
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200))
    expect((await graphql(server.url, GRAPHQL_QUERY, { key })).body.errors).toBeUndefined()

    if (RECORD) writeFileSync(GOLDEN, `${JSON.stringify(answers, null, 2)}\n`)
    const recorded = JSON.parse(readFileSync(GOLDEN, 'utf8')) as typeof answers
    expect(answers.length).toBe(recorded.length)
    answers.forEach((answer, i) => {
      expect(answer).toEqual(recorded[i])
    })
  })
})
