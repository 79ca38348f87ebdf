import type { IncomingMessage, ServerResponse } from 'node:http'
import { type AccessControl, keyExpiryHeaders } from '../auth/access-control.ts'
import { apiError, toApiError } from '../domain/errors.ts'
import { ClientClosedError } from '../http-io/body.ts'
import { sendError, sendJson } from '../http-io/json.ts'
import type { Logger } from '../logging/logger.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { rateLimitHeaders } from '../quota/quota-guard.ts'
import { type RestDeps, type RestResponse, ROUTES, type Route } from './routes.ts'

const ROUTES_BY_PATH = new Map<string, Route[]>()
for (const route of ROUTES) ROUTES_BY_PATH.set(route.path, [...(ROUTES_BY_PATH.get(route.path) ?? []), route])

function allowedMethods(routes: readonly Route[]): string {
  return [...new Set(routes.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])))].join(', ')
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * The /v1 front door: route → admit (auth + quota) → handler; every outcome in the spec's JSON,
 * every response with Request-Id and, once admitted, the caller's rate-limit fields.
 */
export function createRestHandler(deps: RestDeps & { access: AccessControl }, logger: Logger) {
  return async function handleRest(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    request: RequestContext,
  ): Promise<void> {
    const headers: Record<string, string> = { 'request-id': request.requestId }
    try {
      const path = url.pathname.replace(/\/+$/, '') || '/'
      const candidates = ROUTES_BY_PATH.get(path)
      request.route = candidates ? path : 'unmatched'
      if (!candidates) throw apiError('not_found', { path: url.pathname })
      const method = req.method === 'HEAD' ? 'GET' : req.method
      const route = candidates.find((r) => r.method === method)
      if (!route) {
        headers.allow = allowedMethods(candidates)
        throw apiError('method_not_allowed', {
          method: req.method ?? '',
          path: url.pathname,
          allow: headers.allow,
        })
      }
      let response: RestResponse
      if (route.authenticated) {
        const admission = await deps.access.admit(headerValue(req, 'x-api-key'), request)
        Object.assign(
          headers,
          rateLimitHeaders(admission.quota),
          keyExpiryHeaders(admission.caller, admission.at),
        )
        response = await route.handle(req, url, deps, admission)
      } else {
        response = await route.handle(req, url, deps)
      }
      sendJson(res, response.status, response.body, { ...headers, ...response.headers }, response.contentType)
    } catch (error) {
      if (error instanceof ClientClosedError) return
      const { error: reported, expected } = toApiError(error)
      if (!expected)
        logger.error({ requestId: request.requestId, err: error, path: url.pathname }, 'unexpected error')
      request.errorCode = reported.code
      sendError(res, reported, headers)
    }
  }
}
