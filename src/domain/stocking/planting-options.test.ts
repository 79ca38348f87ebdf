import { describe, expect, it } from 'vitest'
import { apiErrorOf, refusedField } from '../../../test/support/api-errors.ts'
import { forestSite } from '../../../test/support/fakes.ts'
import { polygon, rectangle } from '../../../test/support/geometry.ts'
import { NOW, planner } from '../../../test/support/stocking-setup.ts'
import { model } from '../../../test/support/survival-model.ts'
import type { CostsRequest } from './costs.ts'
import { OPTIONS_CANDIDATES_MAX, type PlantingOptionsRequest } from './options-request.ts'
import type { PlantingOption } from './planting-options.ts'
import type { StockingPlanRequest } from './stocking-types.ts'

/** A hot, dry, brushy, browsed Coast Range site: every treatment has something to act on. */
const HOT_SITE = forestSite(
  { latitude: 44.6, longitude: -123.6 },
  {
    zone: 'coast',
    heatLoadIndex: 0.9,
    summerWaterDeficitMm: 380,
    vegetationCoverPct: 80,
    browsePressureIndex: 0.8,
  },
)
const POINT = { latitude: 44.6, longitude: -123.6 }
const PSME = [{ speciesCode: 'PSME', share: 1 }]

const search = (request: Partial<PlantingOptionsRequest>, site = HOT_SITE) =>
  planner({ site }).plans.options({ ...POINT, speciesMix: PSME, ...request })

const valuesOf = (option: PlantingOption) => ({
  vegetationControl: option.treatments.vegetation_control,
  animalProtection: option.treatments.animal_protection,
  stockType: option.treatments.stock_type,
  shade: option.treatments.shade,
})

