import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { species } from '../../../test/support/survival-model.ts'
import { ApiError } from '../errors.ts'
import { SPECIES } from '../species.ts'
import {
  COST_PER_ACRE_MAX,
  COST_PER_TREE_MAX,
  COSTS,
  Costs,
  type CostsRequest,
  leastCertain,
} from './costs.ts'
import { costPerAcre } from './planting-cost.ts'

const FILE_TEXT = readFileSync(new URL('../../../data/costs.json', import.meta.url), 'utf8')
const file = () => JSON.parse(FILE_TEXT)
const PSME = species('PSME')

/** The ApiError a call throws (fails the test when it throws nothing or something else). */
function errorOf(call: () => unknown): ApiError {
  try {
    call()
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    return error as ApiError
  }
  throw new Error('expected an ApiError')
}

const manual = (planted: number, treatments: Record<string, string | null> | null = null) => ({
  mix: [{ species: PSME, share: 1 }],
  method: 'manual' as const,
  treatments,
  planted,
})

describe('the cost defaults (data/costs.json)', () => {
  it('prices every item, each with its status, price year and sources as the reference gives them', () => {
    const byId = new Map(COSTS.defaults.map((d) => [d.defaultId, d]))
    expect(byId.get('seedling_psme')).toMatchObject({ value: 0.37, status: 'published', priceYear: null })
    expect(byId.get('seedling_psme')?.sources[0]?.title).toBe('Every Day is Arbor Day')
    expect(byId.get('planting_labour')).toMatchObject({ value: 0.46, status: 'synthesis', priceYear: 2020 })
    expect(byId.get('site_preparation')).toMatchObject({ value: 209, status: 'published' })
    expect(byId.get('release')).toMatchObject({ value: 135.5, status: 'published' })
    // The placeholders are assumptions with no source: never presented as findings.
    for (const id of ['tubes_installed', 'shade_cards', 'drone_seeding', 'seed_pods', 'seedling_hardwoods']) {
      const figure = byId.get(id)
      expect(figure?.status, id).toBe('assumption')
    }
    // The drone default names the vendor claims it is bracketed by; the shade-card placeholder none.
    expect(byId.get('drone_seeding')?.sources.length).toBeGreaterThan(0)
    expect(byId.get('shade_cards')?.sources).toEqual([])
    expect(COSTS.dataVersion).toMatch(/^costs-[0-9a-f]{12}$/)
    expect(COSTS.gaps.some((gap) => gap.includes('Drone seeding price'))).toBe(true)
  })

  it('gives every species of the catalogue a seedling price: its own, else its group’s', () => {
    for (const s of SPECIES) {
      const figure = COSTS.defaultSeedling(s)
      expect(figure.item).toBe('seedlings')
      if (s.code === 'PSME') expect(figure.defaultId).toBe('seedling_psme')
      else if (['TSHE', 'THPL', 'ABGR', 'ABPR'].includes(s.code))
        expect(figure.defaultId).toBe('seedling_other_priced_conifers')
      else if (s.group === 'hardwood') expect(figure.defaultId).toBe('seedling_hardwoods')
      else expect(figure.defaultId).toBe('seedling_other_conifers')
    }
  })

  it('refuses a file whose figures do not hold together', () => {
    const broken = (change: (f: ReturnType<typeof file>) => void) => {
      const f = file()
      change(f)
      return () => new Costs(f, FILE_TEXT)
    }
    expect(broken((f) => (f.defaults[0].value = 5))).toThrow(/outside its range/)
    expect(
      broken((f) =>
        f.defaults.splice(
          f.defaults.findIndex((d: { id: string }) => d.id === 'release'),
          1,
        ),
      ),
    ).toThrow(/release has no default/)
    expect(broken((f) => (f.defaults[0].basis = ['no_such_entry']))).toThrow(/unknown entry no_such_entry/)
    expect(broken((f) => (f.defaults[5].unit = 'per_tree'))).toThrow(/site_preparation is priced per_acre/)
    expect(
      broken((f) => {
        f.defaults[0].basis = []
      }),
    ).toThrow(/published but names no source/)
  })
})

const figure = fc.double({ min: 0, max: 50, noNaN: true, noDefaultInfinity: true })
const perAcreFigure = fc.double({ min: 0, max: 5000, noNaN: true, noDefaultInfinity: true })

