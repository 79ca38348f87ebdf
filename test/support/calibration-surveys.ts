/** Surveys a calibration over HTTP fits on: what the REST and GraphQL calibration tests store. */
import { forestGrid } from './sites.ts'

export const CALIBRATION_POINTS = forestGrid(36)
export const CALIBRATION_YEARS = [2017, 2018, 2019, 2020]

/**
 * Douglas-fir by hand dies far more than the base version says (about a third lives at three years),
 * western redcedar by hand at 80–86 % after one year: 36 points × 4 planting years of each.
 */
export function calibrationSurveys() {
  const plots: Record<string, unknown>[] = []
  CALIBRATION_POINTS.forEach((point, i) => {
    for (const year of CALIBRATION_YEARS) {
      const planted = 30 + ((i * 7 + year) % 40)
      plots.push({
        plot_id: `psme-${i}-${year}`,
        ...point,
        species_code: 'PSME',
        planting_method: 'manual',
        planted_on: `${year}-03-01`,
        surveyed_on: `${year + 3}-03-01`,
        planted,
        alive: Math.round(planted * (0.28 + ((i + year) % 5) * 0.02)),
      })
      plots.push({
        plot_id: `thpl-${i}-${year}`,
        ...point,
        species_code: 'THPL',
        planting_method: 'manual',
        planted_on: `${year}-03-01`,
        surveyed_on: `${year + 1}-03-01`,
        planted,
        alive: Math.round(planted * (0.8 + ((i + year) % 3) * 0.03)),
      })
    }
  })
  return plots
}
