import { once } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type Admission, keyExpiryHeaders } from '../access/auth/access-control.ts'
import { rateLimitHeaders } from '../access/quota/quota-guard.ts'
import { apiError, ClientClosedError, toApiError } from '../domain/errors.ts'
import { sendError, sendJson } from '../http-body/json.ts'
import type { Logger } from '../logging/logger.ts'
import type { RequestContext } from '../observability/request-context.ts'
import type { RestDeps, RestResponse, Route } from './route.ts'
import { ROUTES } from './routes.ts'

/** A route path with `{name}` segments, e.g. /v1/jobs/{id} or /v1/reports/{token}.pdf, as a pattern that captures them. */
function compile(path: string): RegExp {
  const literal = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
  return new RegExp(`^${literal.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`)
}

const ROUTE_PATHS = [...new Set(ROUTES.map((route) => route.path))].map((path) => ({
  path,
  routes: ROUTES.filter((route) => route.path === path),
}))
/** Fixed paths (every prediction endpoint) are one map lookup; only templated ones are matched by pattern. */
const FIXED_PATHS = new Map(
  ROUTE_PATHS.filter(({ path }) => !path.includes('{')).map((entry) => [entry.path, entry]),
)
const TEMPLATED_PATHS = ROUTE_PATHS.filter(({ path }) => path.includes('{')).map((entry) => ({
  ...entry,
  pattern: compile(entry.path),
}))
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>

/** The routes of a path (all its methods) and the values of its `{name}` segments. */
function match(path: string): { path: string; routes: Route[]; params: Record<string, string> } | undefined {
  const fixed = FIXED_PATHS.get(path)
  if (fixed) return { path: fixed.path, routes: fixed.routes, params: NO_PARAMS }
  for (const candidate of TEMPLATED_PATHS) {
    const found = candidate.pattern.exec(path)
    if (found) return { path: candidate.path, routes: candidate.routes, params: { ...found.groups } }
  }
  return undefined
}

/** Whether the route at this method and path takes a streamed file (the HTTP server lifts the body deadline). */
export function streamsBody(method: string | undefined, pathname: string): boolean {
  const matched = match(pathname.replace(/\/+$/, '') || '/')
  return (
    matched?.routes.some(
      (route) => route.method === method && 'streamedBody' in route && route.streamedBody === true,
    ) ?? false
  )
}

function allowedMethods(routes: readonly Route[]): string {
  return [...new Set(routes.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])))].join(', ')
}

/** Writes a streamed body with backpressure; stops when the client goes away. */
async function writeStream(
  req: IncomingMessage,
  res: ServerResponse,
  stream: AsyncIterable<string | Buffer>,
) {
  if (req.method === 'HEAD') return void res.end()
  for await (const piece of stream) {
    if (res.destroyed) return
    if (!res.write(piece)) await once(res, 'drain').catch(() => {})
  }
  res.end()
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

const KEYED_ANSWER_HEADERS = { 'cache-control': 'no-store' } as const

/**
 * The /v1 front door: route → admit (auth + quota) → handler; every outcome in the API contract's JSON,
 * every response with Request-Id and, once admitted, the caller's rate-limit fields.
 */
export function createRestHandler(deps: RestDeps, logger: Logger) {
  return async function handleRest(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    request: RequestContext,
  ): Promise<void> {
    const headers: Record<string, string> = { 'request-id': request.requestId }
    try {
      const matched = match(url.pathname.replace(/\/+$/, '') || '/')
      request.route = matched ? matched.path : 'unmatched'
      if (!matched) throw apiError('not_found', { path: url.pathname })
      const candidates = matched.routes
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
        const key = headerValue(req, 'x-api-key')
        // Once admitted, every answer (an error included) tells the caller where it stands, and is
        // the caller's alone: X-API-Key is no Authorization header, so shared caches must be told.
        const admitted = (admission: Admission) =>
          Object.assign(
            headers,
            KEYED_ANSWER_HEADERS,
            rateLimitHeaders(admission.quota),
            keyExpiryHeaders(admission.caller, admission.at),
          )
        if (route.alongside) {
          const { admission, work } = await deps.access.admitAlongside(key, request, (caller) =>
            route.handle(req, url, deps, caller, matched.params, request),
          )
          admitted(admission)
          response = await work
        } else {
          const admission =
            route.counted === false
              ? await deps.access.identify(key, request)
              : await deps.access.admit(key, request)
          admitted(admission)
          response = await route.handle(req, url, deps, admission, matched.params, request)
        }
      } else {
        response = await route.handle(req, url, deps, matched.params, request)
      }
      if (response.stream) {
        res.writeHead(response.status, {
          ...headers,
          ...response.headers,
          ...(response.contentType ? { 'content-type': response.contentType } : {}),
          'x-content-type-options': 'nosniff',
        })
        return await writeStream(req, res, response.stream)
      }
      if (response.body === undefined)
        return void res.writeHead(response.status, { ...headers, ...response.headers }).end()
      sendJson(res, response.status, response.body, { ...headers, ...response.headers }, response.contentType)
    } catch (error) {
      if (error instanceof ClientClosedError) return
      if (res.headersSent) {
        // A streamed answer broke off: the client sees a cut body (its length said more was coming).
        logger.error({ requestId: request.requestId, err: error, route: request.route }, 'stream failed')
        return void res.destroy()
      }
      const { error: reported, expected } = toApiError(error)
      if (!expected)
        logger.error({ requestId: request.requestId, err: error, route: request.route }, 'unexpected error')
      request.errorCode = reported.code
      sendError(res, reported, headers)
    }
  }
}
