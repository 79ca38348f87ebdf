import type { Polygon } from 'geojson'
import { describe, expect, it } from 'vitest'
import { FOREST_POINTS } from '../../../test/support/fakes.ts'
import { ApiError } from '../errors.ts'
import { SPECIES } from '../species.ts'
import { checkedPlanRequest, checkSiteClassApplies } from './plan-request.ts'
import type { StockingPlanRequest } from './stocking-types.ts'

const { coastRange } = FOREST_POINTS

const pointPlan: StockingPlanRequest = {
  ...coastRange,
  plantingMethod: 'manual',
  speciesMix: [{ speciesCode: 'PSME', share: 1 }],
  treesPerAcre: 300,
}

const STAND: Polygon = {
  type: 'Polygon',
  coordinates: [
    [
      [-123.7, 44.5],
      [-123.6, 44.5],
      [-123.6, 44.6],
      [-123.7, 44.6],
      [-123.7, 44.5],
    ],
  ],
}

/** The ApiError `check` throws (fails the test when it throws none, or anything else). */
function refusal(check: () => unknown): ApiError {
  let thrown: unknown
  try {
    check()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(ApiError)
  return thrown as ApiError
}

/** The field an invalid_request refusal of `request` names. */
function refusedField(request: StockingPlanRequest): string {
  const error = refusal(() => checkedPlanRequest(request))
  expect(error.code).toBe('invalid_request')
  expect(error.status).toBe(400)
  return (error.details as { field: string }).field
}

const mix = (...items: [string, number][]): StockingPlanRequest => ({
  ...pointPlan,
  speciesMix: items.map(([speciesCode, share]) => ({ speciesCode, share })),
})

describe('checkedPlanRequest', () => {
  it('takes a point plan, filling the defaults and resolving the names', () => {
    const checked = checkedPlanRequest(pointPlan)
    expect(checked).toMatchObject({
      location: { kind: 'point', ...coastRange },
      plantingMethod: 'manual',
      climate: null,
      planted: 300,
      confidence: 0.9,
      ruleSet: null,
      siteClass: null,
      targetTreesPerAcre: null,
    })
    expect(checked.mix.map((item) => [item.species.code, item.share])).toEqual([['PSME', 1]])
  })

  it('takes a stand, the density per hectare and what is asked of the rule', () => {
    const checked = checkedPlanRequest({
      ...pointPlan,
      latitude: null,
      longitude: null,
      stand: STAND,
      treesPerAcre: null,
      treesPerHectare: 741.3,
      ruleSet: 'or_fpa',
      siteClass: 'IV-V',
      targetTreesPerAcre: 250,
      confidence: 0.8,
    })
    expect(checked.location.kind).toBe('stand')
    expect(checked.planted).toBeCloseTo(300, 1)
    expect(checked).toMatchObject({
      ruleSet: 'or_fpa',
      siteClass: 'IV-V',
      targetTreesPerAcre: 250,
      confidence: 0.8,
    })
  })

  it('refuses both a point and a stand, and neither', () => {
    expect(refusedField({ ...pointPlan, stand: STAND })).toBe('stand')
    expect(refusedField({ ...pointPlan, longitude: null, stand: STAND })).toBe('stand')
    expect(refusedField({ ...pointPlan, latitude: null, longitude: null })).toBe('latitude')
    expect(refusedField({ ...pointPlan, longitude: undefined })).toBe('longitude')
  })

  it('refuses shares that do not sum to 1, a repeated species, and an empty or oversized mix', () => {
    expect(refusedField(mix(['PSME', 0.5], ['THPL', 0.4]))).toBe('speciesMix')
    expect(refusedField(mix(['PSME', 0.7], ['THPL', 0.4]))).toBe('speciesMix')
    expect(refusedField(mix(['PSME', 0.5], ['PSME', 0.5]))).toBe('speciesMix[1].speciesCode')
    expect(refusedField(mix(['THPL', 0.4], ['PSME', 0.3], ['THPL', 0.3]))).toBe('speciesMix[2].speciesCode')
    expect(refusedField(mix())).toBe('speciesMix')
    const oversized = mix(...SPECIES.map((s) => [s.code, 1 / 21] as [string, number]), ['PSME', 1 / 21])
    expect(refusal(() => checkedPlanRequest(oversized)).details).toMatchObject({
      field: 'speciesMix',
      reason: 'may hold at most 20 species',
    })
  })

  it('scales shares within the tolerance to sum to exactly 1', () => {
    const checked = checkedPlanRequest(mix(['PSME', 0.333], ['THPL', 0.333], ['TSHE', 0.3335]))
    expect(checked.mix.reduce((sum, item) => sum + item.share, 0)).toBeCloseTo(1, 12)
  })

  it('refuses an unknown species and an unknown planting method with their own codes', () => {
    const unknownSpecies = refusal(() => checkedPlanRequest(mix(['PSMA', 1])))
    expect(unknownSpecies.code).toBe('invalid_species')
    expect(unknownSpecies.status).toBe(422)
    expect(unknownSpecies.details).toMatchObject({ closest_code: 'PSME' })
    const unknownMethod = refusal(() => checkedPlanRequest({ ...pointPlan, plantingMethod: 'helicopter' }))
    expect(unknownMethod.code).toBe('invalid_method')
    expect(unknownMethod.status).toBe(422)
  })

  it('refuses both densities, and neither, naming the other in the reason', () => {
    expect(refusal(() => checkedPlanRequest({ ...pointPlan, treesPerHectare: 741 })).details).toEqual({
      field: 'treesPerHectare',
      reason: 'is given with treesPerAcre; send one or the other',
    })
    expect(refusal(() => checkedPlanRequest({ ...pointPlan, treesPerAcre: null })).details).toEqual({
      field: 'treesPerAcre',
      reason: 'is required (or send treesPerHectare)',
    })
  })

  it('refuses an unknown rule set, an unknown site class, and a site class with a Washington rule', () => {
    expect(refusedField({ ...pointPlan, ruleSet: 'ca_fpa' })).toBe('ruleSet')
    expect(refusedField({ ...pointPlan, siteClass: 'VII' })).toBe('siteClass')
    expect(refusedField({ ...pointPlan, ruleSet: 'wa_fpa_west', siteClass: 'I-III' })).toBe('siteClass')
  })

  it.each([0.3, 0.49, 0.995, 1, Number.NaN])('refuses confidence %s', (confidence) => {
    expect(refusal(() => checkedPlanRequest({ ...pointPlan, confidence })).details).toEqual({
      field: 'confidence',
      reason: 'must be from 0.5 to 0.99',
    })
  })

  it('takes the confidence bounds themselves', () => {
    expect(checkedPlanRequest({ ...pointPlan, confidence: 0.5 }).confidence).toBe(0.5)
    expect(checkedPlanRequest({ ...pointPlan, confidence: 0.99 }).confidence).toBe(0.99)
  })

  it('refuses an unknown climate with invalid_climate', () => {
    const error = refusal(() =>
      checkedPlanRequest({ ...pointPlan, climate: { period: '2041-2070', scenario: 'rcp85' } }),
    )
    expect(error.code).toBe('invalid_climate')
    expect(error.status).toBe(422)
  })

  it('reports the first field that fails: location, mix, method, climate, density, confidence, rule set, site class', () => {
    const bad: StockingPlanRequest = {
      latitude: null,
      longitude: null,
      plantingMethod: 'helicopter',
      speciesMix: [],
      treesPerAcre: null,
      confidence: 2,
      ruleSet: 'xx',
      siteClass: 'VII',
      climate: { period: 'soon' },
    }
    expect(refusedField(bad)).toBe('latitude')
    expect(refusedField({ ...bad, ...coastRange })).toBe('speciesMix')
    const located = { ...bad, ...coastRange, speciesMix: pointPlan.speciesMix }
    expect(refusal(() => checkedPlanRequest(located)).code).toBe('invalid_method')
    expect(refusal(() => checkedPlanRequest({ ...located, plantingMethod: 'manual' })).code).toBe(
      'invalid_climate',
    )
    const named = { ...located, plantingMethod: 'manual', climate: null }
    expect(refusedField(named)).toBe('treesPerAcre')
    expect(refusedField({ ...named, treesPerAcre: 300 })).toBe('confidence')
    expect(refusedField({ ...named, treesPerAcre: 300, confidence: null })).toBe('ruleSet')
    expect(refusedField({ ...named, treesPerAcre: 300, confidence: null, ruleSet: null })).toBe('siteClass')
  })
})

describe('checkSiteClassApplies', () => {
  it("takes a site class under Oregon's rule, or none asked, and refuses one under Washington's", () => {
    expect(() => checkSiteClassApplies('IV-V', 'or_fpa')).not.toThrow()
    expect(() => checkSiteClassApplies(null, 'wa_fpa_east')).not.toThrow()
    expect(refusal(() => checkSiteClassApplies('VI', 'wa_fpa_east')).details).toEqual({
      field: 'siteClass',
      reason: "applies only to Oregon's rule (or_fpa); wa_fpa_east has one standard",
    })
  })
})
