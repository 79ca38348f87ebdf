import type { IncomingMessage, ServerResponse } from 'node:http'
import { type Admission, keyExpiryHeaders } from '../access/auth/access-control.ts'
import { rateLimitHeaders } from '../access/quota/quota-guard.ts'
import { ClientClosedError } from '../domain/errors.ts'
import { sendJson } from '../http-body/json.ts'
import type { Logger } from '../logging/logger.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { apiKeyOf } from './credentials.ts'
import type { OgcDeps, OgcResponse, OgcRoute } from './ogc-context.ts'
import { exceptionBody, OgcException, toOgcException } from './ogc-exception.ts'
import { OGC_ROUTES } from './ogc-routes.ts'

/** A route path with `{name}` segments as a pattern that captures them. */
function compile(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`)
}

const MATCHERS = OGC_ROUTES.map((route) => ({ route, pattern: compile(route.path) }))

function match(pathname: string): { route: OgcRoute; params: Record<string, string> } | undefined {
  for (const { route, pattern } of MATCHERS) {
    const found = pattern.exec(pathname)
    if (found) return { route, params: { ...found.groups } }
  }
  return undefined
}

/** The host a link may name: a plain host[:port], else localhost (a Host header is the caller's to write). */
const PLAIN_HOST = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/

function baseUrl(req: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '')
  const host = req.headers.host
  return `http://${host && PLAIN_HOST.test(host) ? host : 'localhost'}`
}

/** Without a key the answer asks for Basic credentials, which QGIS and ArcGIS wait for before they send any. */
const ASK_FOR_CREDENTIALS = { 'www-authenticate': 'Basic realm="survival", charset="UTF-8"' }

/**
 * The /ogc front door: route → (for data) credentials, then one counted request → the route; every
 * error as an OGC exception. The landing page, conformance, the API document, collection metadata and
 * unknown paths need no key and cost none.
 */
export function createOgcHandler(deps: OgcDeps, logger: Logger) {
  const now = deps.now ?? (() => new Date())
  return async function handleOgc(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    request: RequestContext,
  ): Promise<void> {
    const headers: Record<string, string> = { 'request-id': request.requestId }
    try {
      const matched = match(url.pathname.replace(/\/+$/, '') || '/')
      request.route = matched ? matched.route.path : 'unmatched'
      if (!matched) throw new OgcException(404, 'NotFound', `no resource at ${url.pathname}`)
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        headers.allow = 'GET, HEAD'
        throw new OgcException(405, 'MethodNotAllowed', `${req.method} is not allowed here; use GET`)
      }
      const { route, params } = matched
      const context = { url, params, base: baseUrl(req, deps.publicUrl), deps, now: now() }
      route.check?.(context)
      let response: OgcResponse
      if (route.keyed) {
        const key = apiKeyOf(req.headers)
        if (key === null)
          throw new OgcException(
            401,
            'invalid_api_key',
            'An API key is required: X-API-Key, or HTTP Basic with the key as the password',
            undefined,
            ASK_FOR_CREDENTIALS,
          )
        const admission: Admission = await deps.access.admit(key, request).catch((error: unknown) => {
          const { exception } = toOgcException(error)
          if (exception.status === 401)
            throw new OgcException(
              401,
              exception.code,
              exception.description,
              exception.details,
              ASK_FOR_CREDENTIALS,
            )
          throw error
        })
        Object.assign(
          headers,
          { 'cache-control': 'no-store' },
          rateLimitHeaders(admission.quota),
          keyExpiryHeaders(admission.caller, admission.at),
        )
        response = await route.handle({ ...context, caller: admission.caller })
      } else {
        response = await route.handle({ ...context, caller: null })
      }
      sendJson(res, 200, response.body, { ...headers, ...response.headers }, response.contentType)
    } catch (error) {
      if (error instanceof ClientClosedError) return
      const { exception, expected } = toOgcException(error)
      if (!expected)
        logger.error({ requestId: request.requestId, err: error, route: request.route }, 'unexpected error')
      request.errorCode = exception.code
      // A parameter naming a species, method, climate or version there is none of is a bad parameter here.
      const status = exception.status === 422 ? 400 : exception.status
      sendJson(res, status, exceptionBody(exception), { ...headers, ...exception.headers })
    }
  }
}
