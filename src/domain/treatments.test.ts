import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { readArtifact } from '../model/artifact.ts'
import { projectFile } from '../project-files.ts'
import { ApiError } from './errors.ts'
import { TREATMENT_NAMES, TREATMENT_VALUES } from './treatment-values.ts'
import { TREATMENTS, Treatments } from './treatments.ts'

const file = JSON.parse(readFileSync(projectFile('data/treatments.json'), 'utf8'))
const artifact = readArtifact()

const manualWeight = (key: string) =>
  (artifact.factors.find((f) => f.key === key) as { methodWeight: { manual: number } }).methodWeight.manual
const fiveYearScale = artifact.horizons.manual['5'].scale

function effectOf(request: Record<string, string>, method: 'manual' | 'drone_seeded' = 'manual') {
  const applied = TREATMENTS.resolve(request, method)
  if (!applied) throw new Error('expected an effect')
  return applied.effects[0] as NonNullable<typeof applied>['effects'][number]
}

describe('data/treatments.json', () => {
  it('anchors each effect on the penalty the model gives its factor, as its note says (mycel 0.2)', () => {
    const anchors: Record<string, number> = {
      vegetation_control_2yr: manualWeight('competing_vegetation') * fiveYearScale,
      vegetation_control_1yr: manualWeight('competing_vegetation') * fiveYearScale,
      mesh_tubes: manualWeight('browse_predation') * fiveYearScale,
      shade_cards: manualWeight('heat_load') * fiveYearScale,
      // 250 mm above a moderate species' onset (weight × 0.45, per 100 mm) and the hottest dry aspect.
      stock_type:
        fiveYearScale * (manualWeight('summer_water_deficit') * 0.45 * 2.5 + manualWeight('heat_load')),
    }
    for (const spec of file.effects)
      expect(spec.anchor_logit, spec.id).toBeCloseTo(anchors[spec.id] as number, 10)
  })

  it('carries every entry it rests on with its status and sources', () => {
    const ids = new Set(file.entries.map((e: { id: string }) => e.id))
    for (const spec of file.effects) for (const id of spec.basis) expect(ids.has(id), id).toBe(true)
    for (const entry of file.entries) {
      expect(['published', 'synthesis', 'assumption']).toContain(entry.status)
      if (entry.status !== 'assumption') expect(entry.sources.length, entry.id).toBeGreaterThan(0)
    }
  })

  it('gives every value but none an effect, once', () => {
    for (const name of TREATMENT_NAMES)
      for (const value of TREATMENT_VALUES[name]) {
        const applied = TREATMENTS.resolve({ [camel(name)]: value }, 'manual')
        if (value === 'none') expect(applied).toBeNull()
        else expect(applied?.effects.map((e) => e.value)).toEqual([value])
      }
  })

  it('is refused at start when an effect would lower survival or a value lacks one', () => {
    const text = readFileSync(projectFile('data/treatments.json'), 'utf8')
    const harmful = structuredClone(file)
    harmful.effects[2].figure = { ...harmful.effects[2].figure, value: 0.5, range: [0.4, 1] }
    expect(() => new Treatments(harmful, text)).toThrow(/lower survival/)
    const missing = structuredClone(file)
    missing.effects = missing.effects.filter((e: { id: string }) => e.id !== 'shade_cards')
    expect(() => new Treatments(missing, text)).toThrow(/shade=shade_cards has no effect/)
  })
})

