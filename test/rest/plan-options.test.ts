import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadOpenApiDocument, OpenApiValidator } from '../openapi/openapi-validator.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import { expectError, expectInvalidRequest, type RestResult, rest } from './client.ts'

/**
 * Costs and the cheapest ways to meet the standard end to end (docs/costs.md): POST /v1/plans/options
 * and the `cost` block of POST /v1/plans/stocking, on a throwaway PostgreSQL database and the test
 * Redis. Every answer is checked against schema/openapi.yaml.
 */

const OPTIONS = '/v1/plans/options'
const STOCKING = '/v1/plans/stocking'
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read freely in tests
type Body = any

let db: TestDatabase
let server: TestServer
let key: string
let validator: OpenApiValidator

beforeAll(async () => {
  validator = new OpenApiValidator(loadOpenApiDocument())
  ;({ db, server, key } = await startSeededServer({}, 'hypha'))
})

afterAll(() => stopSeededServer({ db, server }))

async function post(path: string, body: unknown, withKey: string = key): Promise<RestResult> {
  const result = await rest(server.url, 'POST', path, { json: body, key: withKey })
  expect(validator.check('POST', path, result), result.text.slice(0, 500)).toEqual([])
  return result
}

const PSME_ONLY = [{ species_code: 'PSME', share: 1 }]
const point = FOREST_POINTS.coastRange
const optionsBody = (overrides: Record<string, unknown> = {}) => ({
  ...point,
  species_mix: PSME_ONLY,
  ...overrides,
})
const planBody = (overrides: Record<string, unknown> = {}) => ({
  ...point,
  planting_method: 'manual',
  species_mix: PSME_ONLY,
  trees_per_acre: 300,
  ...overrides,
})

describe('POST /v1/plans/options', () => {
  it('ranks every method and treatment combination by cost, each option a plan at its density', async () => {
    const result = await post(OPTIONS, optionsBody())
    expect(result.status, result.text).toBe(200)
    const body: Body = result.body
    expect(body.candidates).toBe(30)
    expect(body.site.site_id).toEqual(expect.any(Number))
    expect(result.headers.get('survival-data-version')).toBe(body.data_version)
    expect(body.costs_data_version).toMatch(/^costs-[0-9a-f]{12}$/)
    const costs = body.options.map((o: Body) => o.cost.per_acre)
    expect(costs).toEqual([...costs].sort((a: number, b: number) => a - b))
    for (const option of body.options) expect(option.probability).toBeGreaterThanOrEqual(0.9)
    // The cheapest option, asked for as a plan at its density, gives the same numbers and cost.
    const best: Body = body.options[0]
    const plan = await post(
      STOCKING,
      planBody({
        planting_method: best.planting_method,
        trees_per_acre: best.trees_per_acre,
        treatments: best.treatments,
        costs: {},
      }),
    )
    expect(plan.status, plan.text).toBe(200)
    expect(plan.body.meets_standard.probability).toBe(best.probability)
    expect(plan.body.required.trees_per_acre).toBe(best.trees_per_acre)
    expect(plan.body.cost).toEqual(best.cost)
    const again = await post(OPTIONS, optionsBody())
    const { generated_at: _a, ...first } = body
    const { generated_at: _b, ...second } = again.body
    expect(second).toEqual(first)
  })

  it('answers the cheapest failing option under a density ceiling, and takes cost overrides', async () => {
    const result = await post(
      OPTIONS,
      optionsBody({
        max_trees_per_acre: 150,
        methods: ['manual'],
        treatments: {
          vegetation_control: ['none', 'release_2yr'],
          animal_protection: ['none'],
          shade: ['none'],
        },
        costs: { planting_per_tree: 0.8, release_per_acre: 100 },
      }),
    )
    expect(result.status, result.text).toBe(200)
    const body: Body = result.body
    expect(body.candidates).toBe(2)
    const all = [...body.options, ...(body.cheapest_failing ? [body.cheapest_failing] : [])]
    for (const option of all) {
      const planting = option.cost.parts.find((p: Body) => p.item === 'planting')
      expect(planting).toMatchObject({ unit_cost: 0.8, status: 'given', default_id: null })
    }
    // Below the standard's minimum no candidate can meet it: the cheapest failing one is answered.
    expect(body.options).toEqual([])
    expect(body.cheapest_failing.trees_per_acre).toBe(150)
    expect(body.cheapest_failing.treatments.vegetation_control).toBe('none')
    expect(body.cheapest_failing.shortfall).toBeCloseTo(0.9 - body.cheapest_failing.probability, 4)
  })

  it('refuses every bad input, naming it', async () => {
    const refused = async (overrides: Record<string, unknown>, field: string) =>
      expectInvalidRequest(await post(OPTIONS, optionsBody(overrides)), field)
    await refused({ species_mixes: [PSME_ONLY] }, 'species_mixes')
    await refused({ species_mix: null }, 'species_mix')
    await refused(
      { species_mix: null, species_mixes: Array.from({ length: 11 }, () => PSME_ONLY) },
      'species_mixes',
    )
    await refused({ methods: ['manual', 'manual'] }, 'methods[1]')
    await refused({ treatments: { shade: ['parasol'] } }, 'treatments.shade[0]')
    await refused({ treatments: { mulch: ['none'] } }, 'treatments.mulch')
    await refused({ costs: { tubes_per_tree: -1 } }, 'costs.tubes_per_tree')
    await refused({ costs: { labour: 1 } }, 'costs.labour')
    await refused({ max_trees_per_acre: 0 }, 'max_trees_per_acre')
    await refused({ confidence: 0.3 }, 'confidence')
    const tooMany = await refused(
      { species_mix: null, species_mixes: Array.from({ length: 9 }, () => PSME_ONLY) },
      'treatments',
    )
    expect(tooMany.message).toMatch(/270 candidates/)
    expectError(await post(OPTIONS, optionsBody({ methods: ['helicopter'] })), 422, 'invalid_method')
    const drone = expectError(
      await post(OPTIONS, optionsBody({ methods: ['drone_seeded'], treatments: { shade: ['shade_cards'] } })),
      422,
      'invalid_treatment',
    )
    expect(drone.details).toEqual({
      treatment: 'shade',
      value: 'shade_cards',
      planting_method: 'drone_seeded',
    })
    expectError(
      await post(OPTIONS, { ...OUTSIDE_POINTS.boise, species_mix: PSME_ONLY }),
      422,
      'outside_coverage',
    )
  })

  it('counts one request, whatever the number of candidates', async () => {
    const { key: spore } = await issueKey(db, 'spore')
    const first = await post(OPTIONS, optionsBody(), spore)
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99')
    const refused = await post(OPTIONS, optionsBody({ max_trees_per_acre: -1 }), spore)
    expect(refused.status).toBe(400)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('98')
  })
})

