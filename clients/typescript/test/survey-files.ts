/** Survey files for the upload tests of the client and the scorer: plots as CSV lines and NDJSON objects. */
import { FOREST_POINTS } from '../../../test/support/sites.ts'

export const SURVEY_HEADER =
  'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive'

/** A plot that is stored as it is (Douglas-fir in the Coast Range, 31 of 40 alive); `overrides` break it. */
export function surveyPlot(plotId: string, overrides: Record<string, string | number> = {}) {
  return {
    plot_id: plotId,
    ...FOREST_POINTS.coastRange,
    species_code: 'PSME',
    planting_method: 'manual',
    planted_on: '2021-03-15',
    surveyed_on: '2024-03-15',
    planted: 40,
    alive: 31,
    ...overrides,
  }
}

/** The plot as a CSV line in the order of SURVEY_HEADER. */
export function surveyCsvRow(plotId: string, overrides: Record<string, string | number> = {}): string {
  const plot = surveyPlot(plotId, overrides) as Record<string, string | number>
  return SURVEY_HEADER.split(',')
    .map((name) => plot[name])
    .join(',')
}

/** A CSV file: the header, then one line per plot id (`broken` ids with 50 alive of 40: refused). */
export function surveyCsv(good: string[], broken: string[] = []): string {
  const lines = [
    ...good.map((id) => surveyCsvRow(id)),
    ...broken.map((id) => surveyCsvRow(id, { alive: 50 })),
  ]
  return `${[SURVEY_HEADER, ...lines].join('\n')}\n`
}
