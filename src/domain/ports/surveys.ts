import type { NewAuditEvent, PlantingMethod } from '../../types.ts'

/** A plot as kept: what was sent, the site it was matched to, and the model's survival at its age. */
export interface SurveyPlot {
  plotId: string
  surveyedOn: string
  plantedOn: string
  latitude: number
  longitude: number
  speciesCode: string
  plantingMethod: PlantingMethod
  planted: number
  alive: number
  plotAreaM2: number | null
  protocol: string | null
  siteId: number
  matchedLatitude: number
  matchedLongitude: number
  matchDistanceKm: number
  ageYears: number
  predicted: number
  modelVersion: string
  /** The site data version the prediction was made from; null for a survey kept before versions. */
  dataVersion: string | null
  /** The treatments the plot had, under their API names, as sent; null (or absent) when it named none. */
  treatments?: PlotTreatments | null
  /**
   * Per treatment effect the plot's treatments applied (by effect id): ∂logit(predicted)/∂r, how far
   * the prediction's logit at the plot's age moves per unit of the effect's share; null (or absent)
   * when none did.
   */
  treatmentSlopes?: Readonly<Record<string, number>> | null
  updatedAt: Date
}

/** A plot's treatments under their API names (vegetation_control …), the ones named only. */
export type PlotTreatments = Readonly<Record<string, string>>

/** Which of an account's survey plots a list or a report covers; every field narrows it. */
export interface SurveyFilter {
  speciesCode?: string
  plantingMethod?: string
  /** [west, south, east, north] in degrees. */
  bbox?: readonly [number, number, number, number]
  /** Inclusive `YYYY-MM-DD` bounds of surveyed_on. */
  surveyedFrom?: string
  surveyedTo?: string
}

/**
 * What the report reads of an account's plots of one species × method: a column per field, entry i of
 * each the same plot (a million plots are then a few dozen of these, not a million objects).
 */
export interface SurveyReportColumns {
  speciesCode: string
  plantingMethod: PlantingMethod
  planted: Int32Array
  alive: Int32Array
  predicted: Float64Array
  ageYears: Float64Array
  /**
   * Plots with treatment effects come in a group of their own: entry i is plot i's slopes by effect
   * (SurveyPlot.treatmentSlopes). Absent for a group of plots without.
   */
  treatmentSlopes?: readonly Readonly<Record<string, number>>[]
}

/** What a calibration reads of an account's plots. */
export interface CalibrationPlotColumns {
  /** A species × method may come in two groups: plots without treatment effects, and plots with. */
  groups: (SurveyReportColumns & { plantingYear: Int32Array })[]
  /** Plots the filter kept whose predictions another model version made. */
  otherVersionPlots: number
  /** The site data versions the kept plots' predictions were made from, by name. */
  dataVersions: string[]
}

/** Where an account's survey plots are kept (PostgreSQL). Every call names the account; none reaches another's. */
export interface SurveyStore {
  /**
   * Adds the plots, replacing those with the same (plot_id, surveyed_on), and appends `event`, all in
   * one transaction, unless the account would then hold more than `limit`: then nothing is kept, and
   * the number it would have held is returned.
   */
  save(
    accountId: string,
    plots: readonly SurveyPlot[],
    limit: number,
    event: NewAuditEvent,
  ): Promise<{ saved: true } | { saved: false; wouldHold: number }>
  /** At most `limit` plots after the (plot_id, surveyed_on) `after`, in that order. */
  page(
    accountId: string,
    filter: SurveyFilter,
    limit: number,
    after: readonly [string, string] | null,
  ): Promise<SurveyPlot[]>
  /** Every survey of one plot, oldest first. */
  plot(accountId: string, plotId: string): Promise<SurveyPlot[]>
  /** Removes one plot's surveys (or every plot's, with null) and appends `event` with their number; how many. */
  remove(accountId: string, plotId: string | null, event: NewAuditEvent): Promise<number>
  /** The plots the filter keeps, one entry per species × method that has any: none when it keeps none. */
  reportPlots(accountId: string, filter: SurveyFilter): Promise<SurveyReportColumns[]>
  /** The plots the filter keeps that `version` predicted, with their planting years (one snapshot). */
  calibrationPlots(accountId: string, filter: SurveyFilter, version: string): Promise<CalibrationPlotColumns>
}
