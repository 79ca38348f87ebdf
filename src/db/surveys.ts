import type { SurveyFilter, SurveyPlot, SurveyReportPlot } from '../domain/ports.ts'
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
  match_distance_km, age_years, predicted, model_version, updated_at`

/** Two saves of one account never interleave, so the plot limit is exact. */
function lockAccount(tx: Sql, accountId: string) {
  return tx`SELECT pg_advisory_xact_lock(hashtext(${`survey_plots:${accountId}`}))`
}

class OverLimit extends Error {
  constructor(readonly wouldHold: number) {
    super('over the plot limit')
  }
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
    updated_at: plot.updatedAt,
  }))
  try {
    await sql.begin(async (tx) => {
      const t = tx as unknown as Sql
      await lockAccount(t, accountId)
      await t`
        INSERT INTO survey_plots ${t(rows)}
        ON CONFLICT (account_id, plot_id, surveyed_on) DO UPDATE SET
          planted_on = excluded.planted_on, latitude = excluded.latitude, longitude = excluded.longitude,
          species_code = excluded.species_code, planting_method = excluded.planting_method,
          planted = excluded.planted, alive = excluded.alive, plot_area_m2 = excluded.plot_area_m2,
          protocol = excluded.protocol, site_id = excluded.site_id,
          matched_latitude = excluded.matched_latitude, matched_longitude = excluded.matched_longitude,
          match_distance_km = excluded.match_distance_km, age_years = excluded.age_years,
          predicted = excluded.predicted, model_version = excluded.model_version,
          updated_at = excluded.updated_at`
      const [held] = await t<{ n: number }[]>`
        SELECT count(*)::int AS n FROM survey_plots WHERE account_id = ${accountId}`
      const count = (held as { n: number }).n
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
    await lockAccount(t, accountId)
    const removed = await t`
      DELETE FROM survey_plots
      WHERE account_id = ${accountId} ${plotId === null ? t`` : t`AND plot_id = ${plotId}`}`
    if (removed.count > 0)
      await appendAuditEvent(t, { ...event, details: { ...event.details, surveys: removed.count } })
    return removed.count
  })
}

export function surveyReportPlots(
  sql: Sql,
  accountId: string,
  filter: SurveyFilter,
): Promise<SurveyReportPlot[]> {
  return sql<SurveyReportPlot[]>`
    SELECT species_code, planting_method, planted, alive, predicted, age_years
    FROM survey_plots WHERE ${filtered(sql, accountId, filter)}`
}
