/**
 * Every error the API reports: its code, HTTP status and message, defined once here. GraphQL shows
 * them in `errors[].extensions`, REST as `{"error": {...}}`; schema/openapi.yaml documents the same
 * codes (a test keeps the two equal).
 */

export type ErrorDetails = Record<string, unknown>

/** Seconds a client should wait before retrying while the data store is away. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

const ERRORS = {
  invalid_api_key: {
    status: 401,
    message: (p?: { reason: 'expired' | 'rotated'; at: Date }) =>
      p?.reason === 'expired'
        ? `This API key expired at ${p.at.toISOString()}; ask for a new one`
        : p?.reason === 'rotated'
          ? `This API key was rotated and stopped working at ${p.at.toISOString()}; use its replacement`
          : 'A valid API key is required in the X-API-Key header',
  },
  invalid_report_link: {
    status: 403,
    message: (p: { reason: 'invalid' } | { reason: 'expired'; at: Date }) =>
      p.reason === 'expired'
        ? `This report link expired at ${p.at.toISOString()}; ask for the report again (a link works for 15 minutes)`
        : 'This report link is not one the service handed out (altered, cut short, or signed by another server); ask for the report again',
  },
  key_inactive: {
    status: 403,
    message: () => 'This API key is deactivated; ask your account contact to reactivate it',
  },
  rate_limit_exceeded: {
    status: 429,
    message: (
      p:
        | { limit: number | null; tier: string; needed?: number; remaining?: number }
        | { keyIssuance: 'address' | 'global'; limit: number }
        | { field: string; perMinute: number; retryAfterSeconds: number },
    ) =>
      'tier' in p
        ? p.needed !== undefined
          ? `This job needs ${p.needed} requests and ${p.remaining} of the ${p.tier} tier's daily ${p.limit} remain; it resets at midnight UTC`
          : `Daily request limit of ${p.limit} reached for the ${p.tier} tier; it resets at midnight UTC`
        : 'field' in p
          ? `${p.field} is limited to ${p.perMinute} calls a minute per key; retry in ${p.retryAfterSeconds} s`
          : p.keyIssuance === 'address'
            ? `At most ${p.limit} key requests an hour are taken from one client address; retry later`
            : `Key requests are at their hourly ceiling of ${p.limit}; retry later`,
  },
  key_rotated: {
    status: 409,
    message: () => 'This API key was already rolled; roll its replacement instead',
  },
  outside_coverage: {
    status: 422,
    message: () => 'The coordinates lie outside the coverage region (Oregon and Washington)',
  },
  no_nearby_data: {
    status: 422,
    message: () =>
      'No forest data point lies within the search radius of these coordinates (urban, agricultural or water areas have none)',
  },
  invalid_species: {
    status: 422,
    message: (p: { code: string; closest?: { code: string; commonName: string } }) =>
      `Species code "${p.code}" is not recognized.${p.closest ? ` Did you mean ${p.closest.code} (${p.closest.commonName})?` : ''}`,
  },
  invalid_method: {
    status: 422,
    message: (p: { method: string; allowed: readonly string[] }) =>
      `Planting method "${p.method}" is not available; use one of: ${p.allowed.join(', ')}`,
  },
  invalid_climate: {
    status: 422,
    message: (p: { reason: string }) =>
      `The climate asked for is not one the service knows: ${p.reason}. GET /v1/climate lists the periods and scenarios`,
  },
  invalid_treatment: {
    status: 422,
    message: (p: { treatment: string; value: string; reason: string; comparing: boolean }) =>
      `Treatment ${p.treatment} = ${p.value} does not apply to drone seeding: ${p.reason}.${p.comparing ? ' A comparison predicts drone seeding too; ask POST /v1/predict with planting_method manual for hand planting with it' : ' Send it with planting_method manual, or leave it out'}`,
  },
  invalid_model_version: {
    status: 422,
    message: (p: { version: string }) =>
      `No model version ${JSON.stringify(p.version).slice(0, 80)} is open to this key's account: GET /v1/models lists those it may use`,
  },
  batch_too_large: {
    status: 422,
    message: (p: { submitted: number; tier: string; limit: number }) =>
      `This batch has ${p.submitted} sites; the ${p.tier} tier allows up to ${p.limit} per call`,
  },
  invalid_request: {
    status: 400,
    message: (p: { field: string; reason: string; subject?: string }) =>
      p.field === '(root)'
        ? `The ${p.subject ?? 'request body'} must be a JSON object`
        : `${p.field} ${p.reason}`,
  },
  invalid_json: {
    status: 400,
    message: (p: { empty: boolean }) =>
      p.empty ? 'The request body is empty; send a JSON object' : 'The request body is not valid JSON',
  },
  not_found: {
    status: 404,
    message: (
      p:
        | { path: string }
        | { job: string }
        | { plot: string }
        | { upload: string }
        | { ticket: true }
        | { calibration: string },
    ) =>
      'calibration' in p
        ? `No calibration ${JSON.stringify(p.calibration)} belongs to this key's account`
        : 'ticket' in p
          ? 'No such survey upload ticket: it was never issued, was used already, or expired; ask for another'
          : 'job' in p
            ? `No job ${p.job} belongs to this key's account`
            : 'plot' in p
              ? `No survey plot ${JSON.stringify(p.plot)} belongs to this key's account`
              : 'upload' in p
                ? `No survey upload ${JSON.stringify(p.upload)} belongs to this key's account`
                : `No endpoint at ${p.path}`,
  },
  jobs_not_in_tier: {
    status: 403,
    message: (p: { tier: string }) =>
      `Jobs are part of the mycel and hypha tiers; a ${p.tier} key sends up to its batch size per POST /v1/predict/batch`,
  },
  survey_limit_reached: {
    status: 409,
    message: (p: { tier: string; limit: number; wouldHold: number }) =>
      `The ${p.tier} tier keeps up to ${p.limit.toLocaleString('en-US')} surveys (a plot on a survey date) per account; with these the account would hold ${p.wouldHold.toLocaleString('en-US')}. Nothing was stored; delete plots (DELETE /v1/surveys/{plot_id}) or send fewer`,
  },
  survey_upload_refused: {
    status: 422,
    message: (p: { upload: string; refused: number; rows: number }) =>
      `${p.refused.toLocaleString('en-US')} of the upload's ${p.rows.toLocaleString('en-US')} rows were refused, so nothing was stored. details.refused lists the first; GET /v1/surveys/uploads/${p.upload} lists them all. Fix them, or send again with ?skip_invalid=true to store the valid rows`,
  },
  calibration_running: {
    status: 409,
    message: (p: { calibration: string }) =>
      `A calibration of this account is running (${p.calibration}); an account runs one at a time. Poll GET /v1/models/calibrations/${p.calibration} and start the next when it has finished`,
  },
  not_enough_surveys: {
    status: 422,
    message: (p: { plots: number; needed: number }) =>
      `The filter keeps ${p.plots.toLocaleString('en-US')} surveyed plot${p.plots === 1 ? '' : 's'} the base version predicted; a calibration needs at least ${p.needed}. Send more surveys (POST /v1/surveys) or widen the filter`,
  },
  job_not_finished: {
    status: 409,
    message: (p: { job: string; status: string }) =>
      `Job ${p.job} is ${p.status}; its results are ready when it has succeeded`,
  },
  range_not_satisfiable: {
    status: 416,
    message: (p: { length: number }) => `The range asked for starts past the end of these ${p.length} bytes`,
  },
  method_not_allowed: {
    status: 405,
    message: (p: { method: string; path: string; allow: string }) =>
      `${p.method} is not allowed on ${p.path}; use ${p.allow}`,
  },
  payload_too_large: {
    status: 413,
    message: (p: { limit: number } | { maxRows: number } | { maxStands: number }) =>
      'maxRows' in p
        ? `A job holds at most ${p.maxRows} rows`
        : 'maxStands' in p
          ? `A GeoJSON job holds at most ${p.maxStands} stands (polygon features)`
          : `The request body exceeds ${p.limit} bytes`,
  },
  unsupported_media_type: {
    status: 415,
    message: (p?: { accepted: readonly string[] }) =>
      p
        ? `Send the body as ${p.accepted.length > 1 ? `${p.accepted.slice(0, -1).join(', ')} or ${p.accepted.at(-1)}` : p.accepted[0]}`
        : 'Send the body as JSON with Content-Type: application/json',
  },
  query_too_complex: { status: 400, message: (p: { reason: string }) => p.reason },
  service_unavailable: {
    status: 503,
    message: (p: { cause: 'data_store' | 'capacity' }) =>
      p.cause === 'capacity'
        ? 'The server is at capacity; retry shortly'
        : 'The data store is temporarily unavailable; retry shortly',
  },
  internal_error: { status: 500, message: () => 'Unexpected server failure' },
} as const

export type ErrorCode = keyof typeof ERRORS
type MessageParams<C extends ErrorCode> = Parameters<(typeof ERRORS)[C]['message']>[0]

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[]

export function errorStatus(code: ErrorCode): number {
  return ERRORS[code].status
}

export class ApiError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    /** Response headers that belong to this error, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'ApiError'
    this.status = errorStatus(code)
  }
}

/**
 * The error `code` with its message written from `params` (omitted when the message takes none), plus
 * optional details and response headers.
 */
