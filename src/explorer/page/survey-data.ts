import { count, METHOD_LABELS, percent, points } from './format.ts'
import type {
  ExplorerSurveyGroupFragment,
  ExplorerSurveyPlotsQuery,
  ExplorerSurveyReportQuery,
  PlantingMethod,
} from './generated/operations.ts'
import type { SurveyPlotMark } from './map-surveys.ts'
import type { Method } from './state.ts'

/**
 * What the Observations tab reads and says: the account's plots, its survey report, and what a survey
 * upload answered, in the page's words. No DOM here.
 */

export type SurveyReport = ExplorerSurveyReportQuery['surveyReport']
export type SurveyGroup = ExplorerSurveyGroupFragment
export type SurveyPlot = ExplorerSurveyPlotsQuery['surveys']['plots'][number]
export type ReliabilityBin = SurveyReport['reliability'][number]

/** At most this many surveys are drawn on the map (five pages of the largest size). */
export const MAX_PLOTS_DRAWN = 5000
/** The largest page `surveys` answers. */
export const SURVEY_PAGE = 1000
/** Refused rows listed under an upload: the first page the API gives, no more. */
export const REFUSED_SHOWN = 100

/** One refused row of an upload, as POST /v1/surveys/uploads lists it. */
export interface SurveyRefusal {
  row: number
  plot_id: string | null
  field: string
  code: string
  reason: string
}

/** The 201 answer of POST /v1/surveys/uploads (the fields the page reads). */
export interface SurveyUpload {
  upload_id: string
  status: string
  rows: number
  valid_rows: number
  refused_rows: number
  stored: number
  ignored_columns: string[]
  refused: SurveyRefusal[]
  next_cursor: string | null
}

/** `details` of a 422 survey_upload_refused: rows were refused, so nothing was stored. */
export interface SurveyUploadRefusal {
  upload_id: string
  rows: number
  refused_rows: number
  refused: SurveyRefusal[]
}

export type SurveyUploadOutcome =
  | { kind: 'stored'; upload: SurveyUpload }
  | { kind: 'refused'; refusal: SurveyUploadRefusal }

/** What the page shows of an upload: one sentence, the refused rows listed, and how many more there are. */
export interface UploadSummary {
  stored: boolean
  text: string
  refused: SurveyRefusal[]
  notListed: number
  uploadId: string
}

export function methodOf(method: PlantingMethod): Method {
  return method === 'DRONE_SEEDED' ? 'drone_seeded' : 'manual'
}

/** The report's species × method groups, without their age bands, in the report's order. */
export function speciesMethodGroups(report: SurveyReport): SurveyGroup[] {
  return report.groups.filter((group) => group.ageBand === null && group.speciesCode !== null)
}

/** "72.1–82.3%": an interval of survival. */
export function survivalInterval({ low, high }: { low: number; high: number }): string {
  return `${(low * 100).toFixed(1)}–${percent(high)}`
}

/** "−8.1 to +2.8 pp": an interval of a difference in percentage points. */
export function differenceInterval({ low, high }: { low: number; high: number }): string {
  return `${points(low).replace(' pp', '')} to ${points(high)}`
}

/** A number with a real minus when it is negative: "1.05", "−0.30". */
export function decimal(value: number, digits = 2): string {
  return `${value < 0 ? '−' : ''}${Math.abs(value).toFixed(digits)}`
}

/** A signed number with a real minus: "+0.12", "−0.30"; one that rounds to zero has no sign, "0.00". */
export function signed(value: number, digits = 2): string {
  const magnitude = Math.abs(value).toFixed(digits)
  if (Number(magnitude) === 0) return magnitude
  return `${value > 0 ? '+' : '−'}${magnitude}`
}

/** The plots as the map draws them: each with its method in words. */
export function plotMarks(plots: readonly SurveyPlot[]): SurveyPlotMark[] {
  return plots.map((plot) => ({
    plotId: plot.plotId,
    surveyedOn: plot.surveyedOn,
    latitude: plot.latitude,
    longitude: plot.longitude,
    speciesCode: plot.speciesCode,
    method: METHOD_LABELS[methodOf(plot.plantingMethod)],
    planted: plot.planted,
    alive: plot.alive,
    observedSurvival: plot.observedSurvival,
    predictedSurvival: plot.predictedSurvival,
  }))
}

/** Under the map legend: how many surveys are drawn, and whether the account has more. */
export function plotsNote(drawn: number, more: boolean): string {
  const what = `${count(drawn, 'survey')} drawn`
  return more
    ? `${what}: the first ${MAX_PLOTS_DRAWN.toLocaleString('en-US')} by plot id; the account has more (the report covers them all). Red: fewer alive than predicted; blue: more.`
    : `${what}. Red: fewer alive than predicted; blue: more.`
}

/** An upload's answer in words, with its refused rows (the first REFUSED_SHOWN as the API gave them). */
export function uploadSummary(outcome: SurveyUploadOutcome, fileName: string): UploadSummary {
  if (outcome.kind === 'refused') {
    const { refusal } = outcome
    const refused = refusal.refused.slice(0, REFUSED_SHOWN)
    return {
      stored: false,
      text: `${fileName}: nothing was stored. ${refusal.refused_rows.toLocaleString('en-US')} of ${count(refusal.rows, 'row')} ${refusal.refused_rows === 1 ? 'was' : 'were'} refused (below). Fix ${refusal.refused_rows === 1 ? 'it' : 'them'} and upload again, or tick “Store the valid rows, report the rest”.`,
      refused,
      notListed: Math.max(0, refusal.refused_rows - refused.length),
      uploadId: refusal.upload_id,
    }
  }
  const { upload } = outcome
  const refused = upload.refused.slice(0, REFUSED_SHOWN)
  const parts = [
    `${fileName}: stored ${upload.stored.toLocaleString('en-US')} of ${count(upload.rows, 'row')}.`,
  ]
  if (upload.refused_rows > 0)
    parts.push(`${count(upload.refused_rows, 'row')} refused and not stored (below).`)
  if (upload.ignored_columns.length > 0) parts.push(`Columns ignored: ${upload.ignored_columns.join(', ')}.`)
  return {
    stored: true,
    text: parts.join(' '),
    refused,
    notListed: Math.max(0, upload.refused_rows - refused.length),
    uploadId: upload.upload_id,
  }
}
