import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { species } from '../../../test/support/survival-model.ts'
import { COSTS } from './costs.ts'
import { costPerAcre, costPerEstablishedTree, planCost } from './planting-cost.ts'

const PSME = species('PSME')
const THPL = species('THPL')
const defaults = COSTS.resolve(null)

const manual = (planted: number, treatments: Record<string, string | null> | null = null) => ({
  mix: [{ species: PSME, share: 1 }],
  method: 'manual' as const,
  treatments,
  planted,
})

describe('cost per acre', () => {
  it('hand planting without treatments: seedlings and planting per tree', () => {
    const { perAcre, parts } = costPerAcre(manual(300), defaults)
    expect(parts.map((p) => [p.item, p.unitCost, p.quantity, p.perAcre, p.status])).toEqual([
      ['seedlings', 0.37, 300, 111, 'published'],
      ['planting', 0.46, 300, 138, 'synthesis'],
    ])
    expect(perAcre).toBe(249)
  })

  it('each vegetation control value is its site preparations and releases; tubes and cards per tree', () => {
    const treated = (vegetation: string) =>
      costPerAcre(
        manual(400, {
          vegetation_control: vegetation,
          animal_protection: 'mesh_tubes',
          shade: 'shade_cards',
        }),
        defaults,
      )
    const work = (vegetation: string) =>
      treated(vegetation)
        .parts.filter((p) => p.item === 'site_preparation' || p.item === 'release')
        .map((p) => [p.item, p.quantity])
    expect(work('none')).toEqual([])
    expect(work('site_prep')).toEqual([['site_preparation', 1]])
    expect(work('release_1yr')).toEqual([['release', 1]])
    expect(work('release_2yr')).toEqual([['release', 2]])
    expect(work('site_prep_release_1yr')).toEqual([
      ['site_preparation', 1],
      ['release', 1],
    ])
    expect(work('site_prep_release_2yr')).toEqual([
      ['site_preparation', 1],
      ['release', 2],
    ])
    // The reference's own worked example: 400 trees, site prep, two releases and tubes: $2,212 an acre.
    const full = costPerAcre(
      manual(400, { vegetation_control: 'site_prep_release_2yr', animal_protection: 'mesh_tubes' }),
      defaults,
    )
    expect(full.perAcre).toBe(400 * (0.37 + 0.46) + 209 + 271 + 400 * 3.5)
    expect(treated('none').parts.find((p) => p.item === 'shade_cards')).toMatchObject({
      quantity: 400,
      perAcre: 140,
    })
  })

  it('a stock type changes no price', () => {
    expect(costPerAcre(manual(350, { stock_type: 'container' }), defaults)).toEqual(
      costPerAcre(manual(350), defaults),
    )
  })

  it('drone seeding: the flight per acre and the pods, and vegetation control', () => {
    const { perAcre, parts } = costPerAcre(
      {
        mix: [{ species: PSME, share: 1 }],
        method: 'drone_seeded',
        treatments: { vegetation_control: 'release_1yr' },
        planted: 1000,
      },
      defaults,
    )
    expect(parts.map((p) => [p.item, p.quantity, p.perAcre])).toEqual([
      ['drone_seeding', 1, 200],
      ['seed_pods', 1000, 110],
      ['release', 1, 135.5],
    ])
    expect(perAcre).toBe(445.5)
  })

  it('a mix pays each species its own seedling price for its share', () => {
    const { parts } = costPerAcre(
      {
        mix: [
          { species: PSME, share: 0.75 },
          { species: THPL, share: 0.25 },
        ],
        method: 'manual',
        treatments: null,
        planted: 400,
      },
      defaults,
    )
    expect(parts.slice(0, 2).map((p) => [p.speciesCode, p.quantity, p.perAcre])).toEqual([
      ['PSME', 300, 111],
      ['THPL', 100, 42],
    ])
  })
})

describe('cost per established tree', () => {
  it('falls as survival rises, at a fixed cost per acre (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 10_000, noNaN: true }),
        fc.integer({ min: 1, max: 5000 }),
        fc.double({ min: 0.01, max: 0.98, noNaN: true }),
        fc.double({ min: 0.001, max: 0.02, noNaN: true }),
        (perAcre, planted, survival, gain) => {
          const lower = costPerEstablishedTree(perAcre, planted * survival) as number
          const higher = costPerEstablishedTree(perAcre, planted * (survival + gain)) as number
          expect(higher).toBeLessThanOrEqual(lower)
          expect(perAcre / (planted * (survival + gain))).toBeLessThan(perAcre / (planted * survival))
        },
      ),
    )
    expect(costPerEstablishedTree(100, 0)).toBeNull()
  })

  it('a plan’s block: per acre over the expected survivors, its interval from the survivors’ interval', () => {
    const cost = planCost(
      manual(300),
      defaults,
      { horizonYears: 5, survival: 0.8, lower: 200, upper: 280, level: 0.9 },
      'costs-x',
    )
    expect(cost).toMatchObject({
      currency: 'USD',
      perAcre: 249,
      horizonYears: 5,
      establishedTreesPerAcre: 240,
      perEstablishedTree: Math.round((249 / 240) * 1000) / 1000,
      perEstablishedTreeInterval: { lower: Math.round((249 / 280) * 1000) / 1000, upper: 1.245, level: 0.9 },
      leastCertainStatus: 'synthesis',
    })
    expect(
      planCost(
        manual(300),
        defaults,
        { horizonYears: 5, survival: 0.8, lower: 0, upper: 280, level: 0.9 },
        'x',
      ).perEstablishedTreeInterval.upper,
    ).toBeNull()
  })
})
