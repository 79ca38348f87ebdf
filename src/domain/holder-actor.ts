import type { AuditActor } from '../types.ts'
import { hashClientAddress } from './key-service.ts'

/** Who writes an account's data over the API: the account, the key, and the client address. */
export interface Holder {
  accountId: string
  keyId: string
  /** Kept in the audit log only as its keyed hash; undefined when the connection was gone. */
  clientAddress: string | undefined
}

/** The audit log's actor for a holder's change: the key, and the client address's keyed hash. */
export function holderActor(addressHashKey: string, holder: Omit<Holder, 'accountId'>): AuditActor {
  const { keyId, clientAddress } = holder
  const addressHash = clientAddress === undefined ? null : hashClientAddress(addressHashKey, clientAddress)
  return { kind: 'holder', keyId, addressHash }
}
