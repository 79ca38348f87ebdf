import { ApiError, invalidField } from '../../domain/errors.ts'

/** The plan service names its request's fields as this input does; the error names them under `input`. */
export function withGraphQLFieldNames(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.code !== 'invalid_request') return error
  const { field, reason } = (error.details ?? {}) as { field?: unknown; reason?: unknown }
  if (typeof field !== 'string' || typeof reason !== 'string') return error
  return invalidField(`input.${field}`, reason)
}
