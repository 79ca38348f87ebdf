/**
 * The field surveys of the typed client (`/v1/surveys`, docs/surveys.md): plots stored with the model's
 * survival at their age, listed a page at a time (or all of them, page by page), read and deleted by
 * plot, and the report of observed against predicted survival. `createSurvivalClient` spreads these
 * methods in, handing over its openapi-fetch client and its `body`/`init` helpers (retries, errors and
 * `Request-Id` as for every other method).
 */
import type { Client } from 'openapi-fetch'
import type { CallOptions, Outcome } from './client.ts'
import type { components, paths } from './schema.ts'

type Schemas = components['schemas']

/** One plot as sent to `POST /v1/surveys`. */
export type SurveyPlotInput = Schemas['SurveyPlotInput']
/** One survey of a plot as kept, `(plot_id, surveyed_on)`, with its matched site and `predicted_survival`. */
export type SurveyPlot = Schemas['SurveyPlot']
/** `POST /v1/surveys` → `{stored, plots}`: every survey as kept, in the order sent. */
export type SurveysStoredResponse = Schemas['SurveysStoredResponse']
/** `GET /v1/surveys` → a page of plots and `next_cursor` (null on the last page). */
export type SurveyPageResponse = Schemas['SurveyPageResponse']
/** `GET /v1/surveys/{plot_id}` → `{plot_id, surveys}`, oldest `surveyed_on` first. */
export type SurveyPlotResponse = Schemas['SurveyPlotResponse']
/** `DELETE /v1/surveys/{plot_id}` → `{plot_id, deleted}`. */
export type SurveyPlotDeletedResponse = Schemas['SurveyPlotDeletedResponse']
/** `DELETE /v1/surveys?confirm=all` → `{deleted}`. */
export type SurveysDeletedResponse = Schemas['SurveysDeletedResponse']
/** `GET /v1/surveys/report`: groups, scores and the reliability table. */
export type SurveyReport = Schemas['SurveyReport']
export type SurveyGroup = Schemas['SurveyGroup']
export type SurveyScores = Schemas['SurveyScores']
export type SurveyReliabilityBin = Schemas['SurveyReliabilityBin']
/**
 * `GET /v1/surveys`: the filters (`species_code`, `planting_method`, `bbox` as `'west,south,east,north'`,
 * `surveyed_from`, `surveyed_to`, inclusive `YYYY-MM-DD`), `limit` (1–1,000, default 100) and `cursor`.
 */
export type SurveyQuery = NonNullable<paths['/v1/surveys']['get']['parameters']['query']>
/** `GET /v1/surveys/report`: the list's filters, without `limit` and `cursor`. */
export type SurveyReportQuery = NonNullable<paths['/v1/surveys/report']['get']['parameters']['query']>

/** What the survey methods take from `createSurvivalClient`. */
export interface SurveyClientParts {
  api: Client<paths>
  body: <T>(send: () => Promise<Outcome<T>>, options?: CallOptions) => Promise<T>
  init: (options?: CallOptions) => { signal: AbortSignal | undefined; headers: Record<string, string> }
}

export function surveyMethods({ api, body, init }: SurveyClientParts) {
  const surveys = (query: SurveyQuery = {}, options?: CallOptions) =>
    body(() => api.GET('/v1/surveys', { params: { query }, ...init(options) }), options)

  return {
    /**
     * Stores 1 to 1,000 plots, all or nothing (`POST /v1/surveys`): a plot sent again on the same
     * `surveyed_on` replaces it. A bad plot is a SurvivalApiError naming it (`details.index`, `details.field`).
     */
    storeSurveys: (plots: SurveyPlotInput[], options?: CallOptions) =>
      body(() => api.POST('/v1/surveys', { body: { plots }, ...init(options) }), options),

    /**
     * A page of the account's surveys, by `plot_id` then `surveyed_on`: `limit` plots after `cursor`
     * (the previous page's `next_cursor`, null on the last page), with the filters of `query`.
     */
    surveys,

    /**
     * Every survey the filters keep, page by page (`limit` a page), following `next_cursor`: only one
     * page is held at a time. Each page is one request (with `requestId`, when given, on each).
     */
    async *allSurveys(query: SurveyQuery = {}, options?: CallOptions): AsyncGenerator<SurveyPlot, void> {
      let page = await surveys(query, options)
      for (;;) {
        yield* page.plots
        if (page.next_cursor === null) return
        const cursor = page.next_cursor
        page = await surveys({ ...query, cursor }, options)
      }
    },

    /**
     * Every survey of one plot, oldest first (`GET /v1/surveys/{plot_id}`; the id is percent-encoded
     * here, `Unit 4/NE corner` → `Unit%204%2FNE%20corner`). A plot the account lacks is a 404 `not_found`.
     * The ids `.` and `..` cannot be reached: fetch resolves them as path segments.
     */
    surveyPlot: (plotId: string, options?: CallOptions) =>
      body(
        () => api.GET('/v1/surveys/{plot_id}', { params: { path: { plot_id: plotId } }, ...init(options) }),
        options,
      ),

    /** Deletes every survey of one plot: `{plot_id, deleted}` (a plot the account lacks is a 404). */
    deleteSurveyPlot: (plotId: string, options?: CallOptions) =>
      body(
        () =>
          api.DELETE('/v1/surveys/{plot_id}', { params: { path: { plot_id: plotId } }, ...init(options) }),
        options,
      ),

    /** Deletes every survey of the account (`DELETE /v1/surveys?confirm=all`): `{deleted}`. */
    deleteAllSurveys: (options?: CallOptions) =>
      body(
        () => api.DELETE('/v1/surveys', { params: { query: { confirm: 'all' } }, ...init(options) }),
        options,
      ),

    /**
     * Observed survival beside the model's prediction over the surveys the filters keep (none given:
     * every survey): `overall`, `groups` by species × method and age band, `scores`, `reliability`.
     */
    surveyReport: (query: SurveyReportQuery = {}, options?: CallOptions) =>
      body(() => api.GET('/v1/surveys/report', { params: { query }, ...init(options) }), options),
  }
}
