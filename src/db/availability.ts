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

class QueryDeadlineError extends Error {
  readonly code = 'QUERY_DEADLINE'
  constructor(ms: number) {
    super(`database query took longer than ${ms} ms`)
  }
}

/** True for failures that mean "the database is away, retry later" rather than a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && UNAVAILABLE_CODES.has(code)
}

/**
 * Bounds a query's wait: a silently cut connection would otherwise hang the request until TCP gives
 * up. The caller gets a QueryDeadlineError; the query itself is left to the server's statement
 * timeout. It is not cancelled: postgres.js, cancelling a query pipelined behind another, stops
 * waiting for its answer, and when the server answers it anyway the rows go to the next query on
 * that connection (another caller's).
 */
export function withDeadline<T>(query: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueryDeadlineError(ms)), ms)
  })
  return Promise.race([query, deadline]).finally(() => clearTimeout(timer))
}
