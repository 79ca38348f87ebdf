import { type ApiError, apiError } from '../errors.ts'
import type { SurveyPlot } from '../ports/surveys.ts'
import type { TreatmentsRequest } from '../treatment-values.ts'
import { ageInYears } from './survival-at-age.ts'

export type { SurveyPlot }

/** Plots in one POST /v1/surveys. */
export const SURVEY_PLOTS_PER_CALL = 1000
/** Trees (or seed pods) counted on one plot. */
export const PLANTED_MAX = 10_000
/** A survey's age, surveyed_on − planted_on, in years. */
export const AGE_YEARS_MIN = 0.25
export const AGE_YEARS_MAX = 10

/** Plots an account keeps, by tier (docs/surveys.md). */
export const SURVEY_PLOTS_BY_TIER: Readonly<Record<string, number>> = {
  spore: 1_000,
  mycel: 100_000,
  hypha: 1_000_000,
}

/** One plot as sent, its fields already of the right types and ranges (the adapters' schemas). */
export interface SurveyPlotInput {
  plotId: string
  latitude: number
  longitude: number
  speciesCode: string
  plantingMethod: string
  /** `YYYY-MM-DD`, or a bare year `YYYY` (1 March of that year). */
  plantedOn: string
  /** `YYYY-MM-DD`. */
  surveyedOn: string
  planted: number
  alive: number
  plotAreaM2?: number | null
  protocol?: string | null
  /** The establishment treatments the plot had (docs/treatments.md); absent or null: none named. */
  treatments?: TreatmentsRequest | null
}

/** A plot whose fields agree with each other: dates read, age within range, alive ≤ planted. */
export interface CheckedSurveyPlot extends Omit<SurveyPlotInput, 'plantedOn' | 'surveyedOn'> {
  plantedOn: string
  surveyedOn: string
  ageYears: number
}

/** The plot at `index` breaks a rule: invalid_request naming the plot and the field (contract names). */
export function invalidPlot(index: number, field: string, reason: string): ApiError {
  return apiError(
    'invalid_request',
    { field: `plots[${index}].${field}`, reason },
    { details: { index, field, reason } },
  )
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const BARE_YEAR = /^\d{4}$/

/** A calendar date `YYYY-MM-DD` as a UTC midnight, or null when it is not one (2025-02-30). */
function calendarDate(text: string): Date | null {
  const match = ISO_DATE.exec(text)
  if (!match) return null
  const [, year, month, day] = match.map(Number) as [number, number, number, number]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
    ? date
    : null
}

/** Cross-field rules of one plot; `today` bounds surveyed_on (a survey is not in the future). */
export function checkSurveyPlot(plot: SurveyPlotInput, index: number, today: Date): CheckedSurveyPlot {
  const plantedOn = BARE_YEAR.test(plot.plantedOn) ? `${plot.plantedOn}-03-01` : plot.plantedOn
  const planted = calendarDate(plantedOn)
  if (!planted) throw invalidPlot(index, 'planted_on', 'must be a date YYYY-MM-DD, or a year YYYY (1 March)')
  const surveyed = calendarDate(plot.surveyedOn)
  if (!surveyed)
    throw invalidPlot(
      index,
      'surveyed_on',
      BARE_YEAR.test(plot.surveyedOn)
        ? 'must be a date YYYY-MM-DD: a bare year is taken for planted_on only'
        : 'must be a date YYYY-MM-DD',
    )
  if (surveyed.getTime() > today.getTime() + 86_400_000)
    throw invalidPlot(index, 'surveyed_on', 'must not be in the future')
  const ageYears = ageInYears(planted, surveyed)
  if (ageYears < AGE_YEARS_MIN || ageYears > AGE_YEARS_MAX)
    throw invalidPlot(
      index,
      'surveyed_on',
      `is ${ageYears.toFixed(2)} years after planted_on; a survey must be ${AGE_YEARS_MIN} to ${AGE_YEARS_MAX} years after planting`,
    )
  if (plot.alive > plot.planted)
    throw invalidPlot(index, 'alive', `must be at most planted (${plot.planted})`)
  return { ...plot, plantedOn, surveyedOn: plot.surveyedOn, ageYears }
}
