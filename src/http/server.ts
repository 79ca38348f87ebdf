import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { ApiError } from '../domain/errors.ts'
import type { Gateway } from '../graphql/yoga.ts'
import type { Logger } from '../logging/logger.ts'
import { sendError } from '../rest/http-io.ts'
import { createRestHandler } from '../rest/router.ts'
import type { RestDeps } from '../rest/routes.ts'
import { resolveRequestId } from './request-id.ts'

export interface ServerDeps extends RestDeps {
  gateway: Gateway
  logger: Logger
}

/** HTTP front door: /graphql to the GraphQL gateway, /v1/* to the REST adapter, anything else 404. */
export function createHttpServer(deps: ServerDeps): Server {
  const handleRest = createRestHandler(deps, deps.logger)
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname === '/graphql') return void deps.gateway(req, res)
    const requestId = resolveRequestId(
      (req.headers['request-id'] as string | undefined) ??
        (req.headers['x-request-id'] as string | undefined),
    )
    if (url.pathname === '/v1' || url.pathname.startsWith('/v1/'))
      return void handleRest(req, res, url, requestId)
    sendError(res, new ApiError('not_found', `No endpoint at ${url.pathname}`), { 'request-id': requestId })
  })
}
