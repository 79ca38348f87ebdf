import { hash, randomBytes } from 'node:crypto'
import { apiError } from '../errors.ts'
import type { SurveyUploadTicketStore } from '../ports/survey-upload-tickets.ts'
import type { SurveyWriter } from './survey-service.ts'

/*
 * Tickets for a streamed survey upload by a client that speaks GraphQL, whose requests are JSON: the
 * `surveyUploadTicket` mutation (one request against the quota) hands out a path, and the file is
 * then POSTed to it as to POST /v1/surveys/uploads, with no key. A ticket is a credential: it works once,
 * for the key that asked for it and while that key works, until it expires; only its SHA-256 is kept.
 */

export const SURVEY_UPLOAD_TICKET_SETTINGS = {
  /** How long a ticket waits for its file. */
  lifetimeMs: 15 * 60_000,
}

const TICKET_PREFIX = 'sut_'
/** sut_ and 32 random bytes, base64url. */
const TICKET_FORMAT = /^sut_[A-Za-z0-9_-]{43}$/

export const SURVEY_UPLOAD_TICKET_PATH = '/v1/surveys/uploads/tickets'

export interface SurveyUploadTicket {
  /** Where to POST the file: SURVEY_UPLOAD_TICKET_PATH/{ticket}. */
  path: string
  expiresAt: Date
  skipInvalid: boolean
}

/** The key a redeemed ticket acts for (by its hash, for the authenticator) and the upload's option. */
export interface RedeemedTicket {
  keyHash: string
  skipInvalid: boolean
}

const tokenHash = (ticket: string) => hash('sha256', ticket, 'hex')

export class SurveyUploadTickets {
  constructor(
    private readonly store: SurveyUploadTicketStore,
    private readonly now: () => Date = () => new Date(),
    private readonly settings = SURVEY_UPLOAD_TICKET_SETTINGS,
  ) {}

  async issue(writer: SurveyWriter, skipInvalid: boolean): Promise<SurveyUploadTicket> {
    const ticket = `${TICKET_PREFIX}${randomBytes(32).toString('base64url')}`
    const expiresAt = new Date(this.now().getTime() + this.settings.lifetimeMs)
    await this.store.issue({
      tokenHash: tokenHash(ticket),
      accountId: writer.accountId,
      keyId: writer.keyId,
      skipInvalid,
      expiresAt,
    })
    return { path: `${SURVEY_UPLOAD_TICKET_PATH}/${ticket}`, expiresAt, skipInvalid }
  }

  /** Takes the ticket (it works once); not_found for one never issued, already used or expired. */
  async redeem(ticket: string): Promise<RedeemedTicket> {
    const redeemed = TICKET_FORMAT.test(ticket)
      ? await this.store.redeem(tokenHash(ticket), this.now())
      : null
    if (!redeemed) throw apiError('not_found', { ticket: true })
    return redeemed
  }

  /** Tickets expired over a day ago are removed (each server's minute sweep). */
  sweep(): Promise<number> {
    return this.store.sweep(new Date(this.now().getTime() - 86_400_000))
  }
}
