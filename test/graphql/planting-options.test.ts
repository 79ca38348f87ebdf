import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, type GraphQLResult, graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'

/**
 * GraphQL plantingOptions and StockingPlan.cost on the real stack (PostgreSQL, Redis), and their
 * agreement with POST /v1/plans/options and POST /v1/plans/stocking (docs/costs.md).
 */

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db })
  key = (await issueKey(db, 'hypha')).key
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read freely in tests
type Body = any

const COST = `cost { currency perAcre horizonYears establishedTreesPerAcre perEstablishedTree perEstablishedTreeLower
  perEstablishedTreeUpper intervalLevel leastCertainStatus dataVersion
  parts { item speciesCode unit unitCost quantity perAcre status defaultId priceYear sources { title year } } }`

const OPTION = `mixIndex speciesMix { speciesCode share } plantingMethod vegetationControl animalProtection stockType
  shade treesPerAcre treesPerHectare probability meetsConfidence survivalProbability expectedTreesPerAcre lower
  upper ${COST} treatmentEffects { treatment value effectId status } leastCertainStatus shortfall`

const OPTIONS_QUERY = `query Options($input: PlantingOptionsInput!) { plantingOptions(input: $input) {
  rule { id } confidence maxTreesPerAcre candidates options { ${OPTION} } cheapestFailing { ${OPTION} }
  site { siteId } dataVersion costsDataVersion treatmentsDataVersion notes model { version } } }`

const PLAN_QUERY = `query Plan($input: StockingPlanInput!) { stockingPlan(input: $input) { meetsProbability ${COST} } }`

const point = FOREST_POINTS.coastRange
const PSME = [{ speciesCode: 'PSME', share: 1 }]

const options = (input: Record<string, unknown>) =>
  graphql(server.url, OPTIONS_QUERY, { key, variables: { input: { ...point, speciesMix: PSME, ...input } } })

async function restOptions(body: Record<string, unknown>): Promise<Body> {
  const response = await fetch(`${server.url}/v1/plans/options`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(200)
  return response.json()
}

function expectError(result: GraphQLResult, code: string, status: number) {
  expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(status)
  expect(result.body.data?.plantingOptions ?? null).toBeNull()
  const error = firstError(result)
  expect(error.extensions?.code).toBe(code)
  return error
}

describe('plantingOptions', () => {
  it('answers what POST /v1/plans/options answers', async () => {
    const input = {
      methods: ['MANUAL', 'DRONE_SEEDED'],
      treatments: { vegetationControl: ['NONE', 'RELEASE_2YR'], animalProtection: ['NONE', 'MESH_TUBES'] },
      costs: { tubesPerTree: 2, seedlings: [{ speciesCode: 'PSME', perTree: 0.4 }] },
    }
    const result = await options(input)
    expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(200)
    const found: Body = result.body.data.plantingOptions
    const rest = await restOptions({
      ...point,
      species_mix: [{ species_code: 'PSME', share: 1 }],
      treatments: { vegetation_control: ['none', 'release_2yr'], animal_protection: ['none', 'mesh_tubes'] },
      costs: { tubes_per_tree: 2, seedlings: [{ species_code: 'PSME', per_tree: 0.4 }] },
    })
    // 2 × 2 × 2 (shade) by hand, 2 by drone.
    expect(found.candidates).toBe(10)
    expect(found.candidates).toBe(rest.candidates)
    expect(
      found.options.map((o: Body) => [o.plantingMethod, o.treesPerAcre, o.probability, o.cost.perAcre]),
    ).toEqual(
      rest.options.map((o: Body) => [
        o.planting_method.toUpperCase(),
        o.trees_per_acre,
        o.probability,
        o.cost.per_acre,
      ]),
    )
    const seedlings = found.options
      .flatMap((o: Body) => o.cost.parts)
      .filter((p: Body) => p.item === 'seedlings')
    for (const part of seedlings)
      expect(part).toMatchObject({ unitCost: 0.4, status: 'GIVEN', defaultId: null })
    for (const option of found.options) {
      expect(option.shortfall).toBeNull()
      expect(option.meetsConfidence).toBe(true)
    }
    expect(found.costsDataVersion).toBe(rest.costs_data_version)
  })

  it('speciesMixes, and the cheapest failing option with its shortfall', async () => {
    const result = await options({
      speciesMix: null,
      speciesMixes: [
        { speciesMix: PSME },
        {
          speciesMix: [
            { speciesCode: 'PSME', share: 0.5 },
            { speciesCode: 'THPL', share: 0.5 },
          ],
        },
      ],
      methods: ['MANUAL'],
      treatments: { vegetationControl: ['NONE'], animalProtection: ['NONE'], shade: ['NONE'] },
      maxTreesPerAcre: 150,
    })
    expect(result.status, JSON.stringify(result.body).slice(0, 600)).toBe(200)
    const found: Body = result.body.data.plantingOptions
    expect(found.candidates).toBe(2)
    const failing = found.cheapestFailing
    expect(failing).not.toBeNull()
    expect(failing.treesPerAcre).toBe(150)
    expect(found.options).toEqual([])
    expect(failing.shortfall).toBeCloseTo(0.9 - failing.probability, 4)
  })

  it('refuses bad input with the codes of REST', async () => {
    const both = expectError(await options({ speciesMixes: [{ speciesMix: PSME }] }), 'invalid_request', 400)
    expect(both.extensions?.details?.field).toBe('input.speciesMixes')
    const cost = expectError(await options({ costs: { releasePerAcre: -5 } }), 'invalid_request', 400)
    expect(String(cost.extensions?.details?.field)).toMatch(/releasePerAcre$/)
    const tooMany = expectError(
      await options({
        speciesMix: null,
        speciesMixes: Array.from({ length: 9 }, () => ({ speciesMix: PSME })),
      }),
      'invalid_request',
      400,
    )
    expect(tooMany.extensions?.details?.field).toBe('input.treatments')
    expectError(
      await options({ methods: ['DRONE_SEEDED'], treatments: { animalProtection: ['MESH_TUBES'] } }),
      'invalid_treatment',
      422,
    )
  })
})

describe('StockingPlan.cost', () => {
  it('is answered with the defaults, or the figures given', async () => {
    const plan = (input: Record<string, unknown>) =>
      graphql(server.url, PLAN_QUERY, {
        key,
        variables: {
          input: { ...point, plantingMethod: 'MANUAL', speciesMix: PSME, treesPerAcre: 300, ...input },
        },
      })
    const plain = await plan({})
    expect(plain.status).toBe(200)
    const cost: Body = plain.body.data.stockingPlan.cost
    expect(cost.perAcre).toBe(249)
    expect(cost.parts.map((p: Body) => [p.item, p.status])).toEqual([
      ['seedlings', 'PUBLISHED'],
      ['planting', 'SYNTHESIS'],
    ])
    const given = await plan({ costs: { plantingPerTree: 1 }, treatments: { shade: 'SHADE_CARDS' } })
    const parts = given.body.data.stockingPlan.cost.parts
    expect(parts.find((p: Body) => p.item === 'planting')).toMatchObject({ unitCost: 1, status: 'GIVEN' })
    expect(parts.find((p: Body) => p.item === 'shade_cards')).toMatchObject({
      status: 'ASSUMPTION',
      sources: [],
    })
    expect(given.body.data.stockingPlan.cost.leastCertainStatus).toBe('ASSUMPTION')
  })
})
