import { describe, expect, it } from 'vitest'
import {
  BASE_TERMS as BASE,
  calibrationSurvey,
  SIX_YEARS,
  TRUE_OFFSETS as TRUTH,
  WANTED,
} from '../../seed/calibration-surveys.ts'
import { createRandom, truthKey } from '../../seed/survey-simulation.ts'
import type { PlantingMethod } from '../../types.ts'
import { fitOffsets } from './offset-fit.ts'

/**
 * The calibration's offsets against a stated truth (test/support/calibration-surveys.ts): the base
 * model plus known offsets, a planting-year effect drawn anew for each data set, a site effect and
 * clumped counts.
 */
const dataSet = calibrationSurvey

const mean = (values: readonly number[]) => values.reduce((sum, x) => sum + x, 0) / values.length

describe('fitOffsets over 150 simulated data sets of 300 plots', () => {
  const random = createRandom(0xca1)
  const fits = Array.from({ length: 150 }, () => fitOffsets(dataSet(random, SIX_YEARS), WANTED, BASE, 0.9))

  it('the 90 % intervals of the offsets hold the true offsets in 85–95 % of cases', () => {
    let held = 0
    let total = 0
    for (const fit of fits)
      for (const offset of fit.offsets) {
        const truth = TRUTH[truthKey(offset.speciesCode, offset.plantingMethod)] ?? 0
        total += 1
        if (offset.interval[0] <= truth && truth <= offset.interval[1]) held += 1
      }
    expect(held / total).toBeGreaterThanOrEqual(0.85)
    expect(held / total).toBeLessThanOrEqual(0.95)
  })

  it('finds the offsets it was given: −0.6 and +0.4 on average, the others near 0', () => {
    const of = (species: string, method: PlantingMethod) =>
      mean(
        fits.map(
          (fit) =>
            fit.offsets.find((o) => o.speciesCode === species && o.plantingMethod === method)
              ?.offset as number,
        ),
      )
    expect(of('PSME', 'manual')).toBeLessThan(-0.4)
    expect(of('PIPO', 'drone_seeded')).toBeGreaterThan(0.25)
    expect(Math.abs(of('TSHE', 'manual'))).toBeLessThan(0.12)
  })

  it('estimates the variance terms it was given, on average: year 0.64, site 0.25, clumping ≈ 2.2', () => {
    expect(fits.every((fit) => fit.yearVariance.status === 'estimated' && fit.plantingYears === 6)).toBe(true)
    expect(mean(fits.map((fit) => fit.yearVariance.value))).toBeGreaterThan(0.5)
    expect(mean(fits.map((fit) => fit.yearVariance.value))).toBeLessThan(0.8)
    expect(mean(fits.map((fit) => fit.siteVariance.value))).toBeGreaterThan(0.18)
    expect(mean(fits.map((fit) => fit.siteVariance.value))).toBeLessThan(0.32)
    // Beta-binomial ρ = 0.02 on plots of 20–120 trees: 1 + (n − 1)ρ from 1.4 to 3.4.
    expect(mean(fits.map((fit) => fit.clumping.value))).toBeGreaterThan(1.8)
    expect(mean(fits.map((fit) => fit.clumping.value))).toBeLessThan(2.8)
  })
})

describe('fitOffsets, rules', () => {
  it('is the same fit whatever the order of the plots', () => {
    const plots = dataSet(createRandom(5), [2018, 2019, 2020])
    const reversed = [...plots].reverse()
    expect(fitOffsets(reversed, WANTED, BASE, 0.9)).toEqual(fitOffsets(plots, WANTED, BASE, 0.9))
  })

  it('keeps the base version’s year variance under 3 planting years, and its other terms under 30 plots', () => {
    const twoYears = fitOffsets(dataSet(createRandom(6), [2020, 2021]), WANTED, BASE, 0.9)
    expect(twoYears.yearVariance).toEqual({ value: 0.8 ** 2, status: 'assumption' })
    expect(twoYears.siteVariance.status).toBe('estimated')
    const few = dataSet(createRandom(7), [2019, 2020, 2021]).slice(0, 20)
    const small = fitOffsets(few, WANTED, BASE, 0.9)
    expect(small.siteVariance).toEqual({ value: 0.5 ** 2, status: 'assumption' })
    expect(small.clumping).toEqual({ value: 2, status: 'assumption' })
  })

  it('gives a species × method without plots its method’s mean, with a wider interval', () => {
    const plots = dataSet(createRandom(8), [2019, 2020, 2021]).filter((plot) => plot.speciesCode !== 'PICO')
    const fit = fitOffsets(plots, WANTED, BASE, 0.9)
    const pico = fit.offsets.find((o) => o.speciesCode === 'PICO' && o.plantingMethod === 'manual')
    const tshe = fit.offsets.find((o) => o.speciesCode === 'TSHE' && o.plantingMethod === 'manual')
    expect(pico).toMatchObject({ estimate: null, shrinkage: 1 })
    expect(pico?.offset).toBeCloseTo(
      fit.methods.find((m) => m.plantingMethod === 'manual')?.mean as number,
      12,
    )
    expect((pico?.variance as number) > (tshe?.variance as number)).toBe(true)
  })
})
