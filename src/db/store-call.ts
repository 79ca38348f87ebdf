import type { Config } from '../config/config.ts'
import { StoreUnavailableError } from '../domain/errors.ts'
import type { Metrics } from '../observability/metrics.ts'
import { isDatabaseUnavailable, withDeadline } from './availability.ts'

/**
 * The ports of src/domain/ports/ implemented over PostgreSQL: each query bounded by the query deadline, and
 * a database that is away reported as StoreUnavailableError (503 service_unavailable upstairs), so no
 * layer above src/db needs to know the driver's error codes.
 */
export async function storeCall<T>(query: Promise<T>, metrics: Metrics): Promise<T> {
  try {
    return await query
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error
    metrics.fallbackEvents.inc({ kind: 'data_store' })
    throw new StoreUnavailableError(error)
  }
}

export type Deadline = Pick<Config, 'DB_QUERY_TIMEOUT_MS'>

/** A store call bounded by the query deadline, with "database away" reported as StoreUnavailableError. */
export function bounded(config: Deadline, metrics: Metrics) {
  return <T>(query: Promise<T>): Promise<T> =>
    storeCall(withDeadline(query, config.DB_QUERY_TIMEOUT_MS), metrics)
}
