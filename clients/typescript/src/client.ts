/**
 * The typed client of the Survival Prediction API: openapi-fetch typed from schema/openapi.yaml
 * (./schema.ts, generated; named types in ./api-types.ts). It returns the response body, throws
 * SurvivalApiError for every failure, retries 429 and 503 as `Retry-After` says (within bounds), and
 * adds the jobs helpers (streamed upload, poll, resumable download, GeoJSON jobs); the streamed body
 * (./upload-body.ts) is shared with the survey uploads (./surveys.ts), the poller (./poll.ts) with the
 * calibrations (./models.ts).
 */
import { Readable } from 'node:stream'
import createClient, { type Client } from 'openapi-fetch'
import type { CallOptions, Outcome, UploadBase } from './call-options.ts'
import { isAbort, retryAfterMs, SurvivalApiError } from './errors.ts'
import { modelMethods } from './models.ts'
import { type PollOptions, pollUntilSettled, sleep } from './poll.ts'
import type { paths } from './schema.ts'
import { surveyMethods } from './surveys.ts'
import {
  isUploadInput,
  type StreamedInit,
  streamed,
  type UploadInput,
  withUploadBody,
} from './upload-body.ts'

export type { CallOptions, Outcome, UploadBase } from './call-options.ts'
export { SurvivalApiError } from './errors.ts'
export type { CalibrateOptions, CalibrationFailedDetails } from './models.ts'
export type { PollOptions } from './poll.ts'
export {
  SURVEY_UPLOAD_CONTENT_TYPES,
  type SurveyGroup,
  type SurveyPageResponse,
  type SurveyPlot,
  type SurveyPlotDeletedResponse,
  type SurveyPlotInput,
  type SurveyPlotResponse,
  type SurveyQuery,
  type SurveyRefusedRow,
  type SurveyReliabilityBin,
  type SurveyReport,
  type SurveyReportQuery,
  type SurveyScores,
  type SurveysDeletedResponse,
  type SurveysStoredResponse,
  type SurveyUpload,
  type SurveyUploadContentType,
  type SurveyUploadOptions,
  type SurveyUploadPageQuery,
  type SurveyUploadRefusedDetails,
} from './surveys.ts'
export type { UploadInput } from './upload-body.ts'

import {
  type AuditQuery,
  type BatchSite,
  type CompareRequest,
  type GeoJsonJobDefaults,
  JOB_MEDIA_TYPES,
  type Job,
  type JobAccepted,
  type JobFeatureCollection,
  type JobFormat,
  type JobResultsCollection,
  type PlantingOptionsRequest,
  type PredictRequest,
  type RankRequest,
  type SpeciesQuery,
  type StockingPlanRequest,
  type SurvivalRasterQuery,
  type TreatmentJobDefaults,
} from './api-types.ts'

export * from './api-types.ts'

const FINAL_STATUSES = new Set(['succeeded', 'failed', 'cancelled'])

export interface SurvivalClientOptions {
  /** e.g. `http://localhost:8080` (no `/v1`). */
  baseUrl: string
  apiKey: string
  /** A fetch to use instead of the global one (it receives a Request). */
  fetch?: (request: Request) => Promise<Response>
  /** Retries of one call answered 429 or 503 (default 3). */
  maxRetries?: number
  /**
   * The longest single wait before a retry (default 60 s). A `Retry-After` beyond it — the daily quota's,
   * hours away — is not waited for: the 429 is thrown at once, with `retryAfterSeconds`.
   */
  maxRetryDelayMs?: number
}

export type UploadOptions =
  | (UploadBase & {
      format: 'csv' | 'ndjson'
      /** Query parameters: each treatment of the rows that name none (a row's own value wins). */
      defaults?: TreatmentJobDefaults
    })
  | (UploadBase & {
      format: 'geojson'
      /** Query parameters: the value of each property a feature lacks (its own value wins). */
      defaults?: GeoJsonJobDefaults
    })

export type GeoJsonUploadOptions = UploadBase & {
  /** Query parameters: the value of each property a feature lacks (its own value wins). */
  defaults?: GeoJsonJobDefaults
}

/** `waitForJob`: polls every `pollMs` (default 1000 ms; `backoff` 1, unless given), with no `timeoutMs`. */
export type WaitOptions = PollOptions<Job>
const JOB_POLL = { pollMs: 1000, backoff: 1, maxPollMs: 60_000 }

