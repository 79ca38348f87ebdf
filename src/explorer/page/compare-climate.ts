import type { Comparison, TodayBeside } from './charts.ts'
import { element, paragraph, tableRow } from './dom.ts'
import { climateLabel, climateNote, FUTURE_CAVEAT, percent, periodLabel, points } from './format.ts'
import type { ExplorerClimateFragment } from './generated/operations.ts'
import { type Climate, HORIZONS, METHODS } from './state.ts'

/** A comparison as it was answered: for the climate it was asked for, with today's survival beside a future. */
export interface ComparisonAnswer {
  comparison: Comparison
  climate: Climate | null
  projection: ExplorerClimateFragment | null
  today: TodayBeside | null
}

/** A signed value as written ("+2.3 °C", "−8.0 %"); a value that rounds to zero has no sign. */
function signedNumber(value: number, digits: number, unit: string): string {
  const rounded = Number(value.toFixed(digits))
  const sign = rounded > 0 ? '+' : rounded < 0 ? '−' : ''
  return `${sign}${Math.abs(rounded).toFixed(digits)}${unit}`
}

/** The deltas a future climate applied at the matched site, in one sentence. */
function deltasSentence(deltas: ExplorerClimateFragment['deltas']): string {
  return `At this site: mean annual temperature ${signedNumber(deltas.meanAnnualTemperatureC, 1, ' °C')}, summer maximum ${signedNumber(deltas.summerMaxTemperatureC, 1, ' °C')}, annual precipitation ${signedNumber(deltas.annualPrecipitationPct, 1, ' %')}, summer precipitation ${signedNumber(deltas.summerPrecipitationPct, 1, ' %')}, water deficit ${signedNumber(deltas.waterDeficitMm, 0, ' mm')}.`
}

/**
 * The compare panel under a future climate: survival today and in the future for both methods at each
 * horizon, with the change, then the climate data's note and what the climate does at the site. Both
 * show as soon as a future is chosen (with dashes, and an empty note of reserved height), so the
 * answer moves little; `current` is the answer under that climate, if there is one yet.
 */
export function renderClimateSection(climate: Climate | null, current: ComparisonAnswer | null): void {
  const table = element('climate-table')
  const note = element('climate-note')
  table.hidden = note.hidden = climate === null
  if (!climate) return
  element('climate-table-label').textContent = climateLabel(climate)
  element('climate-table-future').textContent = periodLabel(climate.period)
  const projection = current?.projection
  note.replaceChildren(
    ...(projection
      ? [
          paragraph(climateNote(climate, projection.dataVersion, projection.note)),
          paragraph(deltasSentence(projection.deltas)),
        ]
      : [paragraph(`${climateLabel(climate)}: ${FUTURE_CAVEAT}`)]),
  )
  element('climate-body').replaceChildren(
    ...HORIZONS.flatMap((years) =>
      METHODS.map((method) => {
        const label = method === 'manual' ? 'Hand' : 'Drone'
        const futureRows = method === 'manual' ? current?.comparison.manual : current?.comparison.droneSeeded
        const todayRows = method === 'manual' ? current?.today?.manual : current?.today?.droneSeeded
        const future = futureRows?.find((row) => row.horizonYears === years)?.survivalProbability
        const today = todayRows?.find((row) => row.horizonYears === years)?.survivalProbability
        if (future === undefined || today === undefined)
          return tableRow([String(years), label, '—', '—', '—'])
        return tableRow([String(years), label, percent(today), percent(future), points(future - today)])
      }),
    ),
  )
}
