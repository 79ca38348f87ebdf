import { timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { apiError, serviceUnavailable } from '../domain/errors.ts'
import { sendError } from '../http-body/json.ts'
import type { Logger } from '../logging/logger.ts'
import type { Metrics } from '../observability/metrics.ts'
import { createRequestContext, type RequestContext } from '../observability/request-context.ts'
import { clientAddress, type ProxyTrust, TRUST_NO_PROXY } from './client-address.ts'
import { resolveRequestId } from './request-id.ts'

/** Serves one request that the front door has given a context. */
export type RequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  request: RequestContext,
) => void | Promise<void>

export interface ServerDeps {
  /** POST/GET /graphql. */
  graphql: RequestHandler
  /** /v1 and everything below it, and the self-service key door /keys. */
  rest: RequestHandler
  /** OGC API – Features: /ogc and everything below it. */
  ogc: RequestHandler
  /** The explorer page (/, /explorer) and its assets; absent when switched off. */
  explorer?: { handle: RequestHandler; serves: (pathname: string) => boolean }
  /** The page a key's roll link opens (/keys/roll); absent while self-service keys are off. */
  keyPages?: { handle: RequestHandler; serves: (pathname: string) => boolean }
  logger: Logger
  metrics: Metrics
  /** When set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string
  /** /metrics is served on a port of its own (METRICS_PORT, `createMetricsServer`): here it is 404. */
  metricsElsewhere?: boolean
  /** Requests served at once; beyond it, 503 + Retry-After. */
  maxInFlight: number
  /** The proxies whose word on the client's address is taken (TRUST_PROXY); default none. */
  proxyTrust?: ProxyTrust
  /** How long a body other than a streamed upload may take to arrive (30 s; shorter in tests). */
  bodyTimeoutMs?: number
  /** Whether a request's body is a streamed upload, left to the server's longer requestTimeout. */
  streamsBody: (method: string | undefined, pathname: string) => boolean
}

/** Answers 408 and closes when a request's body is still arriving after `ms`. */
function boundBody(req: IncomingMessage, res: ServerResponse, ms: number): void {
  const timer = setTimeout(() => {
    if (req.complete || res.writableEnded) return
    if (!res.headersSent) {
      res.writeHead(408, { connection: 'close', 'content-type': 'text/plain; charset=utf-8' })
      res.end('Request body timed out\n')
    }
    req.socket.destroySoon()
  }, ms)
  timer.unref()
  const done = () => clearTimeout(timer)
  req.once('end', done)
  res.once('close', done)
}

/**
 * A streamed upload (a route with `streamedBody`, up to 512 MiB) may take this long to arrive whole:
 * Node's own requestTimeout. Every other request's body must arrive within BODY_TIMEOUT_MS.
 */
const UPLOAD_TIMEOUT_MS = 15 * 60_000
const BODY_TIMEOUT_MS = 30_000

function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.replace(/^Bearer /i, '') ?? '')
  const expected = Buffer.from(token)
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}

function incomingRequestId(req: IncomingMessage): string | undefined {
  const header = req.headers['request-id'] ?? req.headers['x-request-id']
  return Array.isArray(header) ? header[0] : header
}

/** One log line and one metrics sample per request, whatever answered it. */
function observe(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, request: RequestContext): void {
  res.once('finish', () => {
    const seconds = Number(process.hrtime.bigint() - request.startedAt) / 1e9
    const labels = {
      route: request.route,
      operation: request.graphqlField ?? '',
      method: req.method ?? 'GET',
      status: String(res.statusCode),
    }
    deps.metrics.requests.inc(labels)
    deps.metrics.requestDuration.observe(labels, seconds)
    const level = res.statusCode >= 500 ? 'error' : 'info'
    if (!deps.logger.isLevelEnabled(level)) return
    deps.logger[level](
      {
        requestId: request.requestId,
        method: req.method,
        route: request.route,
        clientAddress: request.clientAddress,
        operation: request.operation,
        status: res.statusCode,
        durationMs: Math.round(seconds * 10_000) / 10,
        keyId: request.keyId,
        tier: request.tier,
        errorCode: request.errorCode,
      },
      'request',
    )
  })
}

/** HTTP front door: /graphql to the GraphQL adapter, /v1/* and /keys to the REST adapter, /ogc/* to OGC API – Features, the roll-link page, /metrics, the explorer page, else 404. */
export function createHttpServer(deps: ServerDeps): Server {
  let inFlight = 0
  const proxyTrust = deps.proxyTrust ?? TRUST_NO_PROXY
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const request = createRequestContext(
      resolveRequestId(incomingRequestId(req)),
      url.pathname,
      clientAddress(req.socket.remoteAddress, req.headers, proxyTrust),
    )
    observe(deps, req, res, request)
    // Most bodies come with their headers: the route is looked up only for one still arriving.
    if (!req.complete && !deps.streamsBody(req.method, url.pathname))
      boundBody(req, res, deps.bodyTimeoutMs ?? BODY_TIMEOUT_MS)
    inFlight += 1
    res.once('close', () => {
      inFlight -= 1
    })
    if (inFlight > deps.maxInFlight && url.pathname !== '/v1/health') {
      request.errorCode = 'service_unavailable'
      deps.metrics.fallbackEvents.inc({ kind: 'load_shed' })
      return sendError(res, serviceUnavailable('capacity'), { 'request-id': request.requestId })
    }
    if (url.pathname === '/graphql') return void deps.graphql(req, res, url, request)
    if (url.pathname === '/v1' || url.pathname.startsWith('/v1/') || url.pathname === '/keys')
      return void deps.rest(req, res, url, request)
    if (url.pathname === '/ogc' || url.pathname.startsWith('/ogc/'))
      return void deps.ogc(req, res, url, request)
    if (deps.keyPages?.serves(url.pathname)) return void deps.keyPages.handle(req, res, url, request)
    if (url.pathname === '/metrics' && !deps.metricsElsewhere)
      return void serveMetrics(deps, req, res, { 'request-id': request.requestId })
    if (deps.explorer?.serves(url.pathname)) return void deps.explorer.handle(req, res, url, request)
    request.route = 'unmatched'
    request.errorCode = 'not_found'
    sendError(res, apiError('not_found', { path: url.pathname }), { 'request-id': request.requestId })
  })
  server.requestTimeout = UPLOAD_TIMEOUT_MS
  server.headersTimeout = 10_000
  return server
}

async function serveMetrics(
  deps: Pick<ServerDeps, 'metrics' | 'metricsToken'>,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string>,
) {
  if (deps.metricsToken && !tokenMatches(req.headers.authorization, deps.metricsToken)) {
    res.writeHead(401, { 'www-authenticate': 'Bearer', ...headers }).end()
    return
  }
  const body = await deps.metrics.registry.metrics()
  res.writeHead(200, { 'content-type': deps.metrics.registry.contentType, ...headers }).end(body)
}

/**
 * /metrics alone, for a port of its own (METRICS_PORT; the caller listens on 127.0.0.1): the token is
 * required here too when set; any other path is 404.
 */
export function createMetricsServer(deps: Pick<ServerDeps, 'metrics' | 'metricsToken'>): Server {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost')
    if (pathname === '/metrics' && (req.method === 'GET' || req.method === 'HEAD'))
      return void serveMetrics(deps, req, res, {})
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n')
  })
  server.requestTimeout = 10_000
  server.headersTimeout = 10_000
  return server
}