export interface ResultsOptions extends CallOptions {
  /**
   * `Accept`: the results as CSV, NDJSON or (a GeoJSON job's only) GeoJSON; default the job's input
   * format. A CSV or NDJSON job asked for GeoJSON answers in its own format (see `contentType`).
   */
  format?: JobFormat
  /** Byte offset to start from (resume a download): sends `Range: bytes=<from>-`. */
  from?: number
}

/** The results body as a Node stream of byte chunks (also an async iterable), and what it is. */
export type ResultsStream = Readable & {
  /** The results' `ETag`: unchanged while they are the same bytes. */
  etag: string | null
  /** The size of the whole results body, when the server said it. */
  totalBytes: number | null
  /** The offset the stream starts at. */
  from: number
  /** The media type the results came in (`text/csv`, `application/x-ndjson`, `application/geo+json`). */
  contentType: string | null
}

/** The JSON media types (`application/json`, `application/geo+json`) the client reads answers in. */
type JsonMedia = `${string}/${string}json`

/** The PDF report of an answer (docs/reports.md): its language and paper. */
export interface ReportOptions extends CallOptions {
  /**
   * Sent as `Accept-Language` (default `en`): a tag such as `es-MX` or `en-GB`. The report is in Spanish
   * for `es`, else English; unless `paper` names one, the tag's region picks the paper (US Letter in
   * the US, Canada, Mexico and the CLDR's other Letter regions, and for a bare `en`; A4 elsewhere).
   */
  language?: string
  /** `?paper=`: `a4` or `letter`, whatever the language. */
  paper?: 'a4' | 'letter'
}

