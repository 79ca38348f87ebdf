import type { Authenticator } from '../access/auth/authenticator.ts'
import type { Database } from '../db/connect.ts'
import { KEY_CHANGES_CHANNEL } from '../db/keys.ts'
import type { Logger } from '../logging/logger.ts'
import type { Metrics } from '../observability/metrics.ts'

/**
 * Key changes made anywhere (other processes, the keys CLI) reach this process's key cache as they are
 * committed; when the channel comes back after a gap, every cached key is read afresh.
 */
export function followKeyChanges(
  database: Database,
  authenticator: Authenticator,
  logger: Logger,
  metrics: Metrics,
) {
  const follower = database.follow?.(KEY_CHANGES_CHANNEL, {
    notice: (keyId) => authenticator.forget(keyId),
    listening: () => authenticator.forgetAll(),
    lost: () =>
      logger.warn(
        'key change channel lost: key changes reach this process within the key cache lifetime until it returns',
      ),
  })
  if (follower) metrics.watchKeyChangeChannel(() => follower.listening)
  return follower
}
