import { createHmac, timingSafeEqual } from 'node:crypto'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { apiError, invalidField } from '../errors.ts'
import type { SurveyFilter } from '../ports/surveys.ts'
import type { ComparisonRequest, RankingRequest } from '../prediction-types.ts'
import type { StockingPlanRequest } from '../stocking/stocking-types.ts'
import { PAPER_SIZES, type Paper, REPORT_LANGUAGES, type ReportLanguage } from './report-document.ts'
import { standNameOf } from './report-service.ts'

/*
 * Report links (docs/reports.md → GraphQL; docs/security.md → Report links): a GraphQL answer hands out
 * a short-lived URL to the PDF report of the same answer, fetched with no key. The URL's token is the
 * credential. It holds the whole request (the operation, its input and the model version it was
 * answered with), the key and account that asked, the report's language and paper and its expiry,
 * deflated and base64url-encoded, and is signed with HMAC-SHA-256 under a secret derived from the
 * server's ADDRESS_HASH_KEY: nothing is stored, every server process that shares the secret can
 * serve it, and a changed byte, another secret or a passed expiry is refused. The token is readable
 * (it is signed, not encrypted): it shows what was asked, as the report itself does.
 */

export const REPORT_LINK_SETTINGS = {
  /** How long a link works after it is handed out. */
  lifetimeMs: 15 * 60_000,
  /** The longest token handed out or read: a URL of about 4 KB passes every proxy and browser. */
  maxTokenLength: 4096,
}

/** Where a link's PDF is fetched: REPORT_LINK_PATH/{token}.pdf. */
export const REPORT_LINK_PATH = '/v1/reports'

/** Names the token format: a token of another version of it is refused, not misread. */
const FORMAT_VERSION = 1
/** The label the links' secret is derived under, so that ADDRESS_HASH_KEY keys nothing else this way. */
const SECRET_LABEL = 'survival-api report links v1'
/** base64url payload, a dot, and a 32-byte base64url HMAC (its length is checked before). */
const TOKEN_FORM = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/
/** A payload the service signed inflates to far less; a bound all the same. */
const MAX_PAYLOAD_BYTES = 256 * 1024

/**
 * The operations whose answer a link reports, with the domain request each was answered for: an
 * answer made again (comparison, ranking, stocking plan), or something the account keeps, reported as
 * it is when the link is fetched (a finished job; the survey check, with its filter).
 */
export type LinkedRequest =
  | { operation: 'comparison'; request: ComparisonRequest }
  | { operation: 'ranking'; request: RankingRequest }
  | { operation: 'stocking-plan'; request: StockingPlanRequest }
  | { operation: 'job'; request: { jobId: string } }
  | { operation: 'survey'; request: { filter: SurveyFilter } }

const OPERATIONS: readonly LinkedRequest['operation'][] = [
  'comparison',
  'ranking',
  'stocking-plan',
  'job',
  'survey',
]

/** Who a link acts for: its fetch counts one request on this account, as this key. */
export interface LinkHolder {
  keyId: string
  accountId: string
}

export type ReportLinkOrder = LinkedRequest & {
  holder: LinkHolder
  /**
   * The model version the answer was made with: the report is made with it again. A job's is the
   * one it was scored with; a survey check's the one its predictions were compared with ('' when none
   * was known: the account's default when the link is fetched).
   */
  modelVersion: string
  language: ReportLanguage
  paper: Paper
}

export interface ReportLink {
  /** Where to GET the PDF, relative to the API's origin: REPORT_LINK_PATH/{token}.pdf. */
  path: string
  expiresAt: Date
  language: ReportLanguage
  paper: Paper
}

/** A link that was checked: what to report, for whom. */
export type RedeemedLink = ReportLinkOrder & { expiresAt: Date }

interface Payload {
  v: number
  k: string
  a: string
  o: LinkedRequest['operation']
  r: unknown
  m: string
  l: ReportLanguage
  p: Paper
  /** Expiry, whole seconds since the epoch. */
  x: number
}

/** The links' signing key, derived from the server's secret (ADDRESS_HASH_KEY): the same in every process. */
export function reportLinkSecret(serverSecret: string): Buffer {
  return createHmac('sha256', serverSecret).update(SECRET_LABEL).digest()
}

/**
 * The request as answered, less the model version it named (the link pins the one that answered) and,
 * of a stand's properties, all but the name a report is titled with.
 */
