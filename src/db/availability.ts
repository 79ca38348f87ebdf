import { ApiError } from '../domain/errors.ts'

/** Connection-level failures: the data store is away, not the request wrong. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'QUERY_DEADLINE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled (statement_timeout)
])

/** Seconds a client should wait before retrying while the data store is away. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

export class QueryDeadlineError extends Error {
  readonly code = 'QUERY_DEADLINE'
  constructor(ms: number) {
    super(`database query took longer than ${ms} ms`)
  }
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && UNAVAILABLE_CODES.has(code)
}

export function serviceUnavailable(): ApiError {
  return new ApiError(
    'service_unavailable',
    'The data store is temporarily unavailable; retry shortly',
    undefined,
    { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  )
}

/** The ApiError a failure should surface as: its own, 503 for an unreachable store, or none (a bug). */
export function asApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error
  return isDatabaseUnavailable(error) ? serviceUnavailable() : undefined
}

/**
 * Bounds a query's wait: a silently cut connection would otherwise hang the request until TCP gives
 * up. The query is cancelled when postgres.js can, and the caller gets a QueryDeadlineError.
 */
export function withDeadline<T>(query: Promise<T> & { cancel?: () => unknown }, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      query.cancel?.()
      reject(new QueryDeadlineError(ms))
    }, ms)
  })
  return Promise.race([query, deadline]).finally(() => clearTimeout(timer))
}
