import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Sql } from '../db/connect.ts'
import { checkHealth, modelInfo } from '../domain/health.ts'
import type { Gateway } from '../graphql/yoga.ts'
import type { Logger } from '../logging/logger.ts'
import type { SurvivalModel } from '../model/index.ts'

export interface ServerDeps {
  sql: Sql
  model: SurvivalModel
  logger: Logger
  gateway: Gateway
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  })
  res.end(payload)
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } })
}

/** HTTP front door: /graphql goes to the gateway; GET /v1/health until the REST adapter takes /v1. */
export function createHttpServer(deps: ServerDeps): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    if (path === '/graphql') return void deps.gateway(req, res)
    if (path !== '/v1/health') return sendError(res, 404, 'not_found', `No endpoint at ${path}`)
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD')
      return sendError(res, 405, 'method_not_allowed', `${req.method} is not allowed on ${path}`)
    }
    checkHealth({ sql: deps.sql, model: modelInfo(deps.model) }).then(
      (report) => sendJson(res, 200, report),
      (error: unknown) => {
        deps.logger.error({ err: error }, 'health check failed')
        sendError(res, 500, 'internal_error', 'Unexpected server failure')
      },
    )
  })
}
