import { type ApiError, toApiError } from '../domain/errors.ts'

/**
 * An error as OGC API – Features reports it: `{code, description}` (the exception schema of
 * OGC 17-069r4, Annex B), with the HTTP status. The API's own errors keep their codes here.
 */
export class OgcException extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(description)
    this.name = 'OgcException'
  }

  static of(error: ApiError): OgcException {
    return new OgcException(error.status, error.code, error.message, error.details, error.headers)
  }
}

/** Any error as an OGC exception; `expected` false for one that is no API error (logged, not shown). */
export function toOgcException(error: unknown): { exception: OgcException; expected: boolean } {
  if (error instanceof OgcException) return { exception: error, expected: true }
  const { error: apiError, expected } = toApiError(error)
  return { exception: OgcException.of(apiError), expected }
}

export function exceptionBody(exception: OgcException) {
  return {
    code: exception.code,
    description: exception.description,
    ...(exception.details ? { details: exception.details } : {}),
  }
}
