import type { Climate, FuturePeriod, Method, Scenario } from './state.ts'

/** How the page writes planting methods, climates and numbers, and what it says of a future climate. */

export const METHOD_LABELS: Record<Method, string> = {
  manual: 'Hand planting',
  drone_seeded: 'Drone seeding',
}

export const TODAY_LABEL = 'Today (1991–2020)'
const PERIOD_LABELS: Record<FuturePeriod, string> = {
  '2011-2040': '2011–2040',
  '2041-2070': '2041–2070',
  '2071-2100': '2071–2100',
}
/** The scenarios' usual names, as the API's climateScenarios gives them. */
export const SCENARIO_LABELS: Record<Scenario, string> = {
  ssp245: 'SSP2-4.5',
  ssp370: 'SSP3-7.0',
  ssp585: 'SSP5-8.5',
}

export function periodLabel(period: FuturePeriod): string {
  return PERIOD_LABELS[period]
}

/** "2041–2070, SSP2-4.5"; today's climate when there is no future. */
export function climateLabel(climate: Climate | null): string {
  return climate ? `${PERIOD_LABELS[climate.period]}, ${SCENARIO_LABELS[climate.scenario]}` : TODAY_LABEL
}

/** "2041–2070, SSP2-4.5 (climate-synthesis-…): <the data's note>." */
export function climateNote(climate: Climate, dataVersion: string, note: string): string {
  return `${climateLabel(climate)} (${dataVersion}): ${note}.`
}

/** Where a future climate's values surface, the page says what they are not for. */
export const FUTURE_CAVEAT = 'A rounded synthesis of projections: not for real planting decisions.'
export const TODAY_CAVEAT = 'Today: the climate of the site data (1991–2020).'

export const percent = (p: number, digits = 1): string => `${(p * 100).toFixed(digits)}%`
/** A change of survival in percentage points, signed with a real minus: "−4.2 pp". */
export const points = (change: number, digits = 1): string =>
  `${change >= 0 ? '+' : '−'}${Math.abs(change * 100).toFixed(digits)} pp`
/** Whole trees, grouped: "1,235". */
export const trees = (value: number): string => Math.round(value).toLocaleString('en-US')
export const years = (n: number): string => `${n} year${n === 1 ? '' : 's'}`
/** "1 feature", "1,200 features". */
export const count = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

/** A model version as an answer names it (the fields the page reads). */
export interface ModelName {
  series: string
  version: string
  codename: string
  kind: 'BASE' | 'CALIBRATED'
  parent?: string | null
}

/** "mycel 0.2 (chanterelle)", or "mycel 0.2+cal.3f9a1c2e (chanterelle), calibrated from 0.2". */
export function modelName(model: ModelName): string {
  const from = model.kind === 'CALIBRATED' ? `, calibrated${model.parent ? ` from ${model.parent}` : ''}` : ''
  return `${model.series} ${model.version} (${model.codename})${from}`
}

/** An instant of the API (ISO 8601) as a date, "2026-05-01", or with its UTC time. */
export function dateOf(iso: string, withTime = false): string {
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return iso
  const text = at.toISOString()
  return withTime ? `${text.slice(0, 10)} ${text.slice(11, 16)} UTC` : text.slice(0, 10)
}
