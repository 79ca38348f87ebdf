import type { KeyMailbox } from '../domain/ports/key-mailbox.ts'
import type { KeyAccounts, KeyDirectory } from '../domain/ports/keys.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { Sql } from './connect.ts'
import {
  confirmKeyRoll,
  hashLinkToken,
  markKeyMailDelivered,
  markKeyMailFailed,
  purgeKeyRequests,
  recordKeyRequest,
  rollLinkState,
  takeNextKeyMail,
} from './key-requests.ts'
import { findKeyByHash, findKeyById, KeyStoreError, rotateKey } from './keys.ts'
import { bounded, type Deadline } from './store-call.ts'
import { loadTiers } from './tiers.ts'

export function keyDirectory(sql: Sql, config: Deadline, metrics: Metrics): KeyDirectory {
  const call = bounded(config, metrics)
  return {
    findByHash: (hash) => call(findKeyByHash(sql, hash)),
    findById: (id) => call(findKeyById(sql, id)),
    tiers: () => call(loadTiers(sql)),
  }
}

/** `changed` hears of every key this process changes, once the change is committed. */
export function keyAccounts(
  sql: Sql,
  config: Deadline,
  metrics: Metrics,
  changed: (keyId: string) => void = () => {},
): KeyAccounts {
  const call = bounded(config, metrics)
  return {
    rotate: (keyId, graceSeconds, actor) =>
      call(rotateKey(sql, keyId, graceSeconds, actor)).then(
        (rotation) => {
          changed(keyId)
          return rotation
        },
        (error) => {
          // A key that was already rolled or revoked (KeyStoreError) cannot be rolled: no replacement.
          if (error instanceof KeyStoreError) return null
          throw error
        },
      ),
    findById: (keyId) => call(findKeyById(sql, keyId)),
  }
}

/** Self-service keys by email: the requests, what each is mailed, and the roll links. */
export function keyMailbox(sql: Sql, config: Deadline, metrics: Metrics): KeyMailbox {
  const call = bounded(config, metrics)
  return {
    record: (request, limits) => call(recordKeyRequest(sql, request, limits)),
    takeNext: (leaseMs, linkTtlMs) => call(takeNextKeyMail(sql, leaseMs, linkTtlMs)),
    delivered: (mail) => call(markKeyMailDelivered(sql, mail)),
    failed: (requestId, reason, retryAt) => call(markKeyMailFailed(sql, requestId, reason, retryAt)),
    rollLink: (token) => call(rollLinkState(sql, hashLinkToken(token))),
    confirmRoll: (token, confirmedFrom) => call(confirmKeyRoll(sql, hashLinkToken(token), confirmedFrom)),
    purge: (before) => call(purgeKeyRequests(sql, before)),
  }
}
