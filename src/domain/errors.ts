/**
 * Every error the API reports, with its HTTP status: raised once in the domain layer, shown by
 * GraphQL in `errors[].extensions` and by REST as `{"error": {...}}`.
 */
export const ERROR_STATUS = {
  invalid_api_key: 401,
  key_inactive: 403,
  rate_limit_exceeded: 429,
  outside_coverage: 422,
  no_nearby_data: 422,
  invalid_species: 422,
  invalid_method: 422,
  batch_too_large: 422,
  invalid_request: 400,
  invalid_json: 400,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  query_too_complex: 400,
  service_unavailable: 503,
  internal_error: 500,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS
export type ErrorDetails = Record<string, unknown>

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
    this.status = ERROR_STATUS[code]
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError
}
