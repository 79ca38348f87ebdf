import type { Admission } from '../access/auth/access-control.ts'
import { invalidField } from '../domain/errors.ts'
import { parseInput } from '../domain/input-rules.ts'
import type { SurveyFilter } from '../domain/ports/surveys.ts'
import type { SurveyPlot } from '../domain/surveys/survey-plot.ts'
import { readSurveyPlot } from '../domain/surveys/survey-plot-reader.ts'
import { SURVEY_PAGE_DEFAULT, type SurveyWriter } from '../domain/surveys/survey-service.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { readJsonBody } from './json-body.ts'
import { reportAsked } from './report-negotiation.ts'
import { reportRequest, reportResponse } from './report-response.ts'
import { SurveyDeleteAllQuery, SurveyListQuery, SurveyReportQuery, SurveysBody } from './request-schemas.ts'
import type { KeyedRoute } from './route.ts'
import { surveyReportJson } from './survey-report-json.ts'

/** Who writes: the admitted key's account and tier, the key, and the client address. */
export function surveyWriter(admission: Admission, request: RequestContext): SurveyWriter {
  const { caller } = admission
  return {
    accountId: caller.accountId,
    tierName: caller.tier.name,
    keyId: caller.keyId,
    clientAddress: request.clientAddress,
  }
}

export function surveyPlotJson(plot: SurveyPlot) {
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
    observed_survival: plot.alive / plot.planted,
    plot_area_m2: plot.plotAreaM2,
    protocol: plot.protocol,
    treatments: plot.treatments ?? null,
    age_years: plot.ageYears,
    predicted_survival: plot.predicted,
    model_version: plot.modelVersion,
    site: {
      site_id: plot.siteId,
      matched_latitude: plot.matchedLatitude,
      matched_longitude: plot.matchedLongitude,
      match_distance_km: plot.matchDistanceKm,
    },
    updated_at: plot.updatedAt.toISOString(),
  }
}

export function filterOf(query: {
  species_code?: string
  planting_method?: string
  bbox?: readonly [number, number, number, number]
  surveyed_from?: string
  surveyed_to?: string
}): SurveyFilter {
  return {
    speciesCode: query.species_code,
    plantingMethod: query.planting_method,
    bbox: query.bbox,
    surveyedFrom: query.surveyed_from,
    surveyedTo: query.surveyed_to,
  }
}

/** A `{plot_id}` path segment as the caller wrote it (percent-decoded). */
function plotIdOf(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? '')
  } catch {
    throw invalidField('plot_id', 'is not a valid percent-encoded path segment')
  }
}

/** The surveys API: the REST translation of SurveyService, nothing more. */
export const SURVEY_ROUTES: readonly KeyedRoute[] = [
  {
    method: 'POST',
    path: '/v1/surveys',
    authenticated: true,
    async handle(req, _url, deps, admission, _params, request) {
      const body = parseInput(SurveysBody, await readJsonBody(req))
      const plots = body.plots.map(readSurveyPlot)
      const stored = await deps.surveys.save(surveyWriter(admission, request), plots)
      return { status: 200, body: { stored: stored.length, plots: stored.map(surveyPlotJson) } }
    },
  },
  {
    method: 'GET',
    path: '/v1/surveys',
    authenticated: true,
    async handle(_req, url, deps, admission) {
      const query = parseInput(SurveyListQuery, Object.fromEntries(url.searchParams), 'query string')
      const page = await deps.surveys.page(
        admission.caller.accountId,
        filterOf(query),
        query.limit ?? SURVEY_PAGE_DEFAULT,
        query.cursor ?? null,
      )
      return { status: 200, body: { plots: page.plots.map(surveyPlotJson), next_cursor: page.nextCursor } }
    },
  },
  {
    method: 'DELETE',
    path: '/v1/surveys',
    authenticated: true,
    async handle(_req, url, deps, admission, _params, request) {
      parseInput(SurveyDeleteAllQuery, Object.fromEntries(url.searchParams), 'query string')
      const deleted = await deps.surveys.remove(surveyWriter(admission, request), null)
      return { status: 200, body: { deleted } }
    },
  },
  {
    method: 'GET',
    path: '/v1/surveys/report',
    authenticated: true,
    async handle(req, url, deps, admission, _params, request) {
      // `paper` is the report's (checked whatever the answer's form); the rest are the report's query.
      const asked = reportAsked(req, url)
      const asSent = Object.fromEntries([...url.searchParams].filter(([name]) => name !== 'paper'))
      const query = parseInput(SurveyReportQuery, asSent, 'query string')
      const { model_version: version, ...filter } = query
      const report = await deps.surveys.report(admission.caller.accountId, filterOf(filter), version)
      if (asked) {
        const file = await deps.reports.survey(report, {
          ...reportRequest(asked, request, `${url.pathname}${url.search}`, asSent, 'GET'),
          body: asSent,
        })
        return reportResponse(file, null)
      }
      return { status: 200, body: surveyReportJson(report) }
    },
  },
  {
    method: 'GET',
    path: '/v1/surveys/{plot_id}',
    authenticated: true,
    async handle(_req, _url, deps, admission, params) {
      const plotId = plotIdOf(params.plot_id)
      const surveys = await deps.surveys.plot(admission.caller.accountId, plotId)
      return { status: 200, body: { plot_id: plotId, surveys: surveys.map(surveyPlotJson) } }
    },
  },
  {
    method: 'DELETE',
    path: '/v1/surveys/{plot_id}',
    authenticated: true,
    async handle(_req, _url, deps, admission, params, request) {
      const plotId = plotIdOf(params.plot_id)
      const deleted = await deps.surveys.remove(surveyWriter(admission, request), plotId)
      return { status: 200, body: { plot_id: plotId, deleted } }
    },
  },
]
