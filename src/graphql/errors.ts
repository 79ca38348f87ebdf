import { GraphQLError } from 'graphql'
import { asApiError } from '../db/availability.ts'
import { ApiError, ERROR_STATUS } from '../domain/errors.ts'

/**
 * GraphQL form of a domain error: `extensions` carries the spec's code, the HTTP status and details;
 * `extensions.http` (stripped from the body by yoga) sets the response status and headers.
 */
export function toGraphQLError(error: ApiError, source?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: source?.nodes,
    path: source?.path,
    originalError: error,
    extensions: {
      code: error.code,
      status: error.status,
      ...(error.details ? { details: error.details } : {}),
      http: { status: error.status, ...(error.headers ? { headers: error.headers } : {}) },
    },
  })
}

export function internalGraphQLError(source?: GraphQLError): GraphQLError {
  return toGraphQLError(new ApiError('internal_error', 'Unexpected server failure'), source)
}

/** The ApiError behind an error anywhere in its chain (resolvers wrap what they throw); 503 for an unreachable store. */
export function findApiError(error: unknown): ApiError | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current; depth++) {
    const apiError = asApiError(current)
    if (apiError) return apiError
    current = (current as { originalError?: unknown }).originalError
  }
  return undefined
}

/** Errors that GraphQL itself raises about the document or variables: safe to show as they are. */
export function isRequestError(error: GraphQLError): boolean {
  return !error.originalError || error.originalError instanceof GraphQLError
}

export { ERROR_STATUS }
