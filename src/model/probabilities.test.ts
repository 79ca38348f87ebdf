import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { siteArbitrary } from '../../test/support/model/arbitraries.ts'
import { SPECIES } from '../domain/species.ts'
import { HORIZONS, PLANTING_METHODS } from '../types.ts'
import { loadSurvivalModel } from './loader.ts'

const model = loadSurvivalModel(SPECIES)

describe('survival probabilities', () => {
  it('are finite, strictly inside (0, 1) and non-increasing with horizon for any finite site, species and method', () => {
    fc.assert(
      fc.property(siteArbitrary, (site) => {
        for (const species of SPECIES) {
          for (const method of PLANTING_METHODS) {
            const predictions = model.predict(site, species, method)
            expect(predictions.map((p) => p.horizonYears)).toEqual([1, 3, 5])
            for (const { survivalProbability } of predictions) {
              expect(Number.isFinite(survivalProbability)).toBe(true)
              expect(survivalProbability).toBeGreaterThan(0)
              expect(survivalProbability).toBeLessThan(1)
            }
            const [year1, year3, year5] = predictions.map((p) => p.survivalProbability)
            expect(year1).toBeGreaterThanOrEqual(year3 ?? Number.NaN)
            expect(year3).toBeGreaterThanOrEqual(year5 ?? Number.NaN)
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('returns only the requested horizons, ascending, identical to the full prediction', () => {
    fc.assert(
      fc.property(siteArbitrary, fc.subarray([...HORIZONS], { minLength: 1 }), (site, horizons) => {
        const species = SPECIES[0]
        if (species === undefined) throw new Error('no species')
        const full = model.predict(site, species, 'manual')
        const subset = model.predict(site, species, 'manual', [...horizons].reverse())
        expect(subset.map((p) => p.horizonYears)).toEqual(horizons)
        expect(subset).toEqual(full.filter((p) => horizons.includes(p.horizonYears)))
      }),
    )
  })

  it('answers any list of horizons, in any order and with repeats, once each and ascending', () => {
    fc.assert(
      fc.property(siteArbitrary, fc.array(fc.constantFrom(...HORIZONS), { minLength: 1 }), (site, asked) => {
        const species = SPECIES[0]
        if (species === undefined) throw new Error('no species')
        const full = model.predict(site, species, 'manual')
        const expected = full.filter((p) => asked.includes(p.horizonYears))
        expect(model.predict(site, species, 'manual', asked)).toEqual(expected)
      }),
    )
  })

  it('is deterministic', () => {
    fc.assert(
      fc.property(siteArbitrary, (site) => {
        const species = SPECIES[5]
        if (species === undefined) throw new Error('no species')
        expect(model.predict(site, species, 'drone_seeded')).toEqual(
          model.predict({ ...site }, species, 'drone_seeded'),
        )
      }),
    )
  })

  it('rejects NaN attributes, unknown horizons and unknown methods', () => {
    const species = SPECIES[0]
    if (species === undefined) throw new Error('no species')
    const site = fc.sample(siteArbitrary, { numRuns: 1, seed: 1 })[0]
    if (site === undefined) throw new Error('no site')
    expect(() => model.predict({ ...site, slopeDeg: Number.NaN }, species, 'manual')).toThrow(RangeError)
    expect(() => model.predict(site, species, 'manual', [2 as 1])).toThrow(RangeError)
    expect(() => model.predict(site, species, 'by_hand' as 'manual')).toThrow(RangeError)
  })
})
