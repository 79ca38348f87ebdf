import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { methodArbitrary, siteArbitrary, speciesArbitrary } from '../../test/support/model/arbitraries.ts'
import { SPECIES } from '../domain/species.ts'
import { logit } from '../stats/logistic.ts'
import { PLANTING_METHODS } from '../types.ts'
import { readArtifact } from './artifact.ts'
import { loadSurvivalModel } from './loader.ts'
import { referenceSiteFor } from './site-input.ts'

const model = loadSurvivalModel(SPECIES)
const factorNames = new Map(model.factors.map((factor) => [factor.key, factor.name]))

describe('explanations', () => {
  it('are exact on the log-odds scale: baseline + Σ contributions = logOdds = logit(p)', () => {
    fc.assert(
      fc.property(siteArbitrary, speciesArbitrary, methodArbitrary, (site, species, method) => {
        for (const prediction of model.predict(site, species, method)) {
          const explained = prediction.contributions.reduce(
            (sum, c) => sum + c.contribution,
            prediction.baselineLogOdds,
          )
          expect(Math.abs(explained - prediction.logOdds)).toBeLessThan(1e-9)
          expect(Math.abs(logit(prediction.survivalProbability) - prediction.logOdds)).toBeLessThan(1e-9)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('list every factor once, sorted by magnitude (ties by key), with consistent impact and magnitude', () => {
    fc.assert(
      fc.property(siteArbitrary, speciesArbitrary, methodArbitrary, (site, species, method) => {
        for (const { contributions } of model.predict(site, species, method)) {
          expect(contributions.map((c) => c.key).sort()).toEqual([...factorNames.keys()].sort())
          contributions.forEach((c, i) => {
            expect(c.factor).toBe(factorNames.get(c.key))
            expect(c.magnitude).toBe(Math.abs(c.contribution))
            expect(c.impact).toBe(c.contribution >= 0 ? 'positive' : 'negative')
            expect(Object.is(c.contribution, -0)).toBe(false)
            const next = contributions[i + 1]
            if (next !== undefined) {
              expect(c.magnitude).toBeGreaterThanOrEqual(next.magnitude)
              if (c.magnitude === next.magnitude) expect(c.key < next.key).toBe(true)
            }
          })
          const topThree = contributions.slice(0, 3).map((c) => c.magnitude)
          const rest = contributions.slice(3).map((c) => c.magnitude)
          expect(Math.min(...topThree)).toBeGreaterThanOrEqual(Math.max(...rest))
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('are all zero at the reference site, where logOdds equals the baseline', () => {
    const { referenceSite } = readArtifact()
    for (const species of SPECIES) {
      for (const method of PLANTING_METHODS) {
        for (const prediction of model.predict(referenceSiteFor(referenceSite, species), species, method)) {
          expect(prediction.logOdds).toBeCloseTo(prediction.baselineLogOdds, 12)
          for (const c of prediction.contributions) {
            expect(c.contribution).toBe(0)
            expect(c.impact).toBe('positive')
          }
        }
      }
    }
  })

  it('mark the dominant stress of a hostile site as a negative top-3 factor', () => {
    const ponderosa = SPECIES.find((species) => species.code === 'PIPO')
    if (ponderosa === undefined) throw new Error('PIPO missing')
    const overgrown = {
      zone: 'eastside_cascades',
      elevationM: 1000,
      slopeDeg: 15,
      aspectDeg: 0,
      heatLoadIndex: 0.3,
      soilDepthCm: 100,
      rockFractionPct: 5,
      vegetationCoverPct: 100,
      annualPrecipMm: 700,
      summerWaterDeficitMm: 300,
      growingSeasonFrostDays: 5,
      browsePressureIndex: 0.2,
    } as const
    const [year1] = model.predict(overgrown, ponderosa, 'drone_seeded', [1])
    const top = year1?.contributions[0]
    expect(top?.key).toBe('competing_vegetation')
    expect(top?.factor).toBe('Competing vegetation')
    expect(top?.impact).toBe('negative')
  })
})
