import { describe, expect, it } from 'vitest'
import { createRandom, type SimulatedSite, simulateSurvey, truthKey } from '../../seed/survey-simulation.ts'
import { fitShift, plotTotals } from '../surveys/logit-shift.ts'
import { columnsOf } from '../surveys/plot-columns.ts'
import { survivalAtAge } from '../surveys/survival-at-age.ts'
import { conditionalShift } from './conditional-shift.ts'

/** Ten sites of one species × method, from wet to dry. */
const SITES: SimulatedSite[] = Array.from({ length: 10 }, (_, i) => {
  const horizons = { 1: 0.94 - 0.02 * i, 3: 0.85 - 0.03 * i, 5: 0.78 - 0.04 * i }
  return {
    speciesCode: 'PSME',
    plantingMethod: 'manual',
    predictedAt: (age: number) => survivalAtAge(horizons, age),
  }
})

function survey(seed: number, plots: number, offset: number, plotEffectSd: number) {
  return simulateSurvey(
    createRandom(seed),
    {
      sites: SITES,
      plotsPerSite: plots / SITES.length,
      planted: { min: 30, max: 80 },
      plantingYears: [2019, 2020, 2021],
      ageYears: { min: 0.5, max: 6 },
    },
    { offsets: { [truthKey('PSME', 'manual')]: offset }, plotEffectSd },
  )
}

describe('conditionalShift', () => {
  it('with no effect variance is the survey report’s shift', () => {
    const columns = columnsOf(survey(1, 200, -0.4, 0.3))
    const totals = plotTotals(columns)
    expect(conditionalShift(columns, totals.alive, 0).shift).toBeCloseTo(fitShift(columns, totals).shift, 10)
  })

  it('recovers the plot’s own offset where the report’s shift is pulled towards 0', () => {
    // σ² = 0.89: a site SD of 0.5 and a planting-year SD of 0.8 together, as the base model assumes.
    const sd = Math.sqrt(0.89)
    const columns = columnsOf(survey(2, 20_000, 0.6, sd))
    const totals = plotTotals(columns)
    const report = fitShift(columns, totals).shift
    const own = conditionalShift(columns, totals.alive, 0.89)
    expect(report).toBeLessThan(0.56)
    expect(Math.abs(own.shift - 0.6)).toBeLessThan(0.03)
    expect(own.slope).toBeGreaterThan(0)
  })

  it('refuses a negative variance', () => {
    const columns = columnsOf(survey(3, 10, 0, 0))
    expect(() => conditionalShift(columns, 1, -0.1)).toThrow(RangeError)
  })
})