function linkedRequest(linked: LinkedRequest): unknown {
  const { modelVersion: _pinned, ...request } = linked.request as typeof linked.request & {
    modelVersion?: unknown
  }
  if (linked.operation !== 'stocking-plan') return request
  const stand = (request as StockingPlanRequest).stand
  if (stand?.type !== 'Feature') return request
  const name = standNameOf({ stand })
  const { properties: _properties, ...feature } = stand
  return { ...request, stand: name === null ? feature : { ...feature, properties: { name } } }
}

const refused = () => apiError('invalid_report_link', { reason: 'invalid' })

function isPayload(value: unknown): value is Payload {
  const payload = value as Partial<Payload> | null
  return (
    typeof payload === 'object' &&
    payload !== null &&
    payload.v === FORMAT_VERSION &&
    typeof payload.k === 'string' &&
    typeof payload.a === 'string' &&
    OPERATIONS.includes(payload.o as LinkedRequest['operation']) &&
    typeof payload.r === 'object' &&
    payload.r !== null &&
    typeof payload.m === 'string' &&
    REPORT_LANGUAGES.includes(payload.l as ReportLanguage) &&
    PAPER_SIZES.includes(payload.p as Paper) &&
    Number.isSafeInteger(payload.x)
  )
}

export class ReportLinks {
  private readonly secret: Buffer

  constructor(
    secret: Buffer,
    private readonly now: () => Date = () => new Date(),
    private readonly settings = REPORT_LINK_SETTINGS,
  ) {
    if (secret.length < 32) throw new Error('a report link secret has at least 32 bytes')
    this.secret = secret
  }

  /**
   * A link to the report of this answer. A request too large for a URL (a stand of many vertices) is
   * refused as invalid_request naming `reportLink`: POST it with `Accept: application/pdf` instead.
   */
  issue(order: ReportLinkOrder): ReportLink {
    const expiresAt = new Date(Math.floor((this.now().getTime() + this.settings.lifetimeMs) / 1000) * 1000)
    const payload: Payload = {
      v: FORMAT_VERSION,
      k: order.holder.keyId,
      a: order.holder.accountId,
      o: order.operation,
      r: linkedRequest(order),
      m: order.modelVersion,
      l: order.language,
      p: order.paper,
      x: expiresAt.getTime() / 1000,
    }
    const body = deflateRawSync(JSON.stringify(payload)).toString('base64url')
    const token = `${body}.${this.sign(body).toString('base64url')}`
    if (token.length > this.settings.maxTokenLength)
      throw invalidField(
        'reportLink',
        `cannot hold this request: its link would be ${token.length} characters, at most ${this.settings.maxTokenLength} are handed out (a stand of many vertices); POST the request with Accept: application/pdf instead`,
      )
    return {
      path: `${REPORT_LINK_PATH}/${token}.pdf`,
      expiresAt,
      language: order.language,
      paper: order.paper,
    }
  }

  /**
   * The link's order, once its signature and expiry are checked: invalid_report_link for a token
   * the service did not sign as it is (altered, cut, signed under another secret, too long), or one
   * whose time has passed. The signature is checked before anything in the token is read.
   */
  redeem(token: string): RedeemedLink {
    if (token.length > this.settings.maxTokenLength || !TOKEN_FORM.test(token)) throw refused()
    const dot = token.indexOf('.')
    const body = token.slice(0, dot)
    // As written, character for character: a signature spelt another way (its spare bits) is refused too.
    const signature = Buffer.from(token.slice(dot + 1), 'latin1')
    const expected = Buffer.from(this.sign(body).toString('base64url'), 'latin1')
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) throw refused()
    let payload: unknown
    try {
      const json = inflateRawSync(Buffer.from(body, 'base64url'), { maxOutputLength: MAX_PAYLOAD_BYTES })
      payload = JSON.parse(json.toString('utf8'))
    } catch {
      throw refused()
    }
    if (!isPayload(payload)) throw refused()
    const expiresAt = new Date(payload.x * 1000)
    if (expiresAt.getTime() <= this.now().getTime())
      throw apiError('invalid_report_link', { reason: 'expired', at: expiresAt })
    return {
      operation: payload.o,
      request: payload.r,
      holder: { keyId: payload.k, accountId: payload.a },
      modelVersion: payload.m,
      language: payload.l,
      paper: payload.p,
      expiresAt,
    } as RedeemedLink
  }

  private sign(body: string): Buffer {
    return createHmac('sha256', this.secret).update(`report-link.${FORMAT_VERSION}.`).update(body).digest()
  }
}
