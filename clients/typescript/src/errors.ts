/** The one error the client throws, and the reading of `Retry-After`. */

export interface SurvivalApiErrorInit {
  /** HTTP status; 0 when no response arrived (network failure). */
  status: number
  /** The API's error code (`invalid_species`, `rate_limit_exceeded`…), or `network_error`, `http_<status>`. */
  code: string
  message: string
  details?: Record<string, unknown>
  /** The response's `Request-Id`: quote it when reporting a problem. */
  requestId: string | null
  /** From `Retry-After`, in seconds, when the response had one. */
  retryAfterSeconds?: number | null
}

export class SurvivalApiError extends Error {
  override readonly name = 'SurvivalApiError'
  readonly status: number
  readonly code: string
  readonly details: Record<string, unknown> | undefined
  readonly requestId: string | null
  readonly retryAfterSeconds: number | null

  constructor(init: SurvivalApiErrorInit, options?: { cause?: unknown }) {
    super(init.message, options)
    this.status = init.status
    this.code = init.code
    this.details = init.details
    this.requestId = init.requestId
    this.retryAfterSeconds = init.retryAfterSeconds ?? null
  }

  /** From a response that is not 2xx and its body (parsed JSON, or text when it was not JSON). */
  static fromResponse(response: Response, body: unknown): SurvivalApiError {
    const requestId = response.headers.get('request-id')
    const wait = retryAfterMs(response.headers.get('retry-after'))
    const retryAfterSeconds = wait === null ? null : Math.ceil(wait / 1000)
    const envelope = (body as { error?: unknown } | null | undefined)?.error as
      | { code?: unknown; message?: unknown; details?: unknown }
      | undefined
    if (envelope && typeof envelope.code === 'string') {
      return new SurvivalApiError({
        status: response.status,
        code: envelope.code,
        message: typeof envelope.message === 'string' ? envelope.message : envelope.code,
        details: (envelope.details as Record<string, unknown> | undefined) ?? undefined,
        requestId,
        retryAfterSeconds,
      })
    }
    // Not the API's envelope (a proxy's page, an empty body): keep what there is.
    const text = typeof body === 'string' ? body.trim().slice(0, 200) : ''
    return new SurvivalApiError({
      status: response.status,
      code: `http_${response.status}`,
      message: `HTTP ${response.status} ${response.statusText}${text ? `: ${text}` : ''}`,
      requestId,
      retryAfterSeconds,
    })
  }

  /**
   * A successful answer of another media type than the call asked for (`asked`: a PDF report, a
   * GeoTIFF): a proxy's page or a misrouted path must not pass for the bytes wanted.
   */
  static wrongMedia(response: Response, code: string, asked: string): SurvivalApiError {
    const type = response.headers.get('content-type')?.split(';')[0]?.trim()
    return new SurvivalApiError({
      status: response.status,
      code,
      message: `Asked for ${asked}, the server answered ${type ?? 'no content type'}`,
      requestId: response.headers.get('request-id'),
    })
  }

  /** When no response arrived at all. */
  static network(error: unknown): SurvivalApiError {
    const reason =
      error instanceof Error ? (error.cause as Error | undefined)?.message || error.message : String(error)
    return new SurvivalApiError(
      { status: 0, code: 'network_error', message: `No response from the API: ${reason}`, requestId: null },
      { cause: error },
    )
  }
}

/**
 * Milliseconds to wait from a `Retry-After` header: delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Null when absent or unreadable; a date in the past is 0.
 */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/** True for an abort (the caller's signal), which the client lets through as it is. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')
}
