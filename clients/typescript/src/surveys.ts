/**
 * The field surveys of the typed client (`/v1/surveys`, docs/surveys.md): plots stored with the model's
 * survival at their age, listed a page at a time (or all of them, page by page), read and deleted by
 * plot, and the report of observed against predicted survival; and bulk uploads
 * (`/v1/surveys/uploads`): a CSV, NDJSON or GeoJSON file streamed up, stored whole or not at all, and
 * its refused rows read back page by page. `createSurvivalClient` spreads these methods in, handing
 * over its openapi-fetch client and its `body`/`init`/`upload` helpers (retries, errors, `Request-Id`
 * and the streamed body as for every other method).
 */
import type { Client } from 'openapi-fetch'
import type { CallOptions, Outcome, UploadBase } from './call-options.ts'
import type { components, paths } from './schema.ts'
import type { StreamedInit, UploadInput } from './upload-body.ts'

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
/**
 * `GET /v1/surveys/report`: the list's filters, without `limit` and `cursor`, and `model_version` (also
 * `surveyReport`'s `modelVersion` option).
 */
export type SurveyReportQuery = NonNullable<paths['/v1/surveys/report']['get']['parameters']['query']>

/**
 * `POST /v1/surveys/uploads` → 201, and `GET /v1/surveys/uploads/{upload_id}`: what the upload read,
 * refused and stored (`status` `committed`, `refused` or `failed`; `failure` says why nothing was
 * stored), and a page of its refused rows with `next_cursor`.
 */
export type SurveyUpload = Schemas['SurveyUpload']
/** One refused row of an upload: `row` (from 1), `plot_id`, `field`, `code`, `reason`. */
export type SurveyRefusedRow = Schemas['SurveyRefusedRow']
/**
 * `details` of the 422 `survey_upload_refused` (rows refused without `skipInvalid`, nothing stored):
 * `upload_id`, `rows`, `refused_rows` and the first 100 `refused` rows. Read it from a SurvivalApiError
 * whose `code` is `survey_upload_refused`: `error.details as SurveyUploadRefusedDetails`.
 */
export type SurveyUploadRefusedDetails = Schemas['SurveyUploadRefusedError']['details']
/** The media types an upload is sent as: `text/csv`, `application/x-ndjson`, `application/geo+json`. */
export type SurveyUploadContentType = keyof paths['/v1/surveys/uploads']['post']['requestBody']['content']

/** The media type of each upload format (`SurveyUpload['format']`). */
export const SURVEY_UPLOAD_CONTENT_TYPES = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  geojson: 'application/geo+json',
} as const satisfies Record<SurveyUpload['format'], SurveyUploadContentType>

export interface SurveyUploadOptions extends UploadBase {
  /** What the body is: `text/csv`, `application/x-ndjson` or `application/geo+json`. */
  contentType: SurveyUploadContentType
  /**
   * `true` (`?skip_invalid=true`): store the valid rows and report the refused ones. Default: one
   * refused row stores nothing (a 422 `survey_upload_refused`).
   */
  skipInvalid?: boolean
  /** The body is gzip-compressed already (a `.gz` file): sent as it is, with `Content-Encoding: gzip`. */
  gzip?: boolean
}

/** `GET /v1/surveys/uploads/{upload_id}`: `limit` refused rows a page (1–1,000, default 100) after `cursor`. */
export interface SurveyUploadPageQuery {
  limit?: number
  /** The previous page's `next_cursor`. */
  cursor?: string | null
}

/** What the survey methods take from `createSurvivalClient`. */
export interface SurveyClientParts {
  /** JSON answers only (the survey report's PDF, `Accept: application/pdf`, is not read here). */
  api: Client<paths, `${string}/${string}json`>
  body: <T>(send: () => Promise<Outcome<T>>, options?: CallOptions) => Promise<T>
  init: (options?: CallOptions) => { signal: AbortSignal | undefined; headers: Record<string, string> }
  /** Sends a streamed upload, again on 429/503 only when the input can be reopened (a path, a Blob). */
  upload: <T>(
    input: UploadInput,
    options: UploadBase,
    post: (body: StreamedInit & { signal: AbortSignal | undefined }) => Promise<Outcome<T>>,
  ) => Promise<{ data: T; response: Response }>
}

