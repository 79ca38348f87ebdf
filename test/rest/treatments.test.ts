import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { compareBody, FOREST_POINTS, predictBody } from '../support/sites.ts'
import { expectError, expectInvalidRequest, get, post, type RestResult } from './client.ts'

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({}, 'hypha'))
})

afterAll(() => stopSeededServer({ db, server }))

const call = (path: string, body: unknown): Promise<RestResult> => post(server.url, path, body, key)
const ALL = { vegetation_control: 'release_2yr', animal_protection: 'mesh_tubes', shade: 'shade_cards' }

/** The answer without the moment it was made. */
function timeless(body: Record<string, unknown>) {
  const { generated_at: _at, ...rest } = body
  return rest
}

describe('GET /v1/treatments', () => {
  it('lists each treatment with its values and every effect with its figure, statuses and sources', async () => {
    const result = await get(server.url, '/v1/treatments', key)
    expect(result.status, result.text).toBe(200)
    expect(result.body.treatments.map((t: { name: string }) => t.name)).toEqual([
      'vegetation_control',
      'animal_protection',
      'stock_type',
      'shade',
    ])
    const byId = new Map(result.body.effects.map((e: { id: string }) => [e.id, e]))
    expect(byId.size).toBe(result.body.effects.length)
    // Every value but none has exactly one effect.
    for (const { name, values } of result.body.treatments as { name: string; values: string[] }[]) {
      for (const value of values.filter((v) => v !== 'none')) {
        const covering = result.body.effects.filter(
          (e: { treatment: string; values: string[] }) => e.treatment === name && e.values.includes(value),
        )
        expect(covering, `${name}=${value}`).toHaveLength(1)
      }
    }
    const tubes = result.body.effects.find((e: { values: string[] }) => e.values.includes('mesh_tubes'))
    expect(tubes.drone_seeding).toEqual({ applies: false, reason: expect.any(String) })
    const veg = result.body.effects.find((e: { values: string[] }) => e.values.includes('release_2yr'))
    expect(veg.drone_seeding).toMatchObject({ applies: true, status: 'assumption' })
    expect(veg.figure).toMatchObject({ kind: 'odds_ratio', value: 2, horizon_years: 5 })
  })

  it('needs a key', async () => {
    expectError(await get(server.url, '/v1/treatments'), 401, 'invalid_api_key')
  })
})

describe('POST /v1/predict with treatments', () => {
  it('answers the treated prediction with the treatments block (every response checked against the OpenAPI document)', async () => {
    const plain = await call('/v1/predict', predictBody())
    const treated = await call('/v1/predict', predictBody({ treatments: { ...ALL, stock_type: 'bareroot' } }))
    expect(treated.status, treated.text).toBe(200)
    const t = treated.body.treatments
    expect(t).toMatchObject({
      vegetation_control: 'release_2yr',
      animal_protection: 'mesh_tubes',
      stock_type: 'bareroot',
      shade: 'shade_cards',
      data_version: expect.stringMatching(/^treatments-[0-9a-f]{12}$/),
    })
    expect(t.effects.map((e: { treatment: string; status: string }) => [e.treatment, e.status])).toEqual([
      ['vegetation_control', 'synthesis'],
      ['animal_protection', 'synthesis'],
      ['stock_type', 'synthesis'],
      ['shade', 'synthesis'],
    ])
    // Each effect names its id; what it rests on is listed once, by GET /v1/treatments.
    for (const field of ['figure', 'basis', 'sources', 'note']) expect(t.effects[0]).not.toHaveProperty(field)
    const catalogue = await get(server.url, '/v1/treatments', key)
    expect(catalogue.status, catalogue.text).toBe(200)
    expect(catalogue.body.data_version).toBe(t.data_version)
    for (const effect of t.effects) {
      const listed = catalogue.body.effects.find((e: { id: string }) => e.id === effect.effect_id)
      expect(listed.values).toContain(effect.value)
      expect(listed.factors).toEqual(effect.factors)
      expect(listed.odds_ratio).toBe(effect.odds_ratio)
      expect(listed.sources.length).toBeGreaterThan(0)
    }
    treated.body.predictions.forEach((h: { survival_probability: number }, i: number) => {
      const before = plain.body.predictions[i].survival_probability
      expect(h.survival_probability).toBeGreaterThanOrEqual(before)
      expect(t.horizons[i].untreated_survival_probability).toBe(before)
      // The treated survival is the horizon's own, not repeated.
      expect(t.horizons[i]).not.toHaveProperty('survival_probability')
    })
    // The changed factors, beside their untreated contributions, named as risk_factors name them.
    const veg = t.horizons[0].factors.find((f: { key: string }) => f.key === 'competing_vegetation')
    expect(veg.factor).toBe('Competing vegetation')
    expect(veg.contribution).toBeGreaterThan(veg.untreated_contribution)
    // Bareroot stock has a mean share of 0: it changes no factor, so none is listed for it alone.
    for (const h of t.horizons)
      for (const f of h.factors) expect(f.contribution).not.toBe(f.untreated_contribution)
  })

  it('answers byte for byte the untreated prediction for null, {} and only none values', async () => {
    const plain = await call('/v1/predict', predictBody())
    for (const treatments of [
      null,
      {},
      { vegetation_control: 'none', animal_protection: 'none', shade: null },
    ]) {
      const same = await call('/v1/predict', predictBody({ treatments }))
      expect(same.status).toBe(200)
      expect(JSON.stringify(timeless(same.body))).toBe(JSON.stringify(timeless(plain.body)))
    }
  })

  it('refuses unknown treatments, values and shapes as 400 invalid_request naming the field', async () => {
    expect(
      expectInvalidRequest(
        await call('/v1/predict', predictBody({ treatments: { shade: 'umbrella' } })),
        'treatments.shade',
      ).details?.reason,
    ).toMatch(/must be one of none, shade_cards/)
    expect(
      expectInvalidRequest(
        await call('/v1/predict', predictBody({ treatments: { fertiliser: 'yes' } })),
        'treatments.fertiliser',
      ).details?.reason,
    ).toMatch(/not a recognized field/)
    expect(
      expectInvalidRequest(await call('/v1/predict', predictBody({ treatments: 'mesh_tubes' })), 'treatments')
        .details?.reason,
    ).toMatch(/must be an object/)
    expect(
      expectInvalidRequest(
        await call('/v1/predict', predictBody({ treatments: { stock_type: 'none' } })),
        'treatments.stock_type',
      ).details?.reason,
    ).toMatch(/must be one of bareroot, container/)
  })

  it('refuses a treatment drone seeding cannot take: 422 invalid_treatment saying which', async () => {
    const result = await call(
      '/v1/predict',
      predictBody({ planting_method: 'drone_seeded', treatments: { animal_protection: 'mesh_tubes' } }),
    )
    expectError(result, 422, 'invalid_treatment')
    expect(result.body.error.details).toEqual({
      treatment: 'animal_protection',
      value: 'mesh_tubes',
      planting_method: 'drone_seeded',
    })
    expect(result.body.error.message).toMatch(
      /animal_protection = mesh_tubes does not apply to drone seeding/,
    )
  })

  it('takes vegetation control with drone seeding, as an assumption', async () => {
    const result = await call(
      '/v1/predict',
      predictBody({ planting_method: 'drone_seeded', treatments: { vegetation_control: 'site_prep' } }),
    )
    expect(result.status, result.text).toBe(200)
    expect(result.body.treatments.effects[0].status).toBe('assumption')
  })
})

