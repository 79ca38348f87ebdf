import type { SiteIndexEvents } from '../db/site-index-follower.ts'
import type { Logger } from '../logging/logger.ts'

/**
 * What the nearest-site index in memory tells the log: each index read, and the first failure of a
 * run of them (the follower retries every poll, and lookups meanwhile ask the database).
 */
export function siteIndexLog(logger: Logger): SiteIndexEvents {
  let failing = false
  return {
    loaded: (read, milliseconds) => {
      failing = false
      logger.info(
        { sites: read.index.size, dataVersion: read.dataVersion, ms: Math.round(milliseconds) },
        'nearest-site index read into memory',
      )
    },
    failed: (error) => {
      if (failing) return
      failing = true
      logger.warn({ err: error }, 'nearest-site index not read: lookups ask the database until it is')
    },
  }
}
