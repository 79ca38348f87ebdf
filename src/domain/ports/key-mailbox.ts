import type { IssuanceLimits } from './issuance.ts'

/** A `POST /keys` request as it is recorded: the address to mail, lower-cased, and who asked. */
export interface NewKeyRequest {
  email: string
  name: string | null
  /** The keyed hash of the client address that asked (hashClientAddress), never the address. */
  issuedFrom: string
}

/** Recorded (its mail follows), or refused by the exact hourly limit named. */
export type KeyRequestRecording =
  | { recorded: true }
  | { recorded: false; scope: 'address' | 'global'; retryAfterSeconds: number }

/**
 * What a mailer is to send for a recorded request, decided under the issuance lock: a new key (the
 * address holds none), a notice with a link to roll the key it holds, or a rolled key (a roll link was
 * confirmed). A key made here is written to the key store only once its message is accepted.
 */
export type KeyMail = (
  | { kind: 'key'; requestId: string; email: string; keyId: string; key: string }
  | {
      kind: 'notice'
      requestId: string
      email: string
      keyId: string
      keyHint: string
      /** The roll link's secret: only its hash is kept. */
      linkToken: string
      linkExpiresAt: Date
    }
  | {
      kind: 'rolled_key'
      requestId: string
      email: string
      keyId: string
      key: string
      previousKeyId: string
    }
) & {
  /** Which try at mailing this request this is, from 1. */
  attempt: number
}

/** Where a roll link stands: usable, spent, past its hour, or never made. */
export type RollLinkState = 'valid' | 'used' | 'expired' | 'unknown'

/**
 * Self-service keys by email, kept in the database so that any server process can mail them and none
 * is lost to a restart: requests recorded, taken up by a mailer under a lease, and roll links.
 */
export interface KeyMailbox {
  /** Records a request unless the address or everyone has made `limits` requests within the hour. */
  record(request: NewKeyRequest, limits: IssuanceLimits): Promise<KeyRequestRecording>
  /** The next due request with what to mail for it, leased for `leaseMs`; null when none is due. */
  takeNext(leaseMs: number, linkTtlMs: number): Promise<KeyMail | null>
  /** The message was accepted: the key (if any) becomes the address's, with its audit event. */
  delivered(mail: KeyMail): Promise<void>
  /** The message was not accepted: try again at `retryAt`, or give up when it is null. */
  failed(requestId: string, reason: string, retryAt: Date | null): Promise<void>
  /** Where the roll link with this secret stands (only its hash is looked up). */
  rollLink(token: string): Promise<RollLinkState>
  /** Spends a valid link and queues the roll, from the client address that confirmed it; else where it stands. */
  confirmRoll(token: string, confirmedFrom: string): Promise<RollLinkState>
  /** Removes requests finished and links expired before `before`; how many. */
  purge(before: Date): Promise<number>
}
