/** Calibration plots as the survey store hands them over (CalibrationPlotColumns), for the unit tests. */
import type { CalibrationPlot } from '../../src/domain/calibration/offset-fit.ts'
import type { CalibrationPlotColumns, SurveyStore } from '../../src/domain/ports/surveys.ts'

/** One group per species × method, in the order the plots first name them. */
export function calibrationColumns(
  plots: readonly CalibrationPlot[],
  otherVersionPlots = 0,
): CalibrationPlotColumns {
  const byGroup = new Map<string, CalibrationPlot[]>()
  for (const plot of plots) {
    const key = `${plot.speciesCode}/${plot.plantingMethod}`
    byGroup.set(key, [...(byGroup.get(key) ?? []), plot])
  }
  return {
    groups: [...byGroup.values()].map((members) => {
      const first = members[0] as CalibrationPlot
      return {
        speciesCode: first.speciesCode,
        plantingMethod: first.plantingMethod,
        planted: Int32Array.from(members, (p) => p.planted),
        alive: Int32Array.from(members, (p) => p.alive),
        predicted: Float64Array.from(members, (p) => p.predicted),
        ageYears: Float64Array.from(members, (p) => p.ageYears),
        plantingYear: Int32Array.from(members, (p) => p.plantingYear),
      }
    }),
    otherVersionPlots,
    dataVersions: [],
  }
}

/** A survey store that holds only these plots, for calibrations (every other call is a test's mistake). */
export function calibrationSurveyStore(
  plots: readonly CalibrationPlot[],
  otherVersionPlots = 0,
): SurveyStore {
  return {
    calibrationPlots: async () => calibrationColumns(plots, otherVersionPlots),
  } as Partial<SurveyStore> as SurveyStore
}
