/**
 * The METRICS_TOKEN the server processes started with DATABASE_URL get unless a test sets its own
 * (a test value, never a real secret): such a server will not start with /metrics open.
 */
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789abcdef'

/** The header a scrape of those servers' /metrics sends. */
export const TEST_METRICS_AUTHORIZATION = { authorization: `Bearer ${TEST_METRICS_TOKEN}` }
