import type {
  CalibrationPlotColumns,
  SurveyFilter,
  SurveyPlot,
  SurveyReportColumns,
} from '../domain/ports/surveys.ts'
import type { NewAuditEvent } from '../types.ts'
import { appendAuditEvent } from './audit.ts'
import type { Sql } from './connect.ts'

/*
 * Survey plots (sql/013_survey_plots.sql), an account at a time: every statement names the account,
 * so no call reaches another account's plots.
 */

const PLOT_COLUMNS = `plot_id, to_char(surveyed_on, 'YYYY-MM-DD') AS surveyed_on,
  to_char(planted_on, 'YYYY-MM-DD') AS planted_on, latitude, longitude, species_code, planting_method,
  planted, alive, plot_area_m2, protocol, site_id, matched_latitude, matched_longitude,
  match_distance_km, age_years, predicted, model_version, data_version, treatments, treatment_slopes,
  updated_at`

/** Two saves of one account never interleave, so the plot limit is exact. */
export function lockSurveyAccount(tx: Sql, accountId: string) {
  return tx`SELECT pg_advisory_xact_lock(hashtext(${`survey_plots:${accountId}`}))`
}

/** Thrown inside a store's transaction to roll it back: the account would pass its limit. */
export class OverLimit extends Error {
  constructor(readonly wouldHold: number) {
    super('over the plot limit')
  }
}

/** A kept plot's columns, as survey_plots (and an upload's staged rows) hold them. */
export function plotColumns(plot: SurveyPlot) {
  return {
    plot_id: plot.plotId,
    surveyed_on: plot.surveyedOn,
    planted_on: plot.plantedOn,
    latitude: plot.latitude,
    longitude: plot.longitude,
    species_code: plot.speciesCode,
    planting_method: plot.plantingMethod,
    planted: plot.planted,
    alive: plot.alive,
    plot_area_m2: plot.plotAreaM2,
    protocol: plot.protocol,
    site_id: plot.siteId,
    matched_latitude: plot.matchedLatitude,
    matched_longitude: plot.matchedLongitude,
    match_distance_km: plot.matchDistanceKm,
    age_years: plot.ageYears,
    predicted: plot.predicted,
    model_version: plot.modelVersion,
    data_version: plot.dataVersion,
    treatments: plot.treatments ?? null,
    treatment_slopes: plot.treatmentSlopes ?? null,
  }
}

/** A survey sent again replaces the kept one, whole. */
const REPLACE_SURVEY = `ON CONFLICT (account_id, plot_id, surveyed_on) DO UPDATE SET
  planted_on = excluded.planted_on, latitude = excluded.latitude, longitude = excluded.longitude,
  species_code = excluded.species_code, planting_method = excluded.planting_method,
  planted = excluded.planted, alive = excluded.alive, plot_area_m2 = excluded.plot_area_m2,
  protocol = excluded.protocol, site_id = excluded.site_id,
  matched_latitude = excluded.matched_latitude, matched_longitude = excluded.matched_longitude,
  match_distance_km = excluded.match_distance_km, age_years = excluded.age_years,
  predicted = excluded.predicted, model_version = excluded.model_version,
  data_version = excluded.data_version, treatments = excluded.treatments,
  treatment_slopes = excluded.treatment_slopes, updated_at = excluded.updated_at`

const STAGED_FIELDS = `plot_id, surveyed_on, planted_on, latitude, longitude, species_code, planting_method,
  planted, alive, plot_area_m2, protocol, site_id, matched_latitude, matched_longitude,
  match_distance_km, age_years, predicted, model_version, data_version, treatments, treatment_slopes`

/**
 * An upload's staged rows (./survey-uploads.ts) into the account's plots, inside its commit: the last
 * row of a (plot_id, surveyed_on) wins. How many surveys were written.
 */
export async function moveStagedSurveys(t: Sql, accountId: string, uploadId: string): Promise<number> {
  const moved = await t`
    INSERT INTO survey_plots (account_id, ${t.unsafe(STAGED_FIELDS)}, updated_at)
    SELECT DISTINCT ON (plot_id, surveyed_on) ${accountId}, ${t.unsafe(STAGED_FIELDS)}, now()
    FROM survey_upload_rows WHERE upload_id = ${uploadId}
    ORDER BY plot_id, surveyed_on, row_number DESC
    ${t.unsafe(REPLACE_SURVEY)}`
  return moved.count
}

/** The surveys the account holds, inside a store's transaction. */
export async function heldSurveys(t: Sql, accountId: string): Promise<number> {
  const [held] = await t<{ n: number }[]>`
    SELECT count(*)::int AS n FROM survey_plots WHERE account_id = ${accountId}`
  return (held as { n: number }).n
}