export function createSurvivalClient(options: SurvivalClientOptions) {
  const maxRetries = options.maxRetries ?? 3
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000
  // JSON answers only: the operations that can also answer a PDF report (Accept: application/pdf) are
  // called here for their JSON, which is what the client asks for.
  const api: Client<paths, JsonMedia> = createClient<paths, JsonMedia>({
    baseUrl: options.baseUrl,
    headers: { 'X-API-Key': options.apiKey },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })

  /** How long to wait before retrying this response, or null to throw it. */
  function retryWait(response: Response, attempt: number): number | null {
    if ((response.status !== 429 && response.status !== 503) || attempt >= maxRetries) return null
    const wait = retryAfterMs(response.headers.get('retry-after')) ?? 500 * 2 ** attempt
    return wait > maxRetryDelayMs ? null : wait
  }

  /** Sends (again, on 429/503 when `retry`), and returns the body of a 2xx or throws SurvivalApiError. */
  async function call<T>(
    send: () => Promise<Outcome<T>>,
    signal: AbortSignal | undefined,
    retry = true,
  ): Promise<{ data: T; response: Response }> {
    for (let attempt = 0; ; attempt++) {
      let outcome: Outcome<T>
      try {
        outcome = await send()
      } catch (error) {
        if (isAbort(error) || signal?.aborted) throw error
        throw SurvivalApiError.network(error)
      }
      const { response } = outcome
      if (response.ok) return { data: outcome.data as T, response }
      const wait = retry ? retryWait(response, attempt) : null
      if (wait === null) throw SurvivalApiError.fromResponse(response, outcome.error)
      await sleep(wait, signal)
    }
  }

  const init = (options: CallOptions = {}) => ({
    signal: options.signal,
    headers: (options.requestId ? { 'Request-Id': options.requestId } : {}) as Record<string, string>,
  })
  const body = async <T>(send: () => Promise<Outcome<T>>, options?: CallOptions) =>
    (await call(send, options?.signal)).data

  /**
   * The same operation answered as a PDF report (`Accept: application/pdf`): its bytes. Counted as one
   * request, retried on 429/503 as any call; an error is the API's JSON error, thrown as SurvivalApiError.
   */
  async function report(
    path: '/v1/predict/compare' | '/v1/predict/rank' | '/v1/plans/stocking',
    request: CompareRequest | RankRequest | StockingPlanRequest,
    options: ReportOptions = {},
  ): Promise<Uint8Array> {
    const headers = {
      ...init(options).headers,
      Accept: 'application/pdf',
      'Accept-Language': options.language ?? 'en',
    }
    const send = () =>
      api.POST(path, {
        body: request as never,
        ...(options.paper ? { params: { query: { paper: options.paper } } } : {}),
        headers,
        parseAs: 'arrayBuffer',
        signal: options.signal,
      }) as Promise<Outcome<ArrayBuffer>>
    const { data, response } = await call(send, options.signal)
    if (mediaTypeOf(response) !== 'application/pdf')
      throw SurvivalApiError.wrongMedia(response, 'not_a_report', 'a PDF report')
    return new Uint8Array(data)
  }

  /** One results request from `from`; `etag` asks for the same bytes as before (`If-Range`). */
  async function openResults(id: string, options: ResultsOptions, from: number, etag: string | null) {
    const headers: Record<string, string> = { ...init(options).headers }
    if (options.format) headers.Accept = JOB_MEDIA_TYPES[options.format]
    if (from > 0) headers.Range = `bytes=${from}-`
    if (from > 0 && etag && !etag.startsWith('W/')) headers['If-Range'] = etag
    const send = () =>
      api.GET('/v1/jobs/{id}/results', {
        params: { path: { id } },
        parseAs: 'stream',
        headers,
        signal: options.signal,
      }) as Promise<Outcome<ReadableStream<Uint8Array> | null>>
    try {
      const { data, response } = await call(send, options.signal)
      return { stream: data, response }
    } catch (error) {
      // Asking from the very end: nothing left to send.
      if (error instanceof SurvivalApiError && error.status === 416 && from > 0) return null
      throw error
    }
  }

  /**
   * Sends a streamed upload (./upload-body.ts): `post` makes the request with the body it is given.
   * Sent again on 429/503 (as `call` does) only when the input can be reopened — a path or a Blob, the
   * whole body from its first byte; a stream is sent once, whatever the answer.
   */
  function upload<T>(
    input: UploadInput,
    options: UploadBase,
    post: (body: StreamedInit & { signal: AbortSignal | undefined }) => Promise<Outcome<T>>,
  ): Promise<{ data: T; response: Response }> {
    return withUploadBody(input, ({ open, reopenable }) =>
      call(
        () => post({ ...streamed(open(), options.onProgress), signal: options.signal }),
        options.signal,
        reopenable,
      ),
    )
  }

  async function uploadJob(input: UploadInput, options: UploadOptions): Promise<JobAccepted> {
    const headers = { ...init(options).headers, 'Content-Type': JOB_MEDIA_TYPES[options.format] }
    const query = {
      ...options.defaults,
      ...(options.modelVersion ? { model_version: options.modelVersion } : {}),
    }
    const { data } = await upload(input, options, (body) =>
      api.POST('/v1/jobs', {
        ...(Object.keys(query).length > 0 ? { params: { query } } : {}),
        ...body,
        headers,
      }),
    )
    return data
  }

  async function streamResults(id: string, options: ResultsOptions = {}): Promise<ResultsStream> {
    const from = options.from ?? 0
    const first = await openResults(id, options, from, null)
    const etag = first?.response.headers.get('etag') ?? null
    const totalBytes = first ? totalOf(first.response) : from
    async function* chunks(): AsyncGenerator<Uint8Array> {
      let current = first
      let offset = from
      let resumes = 0
      while (current?.stream) {
        // A server that ignored Range sends everything: skip what the caller already has.
        let skip = current.response.status === 200 ? offset : 0
        try {
          for await (const chunk of current.stream as unknown as AsyncIterable<Uint8Array>) {
            if (skip >= chunk.byteLength) {
              skip -= chunk.byteLength
              continue
            }
            const part = skip > 0 ? chunk.subarray(skip) : chunk
            skip = 0
            offset += part.byteLength
            yield part
          }
          if (totalBytes === null || offset >= totalBytes) return
          throw new Error(`the results ended at byte ${offset} of ${totalBytes}`)
        } catch (error) {
          if (isAbort(error) || options.signal?.aborted) throw error
          if (resumes++ >= maxRetries) throw SurvivalApiError.network(error)
        }
        current = await openResults(id, options, offset, etag)
        const now = current?.response.headers.get('etag') ?? null
        if (current && etag && now !== etag) {
          throw new SurvivalApiError({
            status: current.response.status,
            code: 'results_changed',
            message: `The results of job ${id} changed while downloading (ETag ${etag} → ${now})`,
            requestId: current.response.headers.get('request-id'),
          })
        }
      }
    }
    const contentType = (first && mediaTypeOf(first.response)) ?? null
    return Object.assign(Readable.from(chunks(), { objectMode: false }), {
      etag,
      totalBytes,
      from,
      contentType,
    })
  }

  return {
    /** The openapi-fetch client underneath (key header set), for anything not wrapped here. */
    raw: api,

    predict: (site: PredictRequest, options?: CallOptions) =>
      body(() => api.POST('/v1/predict', { body: site, ...init(options) }), options),

    compare: (site: CompareRequest, options?: CallOptions) =>
      body(() => api.POST('/v1/predict/compare', { body: site, ...init(options) }), options),

    rank: (site: RankRequest, options?: CallOptions) =>
      body(() => api.POST('/v1/predict/rank', { body: site, ...init(options) }), options),

    /** A stocking plan for a point or a stand (a Polygon, MultiPolygon or a Feature holding one). */
    stockingPlan: (plan: StockingPlanRequest, options?: CallOptions) =>
      body(() => api.POST('/v1/plans/stocking', { body: plan, ...init(options) }), options),

    /**
     * The cheapest ways to meet the reforestation standard (`POST /v1/plans/options`): every mix ×
     * method × treatment combination weighed at its smallest density meeting the standard at
     * `confidence`, ranked by cost per acre, and the cheapest that falls short (`cheapest_failing`).
     * One request, whatever the number of candidates.
     */
    plantingOptions: (request: PlantingOptionsRequest, options?: CallOptions) =>
      body(() => api.POST('/v1/plans/options', { body: request, ...init(options) }), options),

    /** The PDF report of a comparison (the bytes): `compare`'s request, in `language` on `paper`. */
    comparePdf: (site: CompareRequest, options?: ReportOptions) =>
      report('/v1/predict/compare', site, options),

    /** The PDF report of a ranking (the bytes): `rank`'s request, in `language` on `paper`. */
    rankPdf: (site: RankRequest, options?: ReportOptions) => report('/v1/predict/rank', site, options),

    /** The PDF report of a stocking plan (the bytes): `stockingPlan`'s request, in `language` on `paper`. */
    stockingPlanPdf: (plan: StockingPlanRequest, options?: ReportOptions) =>
      report('/v1/plans/stocking', plan, options),

    /**
     * The survival raster (`GET /v1/rasters/survival.tif`, docs/rasters.md): survival at every pixel
     * of Oregon and Washington for one species, method and horizon, a Float32 Cloud-Optimized GeoTIFF
     * in EPSG:4326 with nodata -9999 (its bytes, a few MB at the default 0.01°). One request.
     */
    async survivalRaster(query: SurvivalRasterQuery, options: CallOptions = {}): Promise<Uint8Array> {
      const send = () =>
        api.GET('/v1/rasters/survival.tif', {
          params: { query },
          parseAs: 'arrayBuffer',
          ...init(options),
        }) as Promise<Outcome<ArrayBuffer>>
      const { data, response } = await call(send, options.signal)
      if (mediaTypeOf(response) !== 'image/tiff')
        throw SurvivalApiError.wrongMedia(response, 'not_a_raster', 'a GeoTIFF')
      return new Uint8Array(data)
    },

    /**
     * Up to the tier's batch size of sites in one request; results in request order. `modelVersion`
     * pins every site to one model version (GET /v1/models).
     */
    batch: (sites: BatchSite[], options?: CallOptions & { modelVersion?: string }) =>
      body(
        () =>
          api.POST('/v1/predict/batch', {
            body: { sites, ...(options?.modelVersion ? { model_version: options.modelVersion } : {}) },
            ...init(options),
          }),
        options,
      ),

    /**
     * Model versions (./models.ts): models, model(version), calibrate (a calibrated version fitted on the
     * account's surveys, waited for), calibration(id), setDefaultModel(version | null).
     */
    ...modelMethods({ api, body, call, init }),

    species: (query: SpeciesQuery = {}, options?: CallOptions) =>
      body(() => api.GET('/v1/species', { params: { query }, ...init(options) }), options),

    methods: (options?: CallOptions) => body(() => api.GET('/v1/methods', init(options)), options),

    /** The treatments a request may name, and every effect with its figure, statuses and sources. */
    treatments: (options?: CallOptions) => body(() => api.GET('/v1/treatments', init(options)), options),

    coverage: (options?: CallOptions) => body(() => api.GET('/v1/coverage', init(options)), options),

    health: (options?: CallOptions) => body(() => api.GET('/v1/health', init(options)), options),

    /** The key, its tier's limits (`batch_size`), today's count and the last 30 days. */
    usage: (options?: CallOptions) => body(() => api.GET('/v1/usage', init(options)), options),

    /**
     * A page of the account's audit log, newest first: `limit` events (1–100, default 50) after
     * `cursor` (the previous page's `next_cursor`, null on the last page).
     */
    audit: (query: AuditQuery = {}, options?: CallOptions) =>
      body(() => api.GET('/v1/audit', { params: { query }, ...init(options) }), options),

    /**
     * Field surveys (./surveys.ts): storeSurveys, surveys, allSurveys, surveyPlot, deleteSurveyPlot…, and
     * the streamed uploads: uploadSurveys, surveyUpload, surveyUploadRefusals.
     */
    ...surveyMethods({ api, body, init, upload }),

    /**
     * Starts a job from a file (path), a Node Readable, a web ReadableStream, an AsyncIterable of bytes
     * or a Blob, streamed as the request body (never read whole). A path or a Blob is sent again for a
     * retry; a stream is sent once. A GeoJSON upload's `defaults` go as query parameters.
     */
    uploadJob,

    /**
     * Starts a GeoJSON job: a `.geojson` file (path; reopened for a retry), a stream of one (sent once),
     * or a FeatureCollection object (serialised once, sent again for a retry). `defaults` go as query
     * parameters: the value of each property a feature lacks (`planting_method`, `trees_per_acre`…); a
     * feature's own value wins. Points are predicted, polygons planned; each stand costs one request.
     */
    uploadGeoJsonJob(
      input: UploadInput | JobFeatureCollection,
      options: GeoJsonUploadOptions = {},
    ): Promise<JobAccepted> {
      const geojson = { ...options, format: 'geojson' as const }
      if (isUploadInput(input)) return uploadJob(input, geojson)
      return uploadJob(new Blob([JSON.stringify(input)], { type: JOB_MEDIA_TYPES.geojson }), geojson)
    },

    getJob: (id: string, options?: CallOptions) =>
      body(() => api.GET('/v1/jobs/{id}', { params: { path: { id } }, ...init(options) }), options),

    /** Polls the job until it is succeeded, failed or cancelled, and returns that status. */
    waitForJob: (id: string, options: WaitOptions = {}): Promise<Job> =>
      pollUntilSettled(
        {
          name: `job ${id}`,
          read: (signal) =>
            body(() => api.GET('/v1/jobs/{id}', { params: { path: { id } }, signal }), { signal }),
          settled: (job) => FINAL_STATUSES.has(job.status),
          defaults: JOB_POLL,
        },
        options,
      ),

    /**
     * The results of a succeeded job, streamed. `from` resumes at a byte offset (`Range: bytes=N-`);
     * a connection lost mid-way is resumed the same way, from the bytes already delivered, up to
     * `maxRetries` times, and only while the `ETag` is unchanged.
     */
    streamResults,

    /**
     * A succeeded GeoJSON job's results, read whole and parsed: every feature with its geometry, its own
     * properties, `feature_index` and its results. For a large job, stream them instead
     * (`streamResults(id, {format: 'geojson'})`). A job that is not a GeoJSON job is a TypeError.
     */
    async geoJsonResults(id: string, options: CallOptions = {}): Promise<JobResultsCollection> {
      const results = await streamResults(id, { ...options, format: 'geojson' })
      if (results.contentType !== JOB_MEDIA_TYPES.geojson) {
        results.destroy()
        throw new TypeError(`Job ${id} is not a GeoJSON job: its results are ${results.contentType}`)
      }
      const parts: Buffer[] = []
      for await (const chunk of results as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk))
      return JSON.parse(Buffer.concat(parts).toString('utf8')) as JobResultsCollection
    },

    /**
     * Cancels a queued or running job (returns its status, `cancelled`), or deletes a finished one and
     * its results (returns null).
     */
    async cancelJob(id: string, options?: CallOptions): Promise<Job | null> {
      const { data, response } = await call(
        () => api.DELETE('/v1/jobs/{id}', { params: { path: { id } }, ...init(options) }),
        options?.signal,
      )
      return response.status === 204 || !data ? null : data
    },
  }
}

export type SurvivalClient = ReturnType<typeof createSurvivalClient>

/** The answer's media type, without its parameters. */
function mediaTypeOf(response: Response): string | undefined {
  return response.headers.get('content-type')?.split(';')[0]?.trim()
}

/** The whole body's size: from `Content-Range: bytes a-b/total`, else `Content-Length` of a 200. */
function totalOf(response: Response): number | null {
  const range = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '')
  if (range) return Number(range[1])
  const length = response.headers.get('content-length')
  return response.status === 200 && length !== null ? Number(length) : null
}
