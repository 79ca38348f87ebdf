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
import { crossValidate } from './cross-validation.ts'
import type { CalibrationPlot } from './offset-fit.ts'

const SPECIES = ['PSME', 'PIPO', 'TSHE', 'THPL', 'ABGR', 'PICO']
const METHODS: readonly PlantingMethod[] = ['manual', 'drone_seeded']
const WANTED = SPECIES.flatMap((speciesCode) =>
  METHODS.map((plantingMethod) => ({ speciesCode, plantingMethod })),
)
const BASE = { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2 }
const YEARS = [2016, 2017, 2018, 2019, 2020, 2021]
const SITES: SimulatedSite[] = WANTED.flatMap(({ speciesCode, plantingMethod }) =>
  Array.from({ length: 5 }, (_, i) => {
    const drone = plantingMethod === 'drone_seeded' ? 0.25 : 0
    const horizons = { 1: 0.92 - 0.02 * i - drone, 3: 0.82 - 0.03 * i - drone, 5: 0.74 - 0.04 * i - drone }
    return { speciesCode, plantingMethod, predictedAt: (age: number) => survivalAtAge(horizons, age) }
  }),
)

function dataSet(random: RandomSource, offsets: Record<string, number>): CalibrationPlot[] {
  const plantingYearEffects = Object.fromEntries(YEARS.map((year) => [year, 0.8 * normalDraw(random)]))
  return simulateSurvey(
    random,
    {
      sites: SITES,
      plotsPerSite: 5,
      planted: { min: 20, max: 120 },
      plantingYears: YEARS,
      ageYears: { min: 0.5, max: 6 },
    },
    { offsets, plantingYearEffects, plotEffectSd: 0.5, clumping: 0.02 },
  ).map((plot) => ({ ...plot, plantingYear: Number(plot.plantedOn.slice(0, 4)) }))
}

/** Calibrated ÷ base out-of-sample log loss over 20 data sets of 300 plots. */
function ratios(seed: number, offsets: Record<string, number>) {
  const random = createRandom(seed)
  return Array.from({ length: 20 }, () => {
    const cv = crossValidate(dataSet(random, offsets), WANTED, BASE)
    return { ratio: cv.calibrated.logLoss / cv.base.logLoss, beats: cv.beatsBase }
  })
}

const mean = (values: readonly number[]) => values.reduce((sum, x) => sum + x, 0) / values.length

describe('crossValidate, 5 folds by plot, over simulated surveys', () => {
  it('where the truth differs from the base (PSME manual −0.6, PIPO drone +0.4), the calibration predicts better out of sample', () => {
    const runs = ratios(0xcf1, {
      [truthKey('PSME', 'manual')]: -0.6,
      [truthKey('PIPO', 'drone_seeded')]: 0.4,
    })
    expect(runs.filter((run) => run.beats).length).toBeGreaterThanOrEqual(16)
    expect(mean(runs.map((run) => run.ratio))).toBeLessThan(0.995)
  })

  it('where the truth is the base model, its out-of-sample log loss is within 1 % of the base’s (no overfitting)', () => {
    const runs = ratios(0xcf2, {})
    expect(mean(runs.map((run) => run.ratio))).toBeLessThanOrEqual(1.01)
  })
})

describe('crossValidate, rules', () => {
  const plots = dataSet(createRandom(9), {})

  it('scores every plot once, and the same plots in any order give the same figures', () => {
    const cv = crossValidate(plots, WANTED, BASE)
    expect(cv.plots).toBe(plots.length)
    expect(cv.trees).toBe(plots.reduce((sum, plot) => sum + plot.planted, 0))
    expect(crossValidate([...plots].reverse(), WANTED, BASE)).toEqual(cv)
  })

  it('refuses fewer plots than folds, and fewer than 2 folds', () => {
    expect(() => crossValidate(plots.slice(0, 3), WANTED, BASE)).toThrow(RangeError)
    expect(() => crossValidate(plots, WANTED, BASE, 1)).toThrow(RangeError)
  })
})