describe('overrides', () => {
  it('replace the defaults exactly, and carry the status given (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          seedling: figure,
          planting: figure,
          tubes: figure,
          cards: figure,
          sitePrep: perAcreFigure,
          release: perAcreFigure,
          planted: fc.integer({ min: 1, max: 5000 }),
        }),
        (x) => {
          const costs = COSTS.resolve({
            seedlings: [{ speciesCode: 'PSME', perTree: x.seedling }],
            plantingPerTree: x.planting,
            tubesPerTree: x.tubes,
            shadeCardsPerTree: x.cards,
            sitePreparationPerAcre: x.sitePrep,
            releasePerAcre: x.release,
          })
          const { parts } = costPerAcre(
            manual(x.planted, {
              vegetation_control: 'site_prep_release_2yr',
              animal_protection: 'mesh_tubes',
              shade: 'shade_cards',
            }),
            costs,
          )
          const unit = Object.fromEntries(parts.map((p) => [p.item, p.unitCost]))
          expect(unit).toEqual({
            seedlings: x.seedling,
            planting: x.planting,
            site_preparation: x.sitePrep,
            release: x.release,
            tubes: x.tubes,
            shade_cards: x.cards,
          })
          for (const part of parts) {
            expect(part.status).toBe('given')
            expect(part.defaultId).toBeNull()
            expect(part.perAcre).toBe(Math.round(part.unitCost * part.quantity * 100) / 100)
          }
        },
      ),
    )
  })

  it('leave the figures they do not name at their defaults', () => {
    const costs = COSTS.resolve({ tubesPerTree: 2 })
    const { parts } = costPerAcre(manual(300, { animal_protection: 'mesh_tubes' }), costs)
    expect(parts.map((p) => [p.item, p.unitCost, p.status])).toEqual([
      ['seedlings', 0.37, 'published'],
      ['planting', 0.46, 'synthesis'],
      ['tubes', 2, 'given'],
    ])
    expect(costs.asked).toBe(true)
    expect(COSTS.resolve({}).asked).toBe(true)
    expect(COSTS.resolve(null).asked).toBe(false)
  })

  it('refuse every figure out of its limits, an unknown or repeated species, too many species', () => {
    const field = (request: CostsRequest) => errorOf(() => COSTS.resolve(request))
    expect(field({ tubesPerTree: -0.01 })).toMatchObject({
      code: 'invalid_request',
      details: { field: 'costs.tubesPerTree', reason: `must be from 0 to ${COST_PER_TREE_MAX} USD` },
    })
    expect(field({ releasePerAcre: COST_PER_ACRE_MAX + 1 }).details).toEqual({
      field: 'costs.releasePerAcre',
      reason: `must be from 0 to ${COST_PER_ACRE_MAX} USD`,
    })
    expect(field({ seedPodPerPod: Number.NaN }).details).toMatchObject({ field: 'costs.seedPodPerPod' })
    expect(field({ droneSeedingPerAcre: Number.POSITIVE_INFINITY }).details).toMatchObject({
      field: 'costs.droneSeedingPerAcre',
    })
    expect(field({ seedlings: [{ speciesCode: 'XXXX', perTree: 1 }] }).code).toBe('invalid_species')
    expect(
      field({
        seedlings: [
          { speciesCode: 'PSME', perTree: 1 },
          { speciesCode: 'PSME', perTree: 2 },
        ],
      }).details,
    ).toEqual({ field: 'costs.seedlings[1].speciesCode', reason: 'repeats PSME; list each species once' })
    expect(field({ seedlings: [{ speciesCode: 'PSME', perTree: 1001 }] }).details).toMatchObject({
      field: 'costs.seedlings[0].perTree',
    })
    expect(
      field({ seedlings: Array.from({ length: 21 }, () => ({ speciesCode: 'PSME', perTree: 1 })) }).details,
    ).toEqual({ field: 'costs.seedlings', reason: 'may hold at most 20 species' })
  })
})

describe('statuses', () => {
  it('the least certain status: an assumption outweighs the rest', () => {
    expect(leastCertain(['published', 'assumption', 'synthesis'])).toBe('assumption')
    expect(leastCertain(['published', 'given'])).toBe('published')
    expect(leastCertain(['given'])).toBe('given')
  })
})
