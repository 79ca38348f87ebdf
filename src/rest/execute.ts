import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import type { ExecutionResult, GraphQLError } from 'graphql'
import type { Admission } from '../auth/access-control.ts'
import { ApiError } from '../domain/errors.ts'
import { findApiError } from '../graphql/errors.ts'
import type { Gateway } from '../graphql/yoga.ts'

export interface OperationOutcome<T> {
  data: T | null
  error: ApiError | null
  /** Response headers the pipeline set (rate-limit fields, Retry-After). */
  headers: Record<string, string>
}

export interface CallerHeaders {
  apiKey: string | undefined
  requestId: string
  /** Set when the caller was already admitted (auth + quota) by the REST adapter. */
  admission?: Admission
}

function collectHeaders(result: ExecutionResult<unknown>): Record<string, string> {
  const headers: Record<string, string> = {}
  const http = result.extensions?.http as { headers?: Record<string, string> } | undefined
  Object.assign(headers, http?.headers)
  for (const error of result.errors ?? []) {
    Object.assign(
      headers,
      (error.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers,
    )
  }
  return headers
}

function toApiError(error: GraphQLError): ApiError {
  const apiError = findApiError(error)
  if (apiError) return apiError
  // Only a variables/document mismatch gets here: the REST schemas should have caught it first.
  if (!error.originalError) return new ApiError('invalid_request', error.message)
  return new ApiError('internal_error', 'Unexpected server failure')
}

/**
 * Runs one of the fixed /v1 documents through the gateway's envelop pipeline (auth, quota, cost,
 * error shaping), skipping only HTTP parsing and re-validation of a document validated at start-up.
 */
export async function executeOperation<T, V extends Record<string, unknown>>(
  gateway: Gateway,
  document: TypedDocumentNode<T, V>,
  variables: V,
  caller: CallerHeaders,
): Promise<OperationOutcome<T>> {
  const headers = new Headers({ 'request-id': caller.requestId })
  if (caller.apiKey !== undefined) headers.set('x-api-key', caller.apiKey)
  const request = { headers } as unknown as Request
  const { contextFactory, execute, schema } = gateway.getEnveloped({ request, admission: caller.admission })
  const contextValue = await contextFactory()
  const result = (await execute({
    schema,
    document,
    variableValues: variables,
    contextValue,
  })) as ExecutionResult<T>
  const firstError = result.errors?.[0]
  return {
    data: firstError ? null : (result.data ?? null),
    error: firstError ? toApiError(firstError) : null,
    headers: collectHeaders(result),
  }
}
