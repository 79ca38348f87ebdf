import type { Tier } from '../types.ts'

/** Who is calling: never the key itself. */
export interface Caller {
  keyId: string
  /** The key's rotation chain: its daily quota and usage history are shared by every key in it. */
  accountId: string
  tier: Tier
  /** When the key stops working (its expiry, or the end of a rotation grace period); null = never. */
  expiresAt: Date | null
}