export function apiError<C extends ErrorCode>(
  code: C,
  ...[params, extra]: undefined extends MessageParams<C>
    ? [params?: MessageParams<C>, extra?: { details?: ErrorDetails; headers?: Record<string, string> }]
    : [params: MessageParams<C>, extra?: { details?: ErrorDetails; headers?: Record<string, string> }]
): ApiError {
  const message = (ERRORS[code].message as (p: unknown) => string)(params)
  return new ApiError(code, message, extra?.details, extra?.headers)
}

/** An input field that breaks its rule: invalid_request with the one `details` shape, `{field, reason}`. */
export function invalidField(field: string, reason: string, subject?: string): ApiError {
  return apiError('invalid_request', { field, reason, subject }, { details: { field, reason } })
}

export function serviceUnavailable(cause: 'data_store' | 'capacity' = 'data_store'): ApiError {
  const retryAfter = cause === 'capacity' ? 1 : UNAVAILABLE_RETRY_AFTER_SECONDS
  return apiError('service_unavailable', { cause }, { headers: { 'retry-after': String(retryAfter) } })
}

/**
 * Marks a failure of a store the service depends on (database, key store) as "unavailable, retry":
 * the store adapters throw it, so that no layer above needs to know the driver's error codes.
 */
/**
 * The client closed the connection before its body arrived: nobody is left to answer, nothing is wrong
 * here. Thrown by the HTTP body readers; a service reading a streamed upload records it as the client's.
 */
export class ClientClosedError extends Error {
  constructor(cause: unknown) {
    super('client closed the connection while sending the body', { cause })
    this.name = 'ClientClosedError'
  }
}

export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('data store unavailable', { cause })
    this.name = 'StoreUnavailableError'
  }
}

/**
 * What any failure is reported as: its own ApiError (also when wrapped, e.g. by GraphQL, up to a few
 * `originalError` links deep), 503 for an unavailable store, else internal_error (`expected` false: a
 * bug, to be logged; never shown).
 */
export function toApiError(error: unknown): { error: ApiError; expected: boolean } {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof ApiError) return { error: current, expected: true }
    if (current instanceof StoreUnavailableError) return { error: serviceUnavailable(), expected: true }
    current = (current as { originalError?: unknown }).originalError
  }
  return { error: apiError('internal_error'), expected: false }
}

/** The API contract's error envelope: `{"error": {code, message, details?}}` and nothing else. */
export function errorEnvelope(error: ApiError): {
  error: { code: ErrorCode; message: string; details?: ErrorDetails }
} {
  return {
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  }
}
