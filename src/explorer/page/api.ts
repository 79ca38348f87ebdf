import type { TypedDocumentString } from './generated/operations.ts'
import type { SurveyUpload, SurveyUploadOutcome, SurveyUploadRefusal } from './survey-data.ts'

/** What the page shows of the day's quota, read from the X-RateLimit-* headers of the last answer. */
export interface Quota {
  limit: number | null
  remaining: number | null
  resetAt: Date | null
}

/** An answer the API refused or could not give, as the user should read it. */
export class ExplorerApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly requestId: string | null,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

/** A job as GET /v1/jobs/{id} describes it (the fields the page reads). */
export interface JobStatus {
  id: string
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
  format: 'csv' | 'ndjson' | 'geojson'
  rows_total: number
  rows_done: number
  rows_failed: number
  errors_by_code: Record<string, number>
  failure?: unknown
}

interface GraphQLErrorBody {
  message: string
  extensions?: Record<string, unknown> & { code?: string; status?: number }
}

/** The details of a 422 survey_upload_refused, as the page reads them. */
function isRefusal(details: unknown): details is SurveyUploadRefusal {
  return (
    typeof details === 'object' &&
    details !== null &&
    Array.isArray((details as { refused?: unknown }).refused)
  )
}

function numberHeader(headers: Headers, name: string): number | null {
  const raw = headers.get(name)
  if (raw === null || raw.trim() === '') return null
  const value = Number(raw)
  return Number.isFinite(value) ? value : null
}

export function quotaOf(headers: Headers): Quota | null {
  if (!headers.has('x-ratelimit-limit') && !headers.has('x-ratelimit-remaining')) return null
  const reset = numberHeader(headers, 'x-ratelimit-reset')
  return {
    limit: numberHeader(headers, 'x-ratelimit-limit'),
    remaining: numberHeader(headers, 'x-ratelimit-remaining'),
    resetAt: reset === null ? null : new Date(reset * 1000),
  }
}

/**
 * Talks to the API on the page's own origin with the analyst's key in X-API-Key (never in a URL).
 * Every answer's rate-limit headers go to `onQuota`.
 */
export class ExplorerApi {
  constructor(
    private readonly key: () => string,
    private readonly onQuota: (quota: Quota) => void,
  ) {}

  /**
   * One operation. A partial answer (some root field answered, others null with an error, e.g. no data
   * near the point) resolves with both; an answer with no data at all (bad key, quota spent) rejects.
   */
  async query<TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables>,
    variables: TVariables,
  ): Promise<{ data: TResult; errors: ExplorerApiError[] }> {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': this.key() },
      body: JSON.stringify({ query: document.toString(), variables }),
    })
    this.noteQuota(response)
    const requestId = response.headers.get('request-id')
    const body = (await response.json().catch(() => ({}))) as { data?: unknown; errors?: GraphQLErrorBody[] }
    const errors = (body.errors ?? []).map((error) => {
      const extensions = error.extensions ?? {}
      return new ExplorerApiError(
        error.message,
        extensions.code ?? 'error',
        extensions.status ?? response.status,
        requestId,
        extensions,
      )
    })
    if (body.data === undefined || body.data === null)
      throw (
        errors[0] ??
        new ExplorerApiError(`The API answered ${response.status}`, 'error', response.status, requestId)
      )
    return { data: body.data as TResult, errors }
  }

  /** POST /keys: a free spore key for an email address, sent to that address (never shown here). */
  async requestSporeKey(email: string): Promise<void> {
    const response = await fetch('/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email, name: 'explorer' }),
    })
    if (response.status === 202) return
    const body = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } }
    const message =
      response.status === 404
        ? 'This server does not hand out keys by email; ask its operator for one.'
        : (body.error?.message ?? `The API answered ${response.status}`)
    throw new ExplorerApiError(
      message,
      body.error?.code ?? 'error',
      response.status,
      response.headers.get('request-id'),
    )
  }

  /** GET /v1/rasters/survival.tif (rasterPath): the survival surface as a Cloud-Optimized GeoTIFF. */
  async survivalRaster(path: string): Promise<Blob> {
    const response = await this.rest(path, 'image/tiff')
    return response.blob()
  }

  /**
   * The PDF report of an answer (docs/reports.md): the REST operation's body POSTed with
   * `Accept: application/pdf` and the browser's language, which picks the report's language and paper.
   * One request, as the JSON answer is; an error stays the API's JSON error.
   */
  async report(path: string, body: unknown, language: string): Promise<{ pdf: Blob; fileName: string }> {
    const response = await this.rest(path, 'application/pdf', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-language': language },
      body: JSON.stringify(body),
    })
    const named = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')
    return { pdf: await response.blob(), fileName: named?.[1] ?? 'report.pdf' }
  }

  /** GET /v1/jobs/{id}: a job's status and format. */
  async job(id: string): Promise<JobStatus> {
    const response = await this.rest(`/v1/jobs/${encodeURIComponent(id)}`, 'application/json')
    return (await response.json()) as JobStatus
  }

  /** GET /v1/jobs/{id}/results as GeoJSON (a GeoJSON job's), parsed: only the parsed value is kept. */
  async jobGeoJson(id: string): Promise<unknown> {
    const response = await this.rest(`/v1/jobs/${encodeURIComponent(id)}/results`, 'application/geo+json')
    try {
      return await response.json()
    } catch {
      throw new ExplorerApiError(
        'The results could not be read as JSON',
        'invalid_results',
        response.status,
        response.headers.get('request-id'),
      )
    }
  }

  /**
   * POST /v1/surveys/uploads: a survey CSV sent as it is. Stored (201), or refused (422
   * survey_upload_refused: nothing stored, the first refused rows in its details); any other answer
   * rejects with the API's error.
   */
  async uploadSurveys(file: Blob, skipInvalid: boolean): Promise<SurveyUploadOutcome> {
    try {
      const path = `/v1/surveys/uploads${skipInvalid ? '?skip_invalid=true' : ''}`
      const response = await this.rest(path, 'application/json', {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: file,
      })
      return { kind: 'stored', upload: (await response.json()) as SurveyUpload }
    } catch (error) {
      const details = error instanceof ExplorerApiError ? error.extensions.details : undefined
      if (error instanceof ExplorerApiError && error.code === 'survey_upload_refused' && isRefusal(details))
        return { kind: 'refused', refusal: details }
      throw error
    }
  }

  /**
   * A request of the REST API with the key (a GET unless `init` says otherwise); an answer other than
   * 2xx rejects with the API's error.
   */
  private async rest(
    path: string,
    accept: string,
    init: { method?: string; headers?: Record<string, string>; body?: BodyInit } = {},
  ): Promise<Response> {
    const response = await fetch(path, {
      ...init,
      headers: { ...init.headers, accept, 'x-api-key': this.key() },
    })
    this.noteQuota(response)
    if (response.ok) return response
    const body = (await response.json().catch(() => ({}))) as {
      error?: { code?: string; message?: string; details?: unknown }
    }
    throw new ExplorerApiError(
      body.error?.message ?? `The API answered ${response.status}`,
      body.error?.code ?? 'error',
      response.status,
      response.headers.get('request-id'),
      body.error?.details === undefined ? {} : { details: body.error.details },
    )
  }

  private noteQuota(response: Response): void {
    const quota = quotaOf(response.headers)
    if (quota) this.onQuota(quota)
  }
}
