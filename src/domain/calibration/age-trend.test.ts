import { describe, expect, it } from 'vitest'
import { BASE_TERMS, calibrationSurvey, SIX_YEARS, WANTED } from '../../seed/calibration-surveys.ts'
import { binomialDraw, createRandom } from '../../seed/survey-simulation.ts'
import { logit, sigmoid } from '../../stats/logistic.ts'
import { AGE_TREND_LEVEL, ageTrend } from './age-trend.ts'
import { crossValidate } from './cross-validation.ts'
import { type CalibrationPlot, fitOffsets } from './offset-fit.ts'

/** The test's z on held-out plots, as the calibration computes it. */
function trendOf(plots: readonly CalibrationPlot[]) {
  const fit = fitOffsets(plots, WANTED, BASE_TERMS, 0.9)
  const { heldOut } = crossValidate(plots, WANTED, BASE_TERMS)
  return ageTrend(heldOut.plots, heldOut.calibrated, {
    clumping: fit.clumping.value,
    siteVariance: fit.siteVariance.value,
    yearVariance: fit.yearVariance.value,
  })
}

describe('ageTrend', () => {
  it('rarely finds a trend where the truth has none', () => {
    const random = createRandom(0xa6e)
    let found = 0
    const sets = 60
    for (let k = 0; k < sets; k++)
      if ((trendOf(calibrationSurvey(random, SIX_YEARS, {}))?.p ?? 1) < AGE_TREND_LEVEL) found++
    // At the 1 % level about 0.6 of 60 (2 with seed 0xa6e; 7 when the variance left the shared
    // planting-year effects out).
    expect(found).toBeLessThanOrEqual(4)
  })

  it('finds one where survival falls away from the model’s with age, and says which way', () => {
    const random = createRandom(0xa6f)
    let found = 0
    for (let k = 0; k < 20; k++) {
      const plots = calibrationSurvey(random, SIX_YEARS, {}).map((plot) => ({
        ...plot,
        alive: binomialDraw(
          random,
          plot.planted,
          sigmoid(logit(plot.predicted) - 0.35 * (plot.ageYears - 3)),
        ),
      }))
      const trend = trendOf(plots)
      if (trend && trend.p < AGE_TREND_LEVEL && trend.z < 0) found++
    }
    expect(found).toBeGreaterThanOrEqual(18)
  })
})