describe('the options search', () => {
  it('weighs every method and treatment combination by default, ranked by cost per acre, each meeting its confidence', async () => {
    const found = await search({})
    // 6 × 2 × 2 by hand, 6 by drone (vegetation control only).
    expect(found.candidates).toBe(30)
    expect(found.options.length + (found.cheapestFailing ? 1 : 0)).toBeGreaterThan(0)
    for (let i = 1; i < found.options.length; i++)
      expect(found.options[i]?.cost.perAcre).toBeGreaterThanOrEqual(
        found.options[i - 1]?.cost.perAcre as number,
      )
    for (const option of found.options) {
      expect(option.probability).toBeGreaterThanOrEqual(0.9)
      expect(option.meetsConfidence).toBe(true)
      if (option.method === 'drone_seeded') {
        expect(option.treatments.animal_protection).toBe('none')
        expect(option.treatments.shade).toBe('none')
      }
    }
    expect(found.rule.id).toBe('or_fpa')
    expect(found.generatedAt).toEqual(NOW)
  })

  it('the cheapest meeting option is the cheapest of all candidates × densities (brute force over plans)', async () => {
    const { plans } = planner({ site: HOT_SITE })
    const costs: CostsRequest = { tubesPerTree: 1.2, shadeCardsPerTree: 0.1 }
    const treatments = {
      vegetationControl: ['none', 'release_2yr'],
      animalProtection: ['none', 'mesh_tubes'],
      shade: ['none'],
    }
    const found = await plans.options({ ...POINT, speciesMix: PSME, methods: ['manual'], treatments, costs })
    expect(found.candidates).toBe(4)
    const best = found.options[0] as PlantingOption
    // Every candidate at every density from 100 to past the densest option, through the plan service.
    const top = Math.max(...found.options.map((o) => o.treesPerAcre)) + 20
    let cheapest = Number.POSITIVE_INFINITY
    for (const vegetationControl of ['none', 'release_2yr']) {
      for (const animalProtection of ['none', 'mesh_tubes']) {
        for (let density = 100; density <= top; density++) {
          const request: StockingPlanRequest = {
            ...POINT,
            plantingMethod: 'manual',
            speciesMix: PSME,
            treesPerAcre: density,
            treatments: { vegetationControl, animalProtection, shade: 'none' },
            costs,
          }
          const plan = await plans.plan(request)
          if (plan.meetsStandard.probability >= 0.9) cheapest = Math.min(cheapest, plan.cost.perAcre)
        }
      }
    }
    expect(cheapest).toBeLessThan(Number.POSITIVE_INFINITY)
    expect(best.cost.perAcre).toBe(cheapest)
    // The option's own figures are those of a plan at its density.
    const plan = await plans.plan({
      ...POINT,
      plantingMethod: 'manual',
      speciesMix: PSME,
      treesPerAcre: best.treesPerAcre,
      treatments: valuesOf(best),
      costs,
    })
    expect(best.probability).toBe(plan.meetsStandard.probability)
    expect(plan.required.treesPerAcre).toBe(best.treesPerAcre)
    expect(best.cost).toEqual(plan.cost)
  })

  it('is deterministic, whatever the order the methods and values are listed in', async () => {
    const a = await search({
      methods: ['manual', 'drone_seeded'],
      treatments: { vegetationControl: ['none', 'site_prep'] },
    })
    const b = await search({
      methods: ['drone_seeded', 'manual'],
      treatments: { vegetationControl: ['site_prep', 'none'] },
    })
    expect(b).toEqual(a)
    expect(
      await search({
        methods: ['manual', 'drone_seeded'],
        treatments: { vegetationControl: ['none', 'site_prep'] },
      }),
    ).toEqual(a)
  })

  it('answers the cheapest failing candidate at the density ceiling, with its shortfall', async () => {
    const { plans } = planner({ site: HOT_SITE })
    const found = await plans.options({ ...POINT, speciesMix: PSME, maxTreesPerAcre: 240 })
    const failing = found.cheapestFailing
    expect(failing).not.toBeNull()
    if (!failing) return
    expect(failing.treesPerAcre).toBe(240)
    expect(failing.meetsConfidence).toBe(false)
    expect(failing.shortfall).toBe(Math.round((0.9 - failing.probability) * 10_000) / 10_000)
    expect(failing.shortfall).toBeGreaterThan(0)
    // Its probability is a plan's at that density, and it is the cheapest of the failing candidates.
    const plan = await plans.plan({
      ...POINT,
      plantingMethod: failing.method,
      speciesMix: PSME,
      treesPerAcre: 240,
      treatments: valuesOf(failing),
    })
    expect(failing.probability).toBe(plan.meetsStandard.probability)
    expect(plan.required.treesPerAcre === null || (plan.required.treesPerAcre as number) > 240).toBe(true)
    for (const option of found.options) expect(option.treesPerAcre).toBeLessThanOrEqual(240)
    expect(found.options.length + 1).toBeLessThanOrEqual(found.candidates)
    // At the Coast Range site every candidate meets it somewhere up to 5,000: nothing fails.
    const all = await planner().plans.options({ ...POINT, speciesMix: PSME })
    expect(all.options).toHaveLength(30)
    expect(all.cheapestFailing).toBeNull()
  })

  it('weighs several mixes, naming each option’s mix by its index', async () => {
    const found = await search({
      speciesMix: null,
      speciesMixes: [
        PSME,
        [
          { speciesCode: 'PSME', share: 0.5 },
          { speciesCode: 'THPL', share: 0.5 },
        ],
      ],
      methods: ['manual'],
      treatments: { vegetationControl: ['none'], animalProtection: ['none'], shade: ['none'] },
    })
    expect(found.candidates).toBe(2)
    expect(
      new Set(
        [...found.options, ...(found.cheapestFailing ? [found.cheapestFailing] : [])].map((o) => o.mixIndex),
      ),
    ).toEqual(new Set([0, 1]))
  })

  it('carries every number’s status: an assumption is never shown as less', async () => {
    const found = await search({})
    for (const option of found.options) {
      const statuses = [
        ...option.cost.parts.map((p) => p.status),
        ...option.treatmentEffects.map((e) => e.status),
      ]
      if (statuses.includes('assumption')) expect(option.leastCertainStatus).toBe('assumption')
      if (option.method === 'drone_seeded') expect(option.leastCertainStatus).toBe('assumption')
    }
    expect(found.notes.join(' ')).toMatch(/Placeholders with no source price these items: .*drone_seeding/)
  })

  it('searches a stand, its sites looked up once and each species predicted once per method and treatments', async () => {
    const sites = Array.from({ length: 6 }, (_, i) =>
      forestSite(
        { latitude: 44.51 + i * 0.01, longitude: -123.69 + (i % 3) * 0.02 },
        { id: 100 + i, zone: 'coast', browsePressureIndex: 0.4 + i * 0.1, vegetationCoverPct: 50 + i * 8 },
      ),
    )
    const { plans, area } = planner({ sites })
    const calls = { count: 0 }
    const counting: typeof model = Object.create(model)
    counting.predict = (...args) => {
      calls.count++
      return model.predict(...args)
    }
    const found = await plans.options(
      {
        stand: polygon(rectangle(-123.7, 44.5, -123.6, 44.6)),
        speciesMixes: [
          PSME,
          [
            { speciesCode: 'PSME', share: 0.6 },
            { speciesCode: 'TSHE', share: 0.4 },
          ],
        ],
      },
      counting,
    )
    expect(area.boxes).toHaveLength(1)
    expect(found.location.kind).toBe('stand')
    expect(found.candidates).toBe(60)
    // Two species, 30 method × treatment combinations, 6 sites: PSME is predicted once for both mixes.
    expect(calls.count).toBe(2 * 30 * 6)
  })
})

