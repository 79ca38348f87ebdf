import type { IncomingMessage, ServerResponse } from 'node:http'
import { apiError, toApiError } from '../domain/errors.ts'
import type { SporeKeyRequests } from '../domain/key-mail/spore-key-requests.ts'
import type { RollLinkState } from '../domain/ports/key-mailbox.ts'
import { readBodyBytes } from '../http-body/body.ts'
import { sendError } from '../http-body/json.ts'
import type { Logger } from '../logging/logger.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { confirmRollPage, ROLL_PAGE_CSP, rolledPage, unusableLinkPage } from './roll-page.ts'

export const ROLL_PAGE_PATH = '/keys/roll'

/** A form with one token: anything longer is not one of ours. */
const FORM_BYTES_MAX = 1024

const STATUS_OF: Record<Exclude<RollLinkState, 'valid'>, number> = { used: 410, expired: 410, unknown: 404 }

function sendPage(res: ServerResponse, status: number, html: string, requestId: string): void {
  const body = Buffer.from(html)
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': body.length,
    'content-security-policy': ROLL_PAGE_CSP,
    // The link's secret is in this page's address: never sent on as a referrer, never cached.
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'request-id': requestId,
  })
  res.end(res.req.method === 'HEAD' ? undefined : body)
}

/**
 * The page a roll link opens (GET: asks, changes nothing) and its confirmation (POST, a form with the
 * link's token: rolls the key once and mails the replacement). Served only while self-service keys are on.
 */
export function createRollPageHandler(requests: SporeKeyRequests, logger: Logger) {
  return async function handleRollPage(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    request: RequestContext,
  ): Promise<void> {
    const ids = { 'request-id': request.requestId }
    request.route = `${req.method} ${ROLL_PAGE_PATH}`
    try {
      if (req.method === 'GET' || req.method === 'HEAD') {
        const state = await requests.rollLink(url.searchParams.get('token') ?? '')
        if (state === 'valid')
          return sendPage(
            res,
            200,
            confirmRollPage(url.searchParams.get('token') as string),
            request.requestId,
          )
        return sendPage(res, STATUS_OF[state], unusableLinkPage(state), request.requestId)
      }
      if (req.method === 'POST') {
        const form = new URLSearchParams((await readBodyBytes(req, FORM_BYTES_MAX)).toString('utf8'))
        const state = await requests.confirmRoll(form.get('token') ?? '', request.clientAddress ?? 'unknown')
        if (state === 'valid') return sendPage(res, 200, rolledPage(), request.requestId)
        return sendPage(res, STATUS_OF[state], unusableLinkPage(state), request.requestId)
      }
      request.errorCode = 'method_not_allowed'
      return sendError(
        res,
        apiError('method_not_allowed', {
          method: req.method ?? '',
          path: ROLL_PAGE_PATH,
          allow: 'GET, HEAD, POST',
        }),
        { ...ids, allow: 'GET, HEAD, POST' },
      )
    } catch (caught) {
      const { error, expected } = toApiError(caught)
      if (!expected) logger.error({ err: caught, requestId: request.requestId }, 'roll page failed')
      request.errorCode = error.code
      sendError(res, error, ids)
    }
  }
}