describe('treatment effects', () => {
  it('read the reference’s odds ratio as a share of the anchor penalty, and its range as a 90 % interval', () => {
    const veg = effectOf({ vegetationControl: 'release_2yr' })
    expect(veg.status).toBe('synthesis')
    expect(veg.figure).toEqual({ kind: 'odds_ratio', value: 2, range: [1.2, 6] })
    expect(veg.oddsRatio).toBeCloseTo(2, 12)
    expect(veg.reduction).toBeCloseTo(Math.log(2) / 1.56, 12)
    // ln 6 / 1.56 > 1: at most the whole penalty.
    expect(veg.reductionRange).toEqual([Math.log(1.2) / 1.56, 1])
    expect(veg.reductionSd).toBeCloseTo((1 - Math.log(1.2) / 1.56) / (2 * 1.6448536), 6)
    expect(veg.basis).toContain('vegctl_default_2yr_synthesis')
    expect(veg.sources.length).toBeGreaterThan(3)
  })

  it('convert percentage points at the 55 % baseline (shade cards: +8, 0 to +27 points)', () => {
    const shade = effectOf({ shade: 'shade_cards' })
    const lnOr = Math.log(0.63 / 0.37) - Math.log(0.55 / 0.45)
    expect(shade.oddsRatio).toBeCloseTo(Math.exp(lnOr), 12)
    expect(shade.reduction).toBeCloseTo(lnOr / 0.96, 12)
    expect(shade.reductionRange[0]).toBe(0)
    expect(shade.reductionRange[1]).toBe(1)
  })

  it('give one year of control half the two years’ log odds ratio (an assumption), and three years two years’', () => {
    const two = effectOf({ vegetationControl: 'release_2yr' })
    const one = effectOf({ vegetationControl: 'site_prep' })
    expect(one.status).toBe('assumption')
    expect(one.reduction).toBeCloseTo(two.reduction / 2, 4)
    expect(effectOf({ vegetationControl: 'release_1yr' }).reduction).toBe(one.reduction)
    expect(effectOf({ vegetationControl: 'site_prep_release_2yr' }).reduction).toBe(two.reduction)
    expect(effectOf({ vegetationControl: 'site_prep_release_1yr' }).reduction).toBe(two.reduction)
  })

  it('give a stock type no central effect, only the range’s uncertainty, on drought and heat', () => {
    for (const stockType of ['bareroot', 'container']) {
      const stock = effectOf({ stockType })
      expect(stock.reduction).toBe(0)
      expect(stock.reductionSd).toBeGreaterThan(0.1)
      expect(stock.factors).toEqual(['summer_water_deficit', 'heat_load'])
    }
  })
})

describe('resolving a request’s treatments', () => {
  it('changes nothing without treatments, with {} or with only none values', () => {
    for (const request of [
      undefined,
      null,
      {},
      { vegetationControl: 'none', animalProtection: 'none', shade: 'none' },
    ])
      expect(TREATMENTS.resolve(request, 'manual')).toBeNull()
  })

  it('answers one frozen object per combination and method', () => {
    const request = { vegetationControl: 'release_2yr', animalProtection: 'mesh_tubes' }
    const a = TREATMENTS.resolve(request, 'manual')
    expect(TREATMENTS.resolve({ ...request }, 'manual')).toBe(a)
    expect(Object.isFrozen(a)).toBe(true)
    expect(a?.modelEffects.map((e) => e.treatment)).toEqual(['vegetation_control', 'animal_protection'])
    expect(a?.dataVersion).toMatch(/^treatments-[0-9a-f]{12}$/)
  })

  it.each([
    ['animalProtection', 'mesh_tubes', 'animal_protection', /seed pods/],
    ['stockType', 'container', 'stock_type', /not nursery stock/],
    ['shade', 'shade_cards', 'shade', /planted seedlings/],
  ])(
    'refuses %s = %s with drone seeding: invalid_treatment saying which and why',
    (field, value, name, why) => {
      const attempt = () => TREATMENTS.resolve({ [field]: value }, 'drone_seeded')
      expect(attempt).toThrow(ApiError)
      try {
        attempt()
      } catch (error) {
        const e = error as ApiError
        expect(e.code).toBe('invalid_treatment')
        expect(e.status).toBe(422)
        expect(e.details).toEqual({ treatment: name, value, planting_method: 'drone_seeded' })
        expect(e.message).toMatch(why)
        expect(e.message).toContain(`${name} = ${value}`)
      }
    },
  )

  it('takes vegetation control with drone seeding, its status an assumption', () => {
    const applied = TREATMENTS.resolve({ vegetationControl: 'release_2yr' }, 'drone_seeded')
    expect(applied?.effects[0]?.status).toBe('assumption')
    expect(applied?.effects[0]?.note).toMatch(/Drone seeding: .*at least as important/)
    expect(TREATMENTS.resolve({ vegetationControl: 'release_2yr' }, 'manual')?.effects[0]?.status).toBe(
      'synthesis',
    )
  })

  it('names a comparison in its message', () => {
    expect(() => TREATMENTS.resolve({ shade: 'shade_cards' }, 'drone_seeded', true)).toThrow(
      /comparison predicts drone seeding too/,
    )
  })

  it('refuses an unknown value as invalid_request naming the field', () => {
    expect(() => TREATMENTS.resolve({ shade: 'umbrella' }, 'manual')).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        details: { field: 'treatments.shade', reason: 'must be one of none, shade_cards' },
      }),
    )
  })
})

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())
}