export async function saveSurveyPlots(
  sql: Sql,
  accountId: string,
  plots: readonly SurveyPlot[],
  limit: number,
  event: NewAuditEvent,
): Promise<{ saved: true } | { saved: false; wouldHold: number }> {
  const rows = plots.map((plot) => ({
    account_id: accountId,
    ...plotColumns(plot),
    updated_at: plot.updatedAt,
  }))
  try {
    await sql.begin(async (tx) => {
      const t = tx as unknown as Sql
      await lockSurveyAccount(t, accountId)
      await t`INSERT INTO survey_plots ${t(rows)} ${t.unsafe(REPLACE_SURVEY)}`
      const count = await heldSurveys(t, accountId)
      // Thrown to roll the whole save back: an upload that would pass the limit keeps nothing.
      if (count > limit) throw new OverLimit(count)
      await appendAuditEvent(t, event)
    })
    return { saved: true }
  } catch (error) {
    if (error instanceof OverLimit) return { saved: false, wouldHold: error.wouldHold }
    throw error
  }
}

function filtered(sql: Sql, accountId: string, filter: SurveyFilter) {
  const [west, south, east, north] = filter.bbox ?? []
  return sql`
    account_id = ${accountId}
    ${filter.speciesCode ? sql`AND species_code = ${filter.speciesCode}` : sql``}
    ${filter.plantingMethod ? sql`AND planting_method = ${filter.plantingMethod}` : sql``}
    ${filter.bbox ? sql`AND longitude BETWEEN ${west as number} AND ${east as number} AND latitude BETWEEN ${south as number} AND ${north as number}` : sql``}
    ${filter.surveyedFrom ? sql`AND surveyed_on >= ${filter.surveyedFrom}::date` : sql``}
    ${filter.surveyedTo ? sql`AND surveyed_on <= ${filter.surveyedTo}::date` : sql``}`
}

export function surveyPlotPage(
  sql: Sql,
  accountId: string,
  filter: SurveyFilter,
  limit: number,
  after: readonly [string, string] | null,
): Promise<SurveyPlot[]> {
  return sql<SurveyPlot[]>`
    SELECT ${sql.unsafe(PLOT_COLUMNS)} FROM survey_plots
    WHERE ${filtered(sql, accountId, filter)}
      ${after ? sql`AND (plot_id, surveyed_on) > (${after[0]}, ${after[1]}::date)` : sql``}
    ORDER BY plot_id, surveyed_on
    LIMIT ${limit}`
}

export function surveysOfPlot(sql: Sql, accountId: string, plotId: string): Promise<SurveyPlot[]> {
  return sql<SurveyPlot[]>`
    SELECT ${sql.unsafe(PLOT_COLUMNS)} FROM survey_plots
    WHERE account_id = ${accountId} AND plot_id = ${plotId}
    ORDER BY surveyed_on`
}

/** One plot's surveys, or (plotId null) every plot of the account, with the event in the same transaction. */
export function removeSurveyPlots(
  sql: Sql,
  accountId: string,
  plotId: string | null,
  event: NewAuditEvent,
): Promise<number> {
  return sql.begin(async (tx) => {
    const t = tx as unknown as Sql
    await lockSurveyAccount(t, accountId)
    const removed = await t`
      DELETE FROM survey_plots
      WHERE account_id = ${accountId} ${plotId === null ? t`` : t`AND plot_id = ${plotId}`}`
    if (removed.count > 0)
      await appendAuditEvent(t, { ...event, details: { ...event.details, surveys: removed.count } })
    return removed.count
  })
}

/** Each plot field of a group packed end to end, in one sequence: entry i of each is the same plot. */
const PACKED_PLOTS = `encode(string_agg(int4send(planted), ''::bytea), 'base64') AS planted,
      encode(string_agg(int4send(alive), ''::bytea), 'base64') AS alive,
      encode(string_agg(float8send(predicted), ''::bytea), 'base64') AS predicted,
      encode(string_agg(float8send(age_years), ''::bytea), 'base64') AS age_years`

/**
 * The treatment slopes of a group of treated plots, in the same sequence as the packed fields; null for
 * a group without (its plots grouped apart by `treatment_slopes IS NULL`).
 */
const PACKED_SLOPES =
  'json_agg(treatment_slopes) FILTER (WHERE treatment_slopes IS NOT NULL) AS treatment_slopes'

