import { normalCdf } from '../../stats/normal.ts'
import type { CalibrationPlot } from './offset-fit.ts'

/*
 * Whether a calibration's misfit changes with the plots' ages: the score test of an age slope, with
 * the calibrated predictions of the plots held out of the fit. A version adds one offset at every age
 * (no age-slope term: docs/models.md says why); when this test finds a trend, the fit says so, and the
 * survey report's age bands show where.
 *   U = Σᵢ (aᵢ − nᵢqᵢ)(tᵢ − t̄),  wᵢ = nᵢqᵢ(1 − qᵢ), t̄ weighted by wᵢ,
 *   Var U = Σᵢ (φ wᵢ + s² wᵢ²)(tᵢ − t̄)² + σ_y² Σ_y (Σ_{i planted in y} wᵢ (tᵢ − t̄))²,
 * the last term for the planting-year effect every plot of a year shares (it moves their survivors by
 * about wᵢ v_y together), and z = U / √Var U against the normal.
 */

/** Below this two-sided p the fit notes the trend. */
export const AGE_TREND_LEVEL = 0.01

export interface AgeTrend {
  /** Positive: older plots survive better than the calibration says, younger ones worse. */
  z: number
  p: number
}

export function ageTrend(
  plots: readonly CalibrationPlot[],
  calibrated: Float64Array,
  terms: { clumping: number; siteVariance: number; yearVariance: number },
): AgeTrend | null {
  let weights = 0
  let weightedAge = 0
  for (let i = 0; i < plots.length; i++) {
    const q = calibrated[i] as number
    const w = (plots[i] as CalibrationPlot).planted * q * (1 - q)
    weights += w
    weightedAge += w * (plots[i] as CalibrationPlot).ageYears
  }
  if (!(weights > 0)) return null
  const meanAge = weightedAge / weights
  let score = 0
  let variance = 0
  const byYear = new Map<number, number>()
  for (let i = 0; i < plots.length; i++) {
    const plot = plots[i] as CalibrationPlot
    const q = calibrated[i] as number
    const w = plot.planted * q * (1 - q)
    const centred = plot.ageYears - meanAge
    score += (plot.alive - plot.planted * q) * centred
    variance += (terms.clumping * w + terms.siteVariance * w * w) * centred * centred
    byYear.set(plot.plantingYear, (byYear.get(plot.plantingYear) ?? 0) + w * centred)
  }
  for (const shared of byYear.values()) variance += terms.yearVariance * shared * shared
  if (!(variance > 0)) return null
  const z = score / Math.sqrt(variance)
  return { z, p: 2 * (1 - normalCdf(Math.abs(z))) }
}
