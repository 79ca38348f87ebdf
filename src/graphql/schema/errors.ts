import { GraphQLError } from 'graphql'
import type { ApiError } from '../../domain/errors.ts'

/**
 * GraphQL form of a domain error: `extensions` carries the API contract's code, the HTTP status and details;
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

/** Errors that GraphQL itself raises about the document or variables: safe to show as they are. */
export function isRequestError(error: GraphQLError): boolean {
  return !error.originalError || error.originalError instanceof GraphQLError
}
