import { describe, expect, it } from 'vitest'
import {
  createRandom,
  normalDraw,
  type RandomSource,
  type SimulatedSite,
  simulateSurvey,
  truthKey,
} from '../../seed/survey-simulation.ts'
import type { PlantingMethod } from '../../types.ts'
import { survivalAtAge } from '../surveys/survival-at-age.ts'
import { type CalibrationPlot, fitOffsets } from './offset-fit.ts'

/**
 * The calibration's offsets against a stated truth: the base model plus known offsets (Douglas-fir by
 * hand −0.6, ponderosa pine by drone +0.4, every other 0), a planting-year effect drawn anew for each
 * data set (SD 0.8), a site effect (SD 0.5) and clumped counts.
 */
const SPECIES = ['PSME', 'PIPO', 'TSHE', 'THPL', 'ABGR', 'PICO']
const METHODS: readonly PlantingMethod[] = ['manual', 'drone_seeded']
const WANTED = SPECIES.flatMap((speciesCode) =>
  METHODS.map((plantingMethod) => ({ speciesCode, plantingMethod })),
)
const BASE = { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2 }
const TRUTH = { [truthKey('PSME', 'manual')]: -0.6, [truthKey('PIPO', 'drone_seeded')]: 0.4 }

function sitesFor(speciesCode: string, plantingMethod: PlantingMethod): SimulatedSite[] {
  const drone = plantingMethod === 'drone_seeded' ? 0.25 : 0
  return Array.from({ length: 5 }, (_, i) => {
    const horizons = { 1: 0.92 - 0.02 * i - drone, 3: 0.82 - 0.03 * i - drone, 5: 0.74 - 0.04 * i - drone }
    return { speciesCode, plantingMethod, predictedAt: (age: number) => survivalAtAge(horizons, age) }
  })
}
const SITES = WANTED.flatMap(({ speciesCode, plantingMethod }) => sitesFor(speciesCode, plantingMethod))

/** About 300 plots (5 a site) over `years`, each year's effect drawn from N(0, 0.8²). */
function dataSet(random: RandomSource, years: readonly number[], offsets = TRUTH): CalibrationPlot[] {
  const plantingYearEffects = Object.fromEntries(years.map((year) => [year, 0.8 * normalDraw(random)]))
  const plots = simulateSurvey(
    random,
    {
      sites: SITES,
      plotsPerSite: 5,
      planted: { min: 20, max: 120 },
      plantingYears: years,
      ageYears: { min: 0.5, max: 6 },
    },
    { offsets, plantingYearEffects, plotEffectSd: 0.5, clumping: 0.02 },
  )
  return plots.map((plot) => ({ ...plot, plantingYear: Number(plot.plantedOn.slice(0, 4)) }))
}

const mean = (values: readonly number[]) => values.reduce((sum, x) => sum + x, 0) / values.length

describe('fitOffsets over 150 simulated data sets of 300 plots', () => {
  const random = createRandom(0xca1)
  const fits = Array.from({ length: 150 }, () =>
    fitOffsets(dataSet(random, [2016, 2017, 2018, 2019, 2020, 2021]), WANTED, BASE, 0.9),
  )

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
