import type { IncomingMessage, ServerResponse } from 'node:http'
import { asApiError } from '../db/availability.ts'
import { ApiError } from '../domain/errors.ts'
import type { Logger } from '../logging/logger.ts'
import { annotateRequest } from '../observability/request-scope.ts'
import { rateLimitHeaders } from '../quota/quota-guard.ts'
import { sendError, sendJson } from './http-io.ts'
import { type RestDeps, ROUTES, type Route } from './routes.ts'

const ROUTES_BY_PATH = new Map<string, Route[]>()
for (const route of ROUTES) ROUTES_BY_PATH.set(route.path, [...(ROUTES_BY_PATH.get(route.path) ?? []), route])

function allowedMethods(routes: readonly Route[]): string {
  return [...new Set(routes.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])))].join(', ')
}

/**
 * The /v1 front door: route → admit (auth + quota) → handler; every outcome in the spec's JSON,
 * every response with Request-Id and, once admitted, the caller's rate-limit fields.
 */
export function createRestHandler(deps: RestDeps, logger: Logger) {
  return async function handleRest(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string) {
    const baseHeaders: Record<string, string> = { 'request-id': requestId }
    try {
      const path = url.pathname.replace(/\/+$/, '') || '/'
      const candidates = ROUTES_BY_PATH.get(path)
      annotateRequest(req, { route: candidates ? path : 'unmatched' })
      if (!candidates) throw new ApiError('not_found', `No endpoint at ${url.pathname}`)
      const method = req.method === 'HEAD' ? 'GET' : req.method
      const route = candidates.find((r) => r.method === method)
      if (!route) {
        baseHeaders.allow = allowedMethods(candidates)
        throw new ApiError(
          'method_not_allowed',
          `${req.method} is not allowed on ${url.pathname}; use ${baseHeaders.allow}`,
        )
      }
      const admission = route.authenticated
        ? await deps.access.admit(headerValue(req, 'x-api-key'), req)
        : null
      if (admission) Object.assign(baseHeaders, rateLimitHeaders(admission.quota))
      const response = await route.handle({ req, url, requestId }, deps, admission)
      sendJson(
        res,
        response.status,
        response.body,
        { ...baseHeaders, ...response.headers },
        response.contentType,
      )
    } catch (error) {
      const apiError = asApiError(error)
      if (!apiError) logger.error({ requestId, err: error, path: url.pathname }, 'unexpected error')
      const reported = apiError ?? new ApiError('internal_error', 'Unexpected server failure')
      annotateRequest(req, { errorCode: reported.code })
      sendError(res, reported, baseHeaders)
    }
  }
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}
