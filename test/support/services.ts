/**
 * Where the tests find PostgreSQL and Redis. Both default to this machine's standard ports (CI and
 * this machine run PostgreSQL with trust auth for user `postgres`); the variables point them elsewhere.
 */

/** A PostgreSQL superuser connection; each test file creates and drops its own database through it. */
export const ADMIN_DATABASE_URL =
  process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** Redis for the quota counters; each test server uses a key prefix of its own. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