describe('the options search refuses', () => {
  it('every bad input, naming it', async () => {
    const field = (request: Partial<PlantingOptionsRequest>) => refusedField(search(request))
    expect(await field({ speciesMixes: [PSME] })).toBe('speciesMixes')
    expect(await field({ speciesMix: null })).toBe('speciesMix')
    expect(await field({ speciesMix: null, speciesMixes: [] })).toBe('speciesMixes')
    expect(await field({ speciesMix: null, speciesMixes: Array.from({ length: 11 }, () => PSME) })).toBe(
      'speciesMixes',
    )
    expect(
      await field({ speciesMix: null, speciesMixes: [PSME, [{ speciesCode: 'PSME', share: 0.5 }]] }),
    ).toBe('speciesMixes[1]')
    expect(await field({ methods: [] })).toBe('methods')
    expect(await field({ methods: ['manual', 'manual'] })).toBe('methods[1]')
    expect(await field({ treatments: { vegetationControl: [] } })).toBe('treatments.vegetation_control')
    expect(await field({ treatments: { shade: ['none', 'parasol'] } })).toBe('treatments.shade[1]')
    expect(await field({ treatments: { animalProtection: ['none', 'none'] } })).toBe(
      'treatments.animal_protection[1]',
    )
    expect(await field({ confidence: 0.995 })).toBe('confidence')
    expect(await field({ maxTreesPerAcre: 0 })).toBe('maxTreesPerAcre')
    expect(await field({ maxTreesPerAcre: 5001 })).toBe('maxTreesPerAcre')
    expect(await field({ maxTreesPerAcre: 250.5 })).toBe('maxTreesPerAcre')
    expect(await field({ costs: { tubesPerTree: -1 } })).toBe('costs.tubesPerTree')
    expect(await field({ latitude: null })).toBe('latitude')
    expect((await apiErrorOf(search({ methods: ['helicopter'] }))).code).toBe('invalid_method')
    expect((await apiErrorOf(search({ speciesMix: [{ speciesCode: 'NOPE', share: 1 }] }))).code).toBe(
      'invalid_species',
    )
    expect((await apiErrorOf(search({ climate: { period: '2041-2070', scenario: 'ssp999' } }))).code).toBe(
      'invalid_climate',
    )
  })

  it('a drone-only search whose every combination holds a hand-only treatment, saying which', async () => {
    const error = await apiErrorOf(
      search({ methods: ['drone_seeded'], treatments: { animalProtection: ['mesh_tubes'] } }),
    )
    expect(error.code).toBe('invalid_treatment')
    expect(error.details).toEqual({
      treatment: 'animal_protection',
      value: 'mesh_tubes',
      planting_method: 'drone_seeded',
    })
  })

  it('more candidates than the limit, before any work', async () => {
    const { plans, lookup } = planner({ site: HOT_SITE })
    const nine = Array.from({ length: 9 }, () => PSME)
    const error = await apiErrorOf(plans.options({ ...POINT, speciesMixes: nine }))
    expect(error.code).toBe('invalid_request')
    expect(error.details).toEqual({
      field: 'treatments',
      reason: `make 270 candidates (9 mixes × 24 manual + 6 drone_seeded combinations); at most ${OPTIONS_CANDIDATES_MAX}: weigh fewer mixes, methods or treatment values`,
    })
    expect(lookup.calls).toBe(0)
    // Eight mixes are 240: at the limit, answered.
    expect(
      (await plans.options({ ...POINT, speciesMixes: nine.slice(1), methods: ['manual'] })).candidates,
    ).toBe(192)
  })
})
