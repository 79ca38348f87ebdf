import { describe, expect, it } from 'vitest'
import { TEST_POPULATION } from '../../test/support/model/population.ts'
import { SPECIES } from '../domain/species.ts'
import type { PlantingMethod, SiteAttributes } from '../types.ts'
import { type CalibratedGroup, calibratedModel } from './calibrated-model.ts'
import { loadSurvivalModel } from './loader.ts'

const parent = loadSurvivalModel(SPECIES)
const METHODS: PlantingMethod[] = ['manual', 'drone_seeded']
const group = (speciesCode: string, plantingMethod: PlantingMethod, offset: number): CalibratedGroup => ({
  speciesCode,
  plantingMethod,
  offset,
  interval: [offset - 0.3, offset + 0.3],
  level: 0.9,
  variance: 0.0333,
  plots: 12,
  trees: 600,
})
const groups = SPECIES.flatMap((species) =>
  METHODS.map((method) =>
    group(species.code, method, species.code === 'PSME' && method === 'manual' ? -0.6 : 0.1),
  ),
)
const terms = { plantingYearSd: 0.6, siteSd: 0.4, clumpingDispersion: 1.7 }
const calibrated = calibratedModel(parent, { version: '0.2+cal.0000abcd', uncertainty: terms, groups })
const site = TEST_POPULATION[0] as SiteAttributes
const psme = SPECIES.find((s) => s.code === 'PSME') as (typeof SPECIES)[number]

describe('calibratedModel', () => {
  it('adds its species × method offset to the parent’s logit at every horizon, in the baseline', () => {
    const before = parent.predict(site, psme, 'manual')
    const after = calibrated.predict(site, psme, 'manual')
    expect(after.map((h) => h.horizonYears)).toEqual([1, 3, 5])
    after.forEach((horizon, h) => {
      const original = before[h] as (typeof before)[number]
      expect(horizon.logOdds).toBe(original.logOdds - 0.6)
      expect(horizon.baselineLogOdds).toBe(original.baselineLogOdds - 0.6)
      expect(horizon.survivalProbability).toBeCloseTo(1 / (1 + Math.exp(-horizon.logOdds)), 15)
      // The factors are the parent's, and still add up with the shifted baseline.
      expect(horizon.contributions).toEqual(original.contributions)
      expect(horizon.topContributions(3)).toEqual(original.topContributions(3))
      const sum = horizon.contributions.reduce((total, f) => total + f.contribution, 0)
      expect(horizon.baselineLogOdds + sum).toBeCloseTo(horizon.logOdds, 10)
      expect(horizon.calibration).toEqual({
        offset: -0.6,
        interval: [-0.6 - 0.3, -0.6 + 0.3],
        level: 0.9,
        plots: 12,
        trees: 600,
      })
    })
    expect(calibrated.predict(site, psme, 'drone_seeded')[0]?.calibration?.offset).toBe(0.1)
  })

  it('states the version’s terms, with an offset’s variance in the planting-year term of its predictions', () => {
    expect(calibrated.uncertainty).toEqual(terms)
    const [horizon] = calibrated.predict(site, psme, 'manual')
    expect(horizon?.uncertainty.plantingYearSd).toBeCloseTo(Math.sqrt(0.36 + 0.0333), 15)
    expect(horizon?.uncertainty.siteSd).toBe(0.4)
    expect(horizon?.uncertainty.clumpingDispersion).toBe(1.7)
    expect(calibrated).toMatchObject({
      version: '0.2+cal.0000abcd',
      series: parent.series,
      codename: parent.codename,
    })
  })

  it('refuses a species × method it has no offset for, rather than answer the parent under its name', () => {
    const partial = calibratedModel(parent, {
      version: '0.2+cal.00000001',
      uncertainty: terms,
      groups: groups.slice(2),
    })
    expect(() => partial.predict(site, SPECIES[0] as (typeof SPECIES)[number], 'manual')).toThrow(RangeError)
  })

  it('answers only the horizons asked for', () => {
    expect(calibrated.predict(site, psme, 'manual', [5]).map((h) => h.horizonYears)).toEqual([5])
  })
})