describe('treatments on the other prediction paths', () => {
  it('compare: both methods treated, or invalid_treatment for what only hand planting takes', async () => {
    expectError(await call('/v1/predict/compare', compareBody({ treatments: ALL })), 422, 'invalid_treatment')
    const result = await call(
      '/v1/predict/compare',
      compareBody({ treatments: { vegetation_control: 'release_2yr' } }),
    )
    expect(result.status, result.text).toBe(200)
    expect(result.body.treatments.manual.horizons).toHaveLength(3)
    expect(result.body.treatments.drone_seeded.effects[0].status).toBe('assumption')
  })

  it('rank: every species treated, each with its untreated survival', async () => {
    const body = { ...FOREST_POINTS.coastRange, planting_method: 'manual', horizon: 5 }
    const result = await call('/v1/predict/rank', {
      ...body,
      treatments: { animal_protection: 'mesh_tubes' },
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body.treatments.effects[0].value).toBe('mesh_tubes')
    for (const entry of result.body.ranking)
      expect(entry.survival_probability).toBeGreaterThanOrEqual(entry.untreated_survival_probability)
  })

  it('batch: a treatment its method cannot take fails only its item', async () => {
    const result = await call('/v1/predict/batch', {
      sites: [
        predictBody({ treatments: ALL }),
        predictBody({ planting_method: 'drone_seeded', treatments: { stock_type: 'container' } }),
      ],
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body.results[0].prediction.treatments.effects).toHaveLength(3)
    expect(result.body.results[1].error.code).toBe('invalid_treatment')
  })

  it('plans: the same survival and a wider interval for an unsure effect, with the note and the block', async () => {
    const plan = {
      ...FOREST_POINTS.eastCascades,
      planting_method: 'manual',
      species_mix: [{ species_code: 'PIPO', share: 1 }],
      trees_per_acre: 300,
    }
    const plain = await call('/v1/plans/stocking', plan)
    const treated = await call('/v1/plans/stocking', { ...plan, treatments: { stock_type: 'container' } })
    expect(treated.status, treated.text).toBe(200)
    expect(treated.body.treatments.effects[0].factors).toEqual(['summer_water_deficit', 'heat_load'])
    const width = (b: { horizons: { lower: number; upper: number }[] }) =>
      b.horizons.map((h) => h.upper - h.lower)
    treated.body.horizons.forEach((h: { survival_probability: number }, i: number) => {
      expect(h.survival_probability).toBe(plain.body.horizons[i].survival_probability)
    })
    expect(width(treated.body)[2]).toBeGreaterThanOrEqual(width(plain.body)[2] as number)
    expect(treated.body.notes.join(' ')).toMatch(/Treatments: stock_type container/)
    expectError(
      await call('/v1/plans/stocking', {
        ...plan,
        planting_method: 'drone_seeded',
        treatments: { shade: 'shade_cards' },
      }),
      422,
      'invalid_treatment',
    )
  })
})
