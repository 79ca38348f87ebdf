import { timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { ApiError } from '../domain/errors.ts'
import { createGraphQLHttpHandler } from '../graphql/http-transport.ts'
import type { Gateway } from '../graphql/yoga.ts'
import type { Logger } from '../logging/logger.ts'
import type { Metrics } from '../observability/metrics.ts'
import { attachRequestRecord, type RequestRecord } from '../observability/request-scope.ts'
import { sendError } from '../rest/http-io.ts'
import { createRestHandler } from '../rest/router.ts'
import type { RestDeps } from '../rest/routes.ts'
import { resolveRequestId } from './request-id.ts'

export interface ServerDeps extends RestDeps {
  gateway: Gateway
  logger: Logger
  metrics: Metrics
  /** When set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string
  /** Requests served at once; beyond it, 503 + Retry-After. */
  maxInFlight: number
}

const REQUEST_TIMEOUT_MS = 30_000

function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.replace(/^Bearer /i, '') ?? '')
  const expected = Buffer.from(token)
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}

/** One log line and one metrics sample per request, whatever answered it. */
function observe(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, record: RequestRecord): void {
  const started = process.hrtime.bigint()
  res.once('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    const labels = {
      route: record.route,
      operation: record.graphqlField ?? '',
      method: req.method ?? 'GET',
      status: String(res.statusCode),
    }
    deps.metrics.requests.inc(labels)
    deps.metrics.requestDuration.observe(labels, seconds)
    const level = res.statusCode >= 500 ? 'error' : 'info'
    deps.logger[level](
      {
        requestId: record.requestId,
        method: req.method,
        route: record.route,
        operation: record.operation,
        status: res.statusCode,
        durationMs: Math.round(seconds * 10_000) / 10,
        keyId: record.keyId,
        tier: record.tier,
        errorCode: record.errorCode,
      },
      'request',
    )
  })
}

/** HTTP front door: /graphql to the GraphQL gateway, /v1/* to the REST adapter, /metrics, else 404. */
export function createHttpServer(deps: ServerDeps): Server {
  const handleRest = createRestHandler(deps, deps.logger)
  const handleGraphQL = createGraphQLHttpHandler(deps.gateway, deps.logger)
  let inFlight = 0
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const requestId = resolveRequestId(
      (req.headers['request-id'] as string | undefined) ??
        (req.headers['x-request-id'] as string | undefined),
    )
    // GraphQL reads the same id from the header.
    req.headers['request-id'] = requestId
    const record: RequestRecord = { requestId, route: url.pathname }
    observe(deps, req, res, record)
    inFlight += 1
    res.once('close', () => {
      inFlight -= 1
    })
    if (inFlight > deps.maxInFlight && url.pathname !== '/v1/health') {
      record.errorCode = 'service_unavailable'
      deps.metrics.fallbackEvents.inc({ kind: 'load_shed' })
      return sendError(res, new ApiError('service_unavailable', 'The server is at capacity; retry shortly'), {
        'request-id': requestId,
        'retry-after': '1',
      })
    }
    attachRequestRecord(req, record)
    if (url.pathname === '/graphql') return handleGraphQL(req, res)
    if (url.pathname === '/v1' || url.pathname.startsWith('/v1/'))
      return void handleRest(req, res, url, requestId)
    if (url.pathname === '/metrics') return void serveMetrics(deps, req, res, requestId)
    record.route = 'unmatched'
    record.errorCode = 'not_found'
    sendError(res, new ApiError('not_found', `No endpoint at ${url.pathname}`), { 'request-id': requestId })
  })
  server.requestTimeout = REQUEST_TIMEOUT_MS
  server.headersTimeout = 10_000
  return server
}

async function serveMetrics(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, requestId: string) {
  if (deps.metricsToken && !tokenMatches(req.headers.authorization, deps.metricsToken)) {
    res.writeHead(401, { 'www-authenticate': 'Bearer', 'request-id': requestId }).end()
    return
  }
  const body = await deps.metrics.registry.metrics()
  res.writeHead(200, { 'content-type': deps.metrics.registry.contentType, 'request-id': requestId }).end(body)
}