export function surveyMethods({ api, body, init, upload }: SurveyClientParts) {
  const surveys = (query: SurveyQuery = {}, options?: CallOptions) =>
    body(() => api.GET('/v1/surveys', { params: { query }, ...init(options) }), options)

  const surveyUpload = (uploadId: string, page: SurveyUploadPageQuery = {}, options?: CallOptions) => {
    const query = {
      ...(page.limit !== undefined ? { limit: page.limit } : {}),
      ...(page.cursor ? { cursor: page.cursor } : {}),
    }
    return body(
      () =>
        api.GET('/v1/surveys/uploads/{upload_id}', {
          params: { path: { upload_id: uploadId }, query },
          ...init(options),
        }),
      options,
    )
  }

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
     * `modelVersion` (sent as `model_version`; it wins over the query's) reports them against that
     * version's predictions, a calibrated one's included; absent: the account's default. The report
     * says which in `model_version`.
     */
    surveyReport: (query: SurveyReportQuery = {}, options?: CallOptions & { modelVersion?: string }) => {
      const version = options?.modelVersion ? { model_version: options.modelVersion } : {}
      const params = { query: { ...query, ...version } }
      return body(() => api.GET('/v1/surveys/report', { params, ...init(options) }), options)
    },

    /**
     * Stores the surveys of a CSV, NDJSON or GeoJSON body (`POST /v1/surveys/uploads`), streamed from a
     * path, a Node Readable, a web ReadableStream, an AsyncIterable of bytes or a Blob, never read whole;
     * the answer comes once the server has read and stored all of it. Returns the upload (`committed`,
     * with the first 100 refused rows when `skipInvalid`). Rows refused without `skipInvalid` are a
     * SurvivalApiError 422 `survey_upload_refused` (`details`: SurveyUploadRefusedDetails) and store
     * nothing; an account over its tier's limit a 409 `survey_limit_reached` (`details.upload_id`).
     * A 429 or 503 is retried only for a path or a Blob (sent again whole); a stream is sent once.
     */
    async uploadSurveys(input: UploadInput, options: SurveyUploadOptions): Promise<SurveyUpload> {
      const headers: Record<string, string> = {
        ...init(options).headers,
        'Content-Type': options.contentType,
        ...(options.gzip ? { 'Content-Encoding': 'gzip' } : {}),
      }
      const query = options.skipInvalid ? { skip_invalid: 'true' as const } : undefined
      const { data } = await upload(input, options, (streamedBody) =>
        api.POST('/v1/surveys/uploads', {
          ...(query ? { params: { query } } : {}),
          ...streamedBody,
          headers,
        }),
      )
      return data
    },

    /**
     * An upload of the account (`GET /v1/surveys/uploads/{upload_id}`) and a page of its refused rows in
     * row order: `limit` (1–1,000, default 100) after `cursor` (the previous page's `next_cursor`, null
     * on the last page). Uploads are kept 30 days; another account's, or an unknown id, is a 404.
     */
    surveyUpload,

    /**
     * Every refused row of an upload, in row order, page by page (`limit` a page, default 1,000),
     * following `next_cursor`: only one page is held at a time.
     */
    async *surveyUploadRefusals(
      uploadId: string,
      page: Omit<SurveyUploadPageQuery, 'cursor'> = {},
      options?: CallOptions,
    ): AsyncGenerator<SurveyRefusedRow, void> {
      const limit = page.limit ?? 1000
      let current = await surveyUpload(uploadId, { limit }, options)
      for (;;) {
        yield* current.refused
        if (current.next_cursor === null) return
        current = await surveyUpload(uploadId, { limit, cursor: current.next_cursor }, options)
      }
    },
  }
}