/** The packed fields of one group as typed arrays. */
function unpacked(row: Record<'planted' | 'alive' | 'predicted' | 'ageYears', string>) {
  return {
    planted: int32s(row.planted),
    alive: int32s(row.alive),
    predicted: float64s(row.predicted),
    ageYears: float64s(row.ageYears),
  }
}

// PostgreSQL breaks base64 into lines; Buffer.from skips the line breaks.
function packed(base64: string): DataView {
  const bytes = Buffer.from(base64, 'base64')
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

function int32s(base64: string): Int32Array {
  const view = packed(base64)
  const values = new Int32Array(view.byteLength / 4)
  for (let i = 0; i < values.length; i++) values[i] = view.getInt32(i * 4)
  return values
}

function float64s(base64: string): Float64Array {
  const view = packed(base64)
  const values = new Float64Array(view.byteLength / 8)
  for (let i = 0; i < values.length; i++) values[i] = view.getFloat64(i * 8)
  return values
}

/**
 * The report's plots, one row per species × method with each field's values packed end to end by
 * int4send/float8send (4 or 8 bytes each, big-endian, exact): a million plots arrive as a few dozen rows
 * to unpack, where reading a million row objects took longer than the query deadline. Every aggregate of
 * a row reads the group's plots in one sequence, so entry i of each column is the same plot. The packed
 * bytes travel as base64 rather than as bytea's hex text: a third less text, decoded faster (~0.2 s less
 * at a million plots).
 */
export function surveyReportPlots(
  sql: Sql,
  accountId: string,
  filter: SurveyFilter,
): Promise<SurveyReportColumns[]> {
  const query = sql<
    (Pick<SurveyReportColumns, 'speciesCode' | 'plantingMethod'> & {
      treatmentSlopes: Record<string, number>[] | null
    } & Record<'planted' | 'alive' | 'predicted' | 'ageYears', string>)[]
  >`
    SELECT species_code, planting_method,
      ${sql.unsafe(PACKED_PLOTS)}, ${sql.unsafe(PACKED_SLOPES)}
    FROM survey_plots WHERE ${filtered(sql, accountId, filter)}
    GROUP BY species_code, planting_method, treatment_slopes IS NULL`
  const columns = query.then((rows) =>
    rows.map((row) => ({
      speciesCode: row.speciesCode,
      plantingMethod: row.plantingMethod,
      ...unpacked(row),
      ...(row.treatmentSlopes ? { treatmentSlopes: row.treatmentSlopes } : {}),
    })),
  )
  return columns
}

/**
 * What a calibration of `version` fits on: the filter's plots whose predictions that version made, as
 * the report's packed columns with each plot's planting year, and how many plots the filter kept that
 * another version predicted. Plots with treatment effects form groups of their own, their slopes in the
 * same sequence as the packed columns. One statement, so one snapshot: surveys written meanwhile are
 * not half in.
 */
export function calibrationPlots(
  sql: Sql,
  accountId: string,
  filter: SurveyFilter,
  version: string,
): Promise<CalibrationPlotColumns> {
  const query = sql<
    (Pick<SurveyReportColumns, 'speciesCode' | 'plantingMethod'> & {
      usable: boolean
      plots: number
      dataVersions: string[] | null
      treatmentSlopes: Record<string, number>[] | null
    } & Record<'planted' | 'alive' | 'predicted' | 'ageYears' | 'plantingYear', string>)[]
  >`
    SELECT species_code, planting_method, model_version = ${version} AS usable, count(*)::int AS plots,
      array_agg(DISTINCT data_version) FILTER (WHERE data_version IS NOT NULL) AS data_versions,
      ${sql.unsafe(PACKED_PLOTS)},
      encode(string_agg(int4send(extract(year FROM planted_on)::int4), ''::bytea), 'base64') AS planting_year,
      ${sql.unsafe(PACKED_SLOPES)}
    FROM survey_plots WHERE ${filtered(sql, accountId, filter)}
    GROUP BY species_code, planting_method, usable, treatment_slopes IS NULL`
  const columns = query.then((rows) => ({
    groups: rows
      .filter((row) => row.usable)
      .map((row) => ({
        speciesCode: row.speciesCode,
        plantingMethod: row.plantingMethod,
        ...unpacked(row),
        plantingYear: int32s(row.plantingYear),
        // Plots with treatment effects come in a group of their own, each with its slopes.
        ...(row.treatmentSlopes ? { treatmentSlopes: row.treatmentSlopes } : {}),
      })),
    otherVersionPlots: rows.filter((row) => !row.usable).reduce((sum, row) => sum + row.plots, 0),
    dataVersions: [...new Set(rows.flatMap((row) => (row.usable ? (row.dataVersions ?? []) : [])))].sort(),
  }))
  return columns
}
