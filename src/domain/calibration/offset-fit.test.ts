import { describe, expect, it } from 'vitest'
import {
  BASE_TERMS as BASE,
  CONSTANT_DISPERSION,
  calibrationSurvey,
  SIX_YEARS,
  TRUE_DISPERSION,
  TRUE_SITE_SD,
  TRUE_YEAR_SD,
  TRUE_OFFSETS as TRUTH,
  WANTED,
} from '../../seed/calibration-surveys.ts'
import {
  createRandom,
  type SimulatedPlot,
  simulateSurveyFromSeed,
  truthKey,
} from '../../seed/survey-simulation.ts'
import type { PlantingMethod } from '../../types.ts'
import { survivalAtAge } from '../surveys/survival-at-age.ts'
import { fitOffsets, type OffsetFit } from './offset-fit.ts'

/**
 * The calibration's offsets and variance terms against a stated truth (src/seed/calibration-surveys.ts):
 * the base model plus known offsets, a planting-year effect drawn anew for each data set (SD 0.8), a site
 * effect (SD 0.5) and counts clumped by one dispersion φ = 2 on every plot, the fit's own model.
 */
const dataSet = calibrationSurvey

const mean = (values: readonly number[]) => values.reduce((sum, x) => sum + x, 0) / values.length

describe('fitOffsets over 200 simulated data sets of 300 plots', () => {
  const random = createRandom(0xca1)
  const fits = Array.from({ length: 200 }, () =>
    fitOffsets(dataSet(random, SIX_YEARS, TRUTH, CONSTANT_DISPERSION), WANTED, BASE, 0.9),
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

  it('estimates the variance terms it was given, on average: year 0.64, site 0.25, clumping 2', () => {
    expect(fits.every((fit) => fit.yearVariance.status === 'estimated' && fit.plantingYears === 6)).toBe(true)
    // Over 200 data sets the means' SDs are about 0.025, 0.006 and 0.06.
    expect(mean(fits.map((fit) => fit.yearVariance.value))).toBeGreaterThan(0.55)
    expect(mean(fits.map((fit) => fit.yearVariance.value))).toBeLessThan(0.73)
    expect(mean(fits.map((fit) => fit.siteVariance.value))).toBeGreaterThan(0.23)
    expect(mean(fits.map((fit) => fit.siteVariance.value))).toBeLessThan(0.28)
    expect(mean(fits.map((fit) => fit.clumping.value))).toBeGreaterThan(1.8)
    expect(mean(fits.map((fit) => fit.clumping.value))).toBeLessThan(2.2)
  })

  // The 90 % intervals hold the truth in 85–95 % of the 200 data sets (a binomial SD of 2.1 points
  // around 90 %): too narrow fails as surely as too wide. The clumping and site terms' interval from the
  // least-squares line's own sandwich, leaving out what the fitted effects bring, covered s² in 83 %.
  it.each([
    ['planting year σ_y²', 'yearVariance', TRUE_YEAR_SD ** 2],
    ['site s²', 'siteVariance', TRUE_SITE_SD ** 2],
    ['clumping φ', 'clumping', TRUE_DISPERSION],
  ] as const)('the 90 %% intervals of the %s hold the truth in 85–95 %% of cases', (_, term, truth) => {
    const held = fits.filter((fit: OffsetFit) => {
      const [low, high] = fit[term].interval as [number, number]
      return low <= truth && truth <= high
    })
    expect(held.length / fits.length).toBeGreaterThanOrEqual(0.85)
    expect(held.length / fits.length).toBeLessThanOrEqual(0.95)
  })
})

describe('the simulated truth', () => {
  // The fit's φ is one dispersion for every plot; one beta-binomial ρ would make it 1 + (n − 1)ρ.
  const sites = ['manual', 'drone_seeded'].map((plantingMethod) => ({
    speciesCode: 'PSME',
    plantingMethod: plantingMethod as PlantingMethod,
    predictedAt: (age: number) => survivalAtAge({ 1: 0.9, 3: 0.8, 5: 0.72 }, age),
  }))
  const design = {
    sites,
    plotsPerSite: 1500,
    planted: { min: 10, max: 500 },
    plantingYears: [2019, 2020],
    ageYears: { min: 0.5, max: 6 },
  }
  const dispersionOf = (plots: readonly SimulatedPlot[]) =>
    mean(
      plots.map((p) => {
        const binomial = p.planted * p.trueSurvival * (1 - p.trueSurvival)
        return (p.alive - p.planted * p.trueSurvival) ** 2 / binomial
      }),
    )

  it('with a dispersion φ, clumps plots of every size alike: variance φ nμ(1 − μ)', () => {
    const plots = simulateSurveyFromSeed(12, design, { dispersion: 3 })
    const small = plots.filter((p) => p.planted < 100)
    const large = plots.filter((p) => p.planted > 400)
    // About 600 plots each: the mean of φχ²₁ has an SD of about 3·√(2/600) = 0.17.
    for (const plots of [small, large]) {
      expect(dispersionOf(plots)).toBeGreaterThan(2.5)
      expect(dispersionOf(plots)).toBeLessThan(3.5)
    }
    const correlated = simulateSurveyFromSeed(12, design, { clumping: 0.005 })
    expect(dispersionOf(correlated.filter((p) => p.planted > 400))).toBeGreaterThan(
      dispersionOf(correlated.filter((p) => p.planted < 100)) + 1,
    )
    expect(simulateSurveyFromSeed(4, design, { dispersion: 1 })).toEqual(simulateSurveyFromSeed(4, design))
  })

  it('refuses a dispersion below 1, not below the fewest trees planted, or beside a correlation', () => {
    expect(() => simulateSurveyFromSeed(1, design, { dispersion: 0.5 })).toThrow(RangeError)
    expect(() => simulateSurveyFromSeed(1, design, { dispersion: 10 })).toThrow(/below the fewest trees/)
    expect(() => simulateSurveyFromSeed(1, design, { dispersion: 2, clumping: 0.02 })).toThrow(/not both/)
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
    expect(twoYears.yearVariance).toEqual({ value: 0.8 ** 2, status: 'assumption', interval: null })
    expect(twoYears.siteVariance.status).toBe('estimated')
    const few = dataSet(createRandom(7), [2019, 2020, 2021]).slice(0, 20)
    const small = fitOffsets(few, WANTED, BASE, 0.9)
    expect(small.siteVariance).toEqual({ value: 0.5 ** 2, status: 'assumption', interval: null })
    expect(small.clumping).toEqual({ value: 2, status: 'assumption', interval: null })
  })

  it('gives each estimated term an interval at the level asked for, within the term’s bounds', () => {
    const plots = dataSet(createRandom(9), SIX_YEARS, TRUTH, CONSTANT_DISPERSION)
    const wide = fitOffsets(plots, WANTED, BASE, 0.9)
    const narrow = fitOffsets(plots, WANTED, BASE, 0.5)
    for (const term of ['yearVariance', 'siteVariance', 'clumping'] as const) {
      expect(narrow[term].value).toBe(wide[term].value)
      const [low, high] = wide[term].interval as [number, number]
      const [narrowLow, narrowHigh] = narrow[term].interval as [number, number]
      expect(low).toBeLessThanOrEqual(narrowLow)
      expect(high).toBeGreaterThan(narrowHigh)
      expect(high - low).toBeGreaterThan(narrowHigh - narrowLow)
      expect(low).toBeGreaterThanOrEqual(term === 'clumping' ? 1 : 0)
    }
    for (const term of ['siteVariance', 'clumping'] as const) {
      const [low, high] = wide[term].interval as [number, number]
      expect(low <= wide[term].value && wide[term].value <= high).toBe(true)
    }
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
