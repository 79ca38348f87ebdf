import { describe, expect, it } from 'vitest'
import { BASE_TERMS, calibrationSurvey, SIX_YEARS, WANTED } from '../../seed/calibration-surveys.ts'
import { createRandom } from '../../seed/survey-simulation.ts'
import { TREATMENTS } from '../treatments.ts'
import {
  type CalibrationInput,
  calibrationText,
  calibrationVersion,
  fitCalibration,
} from './calibration-fit.ts'

/**
 * A calibration's id is the hash of its fit: plots without treatments must keep the id (and bytes)
 * they had before plots could carry treatments. The golden id below was made by the fit as it was
 * then, on the same seeded plots.
 */
const GOLDEN = '0.2+cal.cc3fc2d5'

function input(
  plots: CalibrationInput['plots'],
  treatments?: CalibrationInput['treatments'],
): CalibrationInput {
  return {
    parent: { version: '0.2', uncertainty: BASE_TERMS },
    filter: {},
    plots,
    wanted: WANTED,
    otherVersionPlots: 0,
    dataVersions: [],
    ...(treatments ? { treatments } : {}),
  }
}

const versionOf = (value: CalibrationInput) =>
  calibrationVersion('0.2', calibrationText(fitCalibration(value)))

describe('calibration ids with and without treated plots', () => {
  const plots = calibrationSurvey(createRandom(0x601d), SIX_YEARS)

  it('plots without treatments give the id they always gave, with or without the treatments data', () => {
    expect(versionOf(input(plots))).toBe(GOLDEN)
    const fit = fitCalibration(input(plots, TREATMENTS.byEffect))
    expect(calibrationVersion('0.2', calibrationText(fit))).toBe(GOLDEN)
    expect(fit.treatmentEffects).toBeUndefined()
  })

  it('treated plots report their effects, and the same plots in another order give the same id', () => {
    const [tubes] = [...TREATMENTS.byEffect].filter(([, e]) => e.treatment === 'animal_protection')
    if (!tubes) throw new Error('the treatments data has no animal protection effect')
    const treated = plots.map((plot, i) =>
      i % 3 === 0 ? { ...plot, treatmentSlopes: { [tubes[0]]: 1 + (i % 5) / 4 } } : plot,
    )
    const forward = fitCalibration(input(treated, TREATMENTS.byEffect))
    const backward = fitCalibration(input([...treated].reverse(), TREATMENTS.byEffect))
    expect(calibrationText(forward)).toBe(calibrationText(backward))
    expect(calibrationVersion('0.2', calibrationText(forward))).not.toBe(GOLDEN)
    const [effect] = forward.treatmentEffects ?? []
    expect(effect?.effectId).toBe(tubes[0])
    expect(effect?.status).toBe('estimated')
    expect(effect?.treatment).toBe('animal_protection')
    expect(effect?.prior).toEqual({ mean: tubes[1].mean, sd: tubes[1].sd })
    expect(effect?.posterior.interval[0]).toBeLessThanOrEqual(effect?.posterior.mean as number)
    expect(effect?.posterior.interval[1]).toBeGreaterThanOrEqual(effect?.posterior.mean as number)
    expect(effect?.moved).toBeCloseTo(((effect?.posterior.mean as number) - tubes[1].mean) / tubes[1].sd, 12)
  })

  it('an effect on plots whose species × method holds no untreated plot keeps its prior, and says why', () => {
    const [tubes] = [...TREATMENTS.byEffect].filter(([, e]) => e.treatment === 'animal_protection')
    if (!tubes) throw new Error('the treatments data has no animal protection effect')
    const treated = plots.map((plot) =>
      plot.speciesCode === 'PSME' && plot.plantingMethod === 'manual'
        ? { ...plot, treatmentSlopes: { [tubes[0]]: 1 } }
        : plot,
    )
    const [effect] = fitCalibration(input(treated, TREATMENTS.byEffect)).treatmentEffects ?? []
    expect(effect?.status).toBe('prior')
    expect(effect?.moved).toBe(0)
    expect(effect?.posterior.mean).toBe(tubes[1].mean)
    expect(effect?.note).toMatch(/cannot be told from the offsets/)
  })
})
