import type { Config } from './config/config.ts'
import { isDatabaseUnavailable, withDeadline } from './db/availability.ts'
import type { Sql } from './db/connect.ts'
import { databaseAnswers } from './db/health.ts'
import { findKeyByHash, findKeyById, issueSporeKey, KeyStoreError, rotateKey } from './db/keys.ts'
import { createNearestSiteLoader } from './db/nearest-site-loader.ts'
import { findNearestSites } from './db/sites.ts'
import { loadTiers } from './db/tiers.ts'
import { addUsage, touchKeys, usageHistory } from './db/usage.ts'
import { StoreUnavailableError } from './domain/errors.ts'
import type { Metrics } from './observability/metrics.ts'
import type { KeyAccounts, KeyDirectory, NearestSiteLookup, UsageLedger } from './types.ts'

/**
 * The ports of src/types.ts implemented over PostgreSQL: each query bounded by the query deadline, and
 * a database that is away reported as StoreUnavailableError (503 service_unavailable upstairs), so no
 * layer above src/db needs to know the driver's error codes.
 */
async function storeCall<T>(query: Promise<T>, metrics: Metrics): Promise<T> {
  try {
    return await query
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error
    metrics.fallbackEvents.inc({ kind: 'data_store' })
    throw new StoreUnavailableError(error)
  }
}

type StoreConfig = Pick<Config, 'SEARCH_RADIUS_KM' | 'DB_QUERY_TIMEOUT_MS'>

/** One process-wide batching lookup: concurrent requests' points share one KNN statement. */
export function siteLookup(sql: Sql, config: StoreConfig, metrics: Metrics): NearestSiteLookup {
  return createNearestSiteLoader((points) => {
    metrics.nearestSiteLookups.inc(points.length)
    metrics.nearestSiteBatchSize.observe(points.length)
    return metrics.trackQuery(() =>
      storeCall(
        findNearestSites(sql, points, config.SEARCH_RADIUS_KM, { deadlineMs: config.DB_QUERY_TIMEOUT_MS }),
        metrics,
      ),
    )
  })
}

export function keyDirectory(
  sql: Sql,
  config: Pick<Config, 'DB_QUERY_TIMEOUT_MS'>,
  metrics: Metrics,
): KeyDirectory {
  const deadline = config.DB_QUERY_TIMEOUT_MS
  return {
    findByHash: (hash) => storeCall(withDeadline(findKeyByHash(sql, hash), deadline), metrics),
    tiers: () => storeCall(withDeadline(loadTiers(sql), deadline), metrics),
  }
}

export function keyAccounts(
  sql: Sql,
  config: Pick<Config, 'DB_QUERY_TIMEOUT_MS'>,
  metrics: Metrics,
): KeyAccounts {
  const deadline = config.DB_QUERY_TIMEOUT_MS
  return {
    issueSporeKey: (request) => storeCall(withDeadline(issueSporeKey(sql, request), deadline), metrics),
    rotate: (keyId, graceSeconds) =>
      storeCall(withDeadline(rotateKey(sql, keyId, graceSeconds), deadline), metrics).catch((error) => {
        // A key that was already rolled or revoked (KeyStoreError) cannot be rolled: no replacement.
        if (error instanceof KeyStoreError) return null
        throw error
      }),
    findById: (keyId) => storeCall(withDeadline(findKeyById(sql, keyId), deadline), metrics),
  }
}

export function usageLedger(
  sql: Sql,
  config: Pick<Config, 'DB_QUERY_TIMEOUT_MS'>,
  metrics: Metrics,
): UsageLedger {
  const deadline = config.DB_QUERY_TIMEOUT_MS
  return {
    add: (counts) => storeCall(withDeadline(addUsage(sql, counts), deadline), metrics),
    touch: (lastUsed) => storeCall(withDeadline(touchKeys(sql, lastUsed), deadline), metrics),
    history: (accountId, fromDay) =>
      storeCall(withDeadline(usageHistory(sql, accountId, fromDay), deadline), metrics),
  }
}

/** For health: whether the database answers within a second. */
export function databaseProbe(sql: Sql): () => Promise<boolean> {
  return () => databaseAnswers(sql, 1000)
}
