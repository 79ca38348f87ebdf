import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS } from '../../../test/support/sites.ts'
import { createSurvivalClient, type PlantingOptionsRequest, SurvivalApiError } from '../src/client.ts'

/** The typed client's planting options, and treatments and costs passed through, against a live server. */

const MIX = [{ species_code: 'PSME', share: 1 }]

describe('typed client: planting options, treatments and costs', () => {
  let running: SeededServer
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
  })
  afterAll(() => stopSeededServer(running))
  const client = () => createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })

  it('plantingOptions: the options cheapest first, each meeting the confidence it claims', async () => {
    const request: PlantingOptionsRequest = {
      ...FOREST_POINTS.coastRange,
      species_mix: MIX,
      confidence: 0.9,
      costs: { planting_per_tree: 0.5 },
    }
    const answer = await client().plantingOptions(request)
    expect(answer.options.length).toBeGreaterThan(0)
    const costs = answer.options.map((o) => o.cost.per_acre)
    expect(costs).toEqual([...costs].sort((a, b) => a - b))
    for (const option of answer.options) {
      expect(option.probability).toBeGreaterThanOrEqual(0.9)
      if (option.planting_method === 'manual')
        expect(option.cost.parts.find((p) => p.item === 'planting')?.status).toBe('given')
    }
    if (answer.cheapest_failing) expect(answer.cheapest_failing.shortfall).toBeGreaterThan(0)

    // A ceiling no drone seeding can meet: its cheapest failing option says by how much.
    const capped = await client().plantingOptions({
      ...request,
      methods: ['drone_seeded'],
      treatments: { vegetation_control: ['none'] },
      max_trees_per_acre: 50,
    })
    expect(capped.options).toEqual([])
    expect(capped.cheapest_failing?.planting_method).toBe('drone_seeded')
    expect(capped.cheapest_failing?.shortfall).toBeCloseTo(
      0.9 - (capped.cheapest_failing?.probability ?? 0),
      6,
    )
  })

  it('plantingOptions: a drone-only search of hand-only treatments is invalid_treatment', async () => {
    const error = await client()
      .plantingOptions({
        ...FOREST_POINTS.coastRange,
        species_mix: MIX,
        methods: ['drone_seeded'],
        treatments: { vegetation_control: ['none'], animal_protection: ['mesh_tubes'] },
      })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(SurvivalApiError)
    expect((error as SurvivalApiError).status).toBe(422)
    expect((error as SurvivalApiError).code).toBe('invalid_treatment')
  })

  it('stockingPlan and predict pass treatments and costs through', async () => {
    const plan = await client().stockingPlan({
      ...FOREST_POINTS.coastRange,
      planting_method: 'manual',
      species_mix: MIX,
      trees_per_acre: 300,
      treatments: { animal_protection: 'mesh_tubes' },
      costs: { tubes_per_tree: 2.9 },
    })
    const tubes = plan.cost?.parts.find((p) => p.item === 'tubes')
    expect(tubes).toMatchObject({ unit_cost: 2.9, status: 'given', quantity: 300 })
    expect(plan.treatments?.animal_protection).toBe('mesh_tubes')

    const prediction = await client().predict({
      ...FOREST_POINTS.coastRange,
      species_code: 'PSME',
      planting_method: 'manual',
      treatments: { vegetation_control: 'release_2yr' },
    })
    expect(prediction.treatments?.vegetation_control).toBe('release_2yr')
  })
})
