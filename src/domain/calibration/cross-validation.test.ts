import { describe, expect, it } from 'vitest'
import {
  BASE_TERMS as BASE,
  calibrationSurvey,
  SIX_YEARS,
  TRUE_OFFSETS,
  WANTED,
} from '../../seed/calibration-surveys.ts'
import { createRandom, type RandomSource } from '../../seed/survey-simulation.ts'
import { crossValidate } from './cross-validation.ts'

const dataSet = (random: RandomSource, offsets: Record<string, number>) =>
  calibrationSurvey(random, SIX_YEARS, offsets)

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
    const runs = ratios(0xcf1, TRUE_OFFSETS)
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