describe('the cost of a stocking plan', () => {
  it('is absent from an untreated plan without costs, so its answer is as before', async () => {
    const result = await post(STOCKING, planBody())
    expect(result.status).toBe(200)
    expect(result.body).not.toHaveProperty('cost')
    const allNone = await post(STOCKING, planBody({ treatments: { vegetation_control: 'none' } }))
    expect(allNone.body).not.toHaveProperty('cost')
  })

  it('is there when asked for with costs (even {}), or for a treated plan', async () => {
    const asked = await post(STOCKING, planBody({ costs: {} }))
    expect(asked.status, asked.text).toBe(200)
    const cost: Body = asked.body.cost
    expect(cost.parts.map((p: Body) => [p.item, p.unit_cost, p.quantity, p.status])).toEqual([
      ['seedlings', 0.37, 300, 'published'],
      ['planting', 0.46, 300, 'synthesis'],
    ])
    expect(cost.per_acre).toBe(249)
    const fiveYears = asked.body.horizons.find((h: Body) => h.horizon_years === asked.body.rule.horizon_years)
    expect(cost.per_established_tree).toBeCloseTo(249 / (300 * fiveYears.survival_probability), 3)
    expect(cost.per_established_tree_interval).toEqual({
      lower: Math.round((249 / fiveYears.upper) * 1000) / 1000,
      upper: Math.round((249 / fiveYears.lower) * 1000) / 1000,
      level: 0.9,
    })
    const treated = await post(STOCKING, planBody({ treatments: { animal_protection: 'mesh_tubes' } }))
    expect(treated.body.cost.parts.find((p: Body) => p.item === 'tubes')).toMatchObject({
      unit_cost: 3.5,
      status: 'assumption',
      default_id: 'tubes_installed',
    })
    expect(treated.body.cost.least_certain_status).toBe('assumption')
    const given = await post(
      STOCKING,
      planBody({ costs: { seedlings: [{ species_code: 'PSME', per_tree: 0.5 }] } }),
    )
    expect(given.body.cost.parts[0]).toMatchObject({ unit_cost: 0.5, status: 'given', per_acre: 150 })
  })

  it('refuses bad costs, naming the field', async () => {
    expectInvalidRequest(
      await post(STOCKING, planBody({ costs: { release_per_acre: 100001 } })),
      'costs.release_per_acre',
    )
    expectInvalidRequest(
      await post(
        STOCKING,
        planBody({
          costs: {
            seedlings: [
              { species_code: 'PSME', per_tree: 1 },
              { species_code: 'PSME', per_tree: 2 },
            ],
          },
        }),
      ),
      'costs.seedlings[1].species_code',
    )
    expectError(
      await post(STOCKING, planBody({ costs: { seedlings: [{ species_code: 'ZZZZ', per_tree: 1 }] } })),
      422,
      'invalid_species',
    )
  })
})
