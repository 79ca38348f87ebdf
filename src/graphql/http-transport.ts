import type { IncomingMessage, ServerResponse } from 'node:http'
import { type ExecutionResult, GraphQLError, getOperationAST } from 'graphql'
import { processRegularResult } from 'graphql-yoga'
import { ApiError, apiError } from '../domain/errors.ts'
import { MAX_BODY_BYTES, readBodyBytes } from '../http-body/body.ts'
import { SerializedJson, sendJson } from '../http-body/json.ts'
import type { Logger } from '../logging/logger.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { toGraphQLError } from './schema/errors.ts'
import type { Gateway, GatewayServerContext } from './yoga.ts'

const GRAPHQL_PARAMS = new Set(['query', 'variables', 'operationName', 'extensions'])

type RegularMediaType = 'application/graphql-response+json' | 'application/json'

interface GraphQLParams {
  query: string
  variables?: Record<string, unknown> | null
  operationName?: string | null
  extensions?: Record<string, unknown> | null
}

/** Yoga's result processor builds a Response; this stand-in only keeps what we write to Node. */
class PlainResponse {
  readonly status: number
  readonly headers: Record<string, string>
  constructor(
    readonly body: string | null,
    init: { status?: number; headers?: Record<string, string> },
  ) {
    this.status = init.status ?? 200
    this.headers = init.headers ?? {}
  }
}
const plainFetchApi = { Response: PlainResponse } as unknown as Parameters<typeof processRegularResult>[1]

/** Yoga's content-type test for JSON bodies (first entry of a list, parameters allowed). */
function isJsonBody(contentType: string | undefined): boolean {
  const first = contentType?.split(',')[0]
  return first === 'application/json' || !!first?.startsWith('application/json;')
}

/**
 * The media type yoga's negotiation would answer with for a non-streamed result, or undefined when it
 * would choose something else (406). Entries are walked last to first, so the first acceptable
 * entry of the Accept header wins, and `*` matches the later of the two JSON types.
 */
export function negotiateMediaType(accept: string | undefined): RegularMediaType | undefined {
  const key = accept ?? ''
  if (negotiated.has(key)) return negotiated.get(key)
  const chosen = negotiate(accept)
  // Clients send a handful of distinct Accept headers; a bounded memo keeps a flood of odd ones cheap.
  if (negotiated.size >= 256) negotiated.clear()
  negotiated.set(key, chosen)
  return chosen
}

const negotiated = new Map<string, RegularMediaType | undefined>()

function negotiate(accept: string | undefined): RegularMediaType | undefined {
  let chosen: RegularMediaType | undefined
  const entries = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',').reverse()
  for (const entry of entries) {
    const [mediaType = '', ...params] = entry.split(';')
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8'
    if (charset !== 'charset=utf-8') continue
    const [type, subtype] = mediaType.split('/')
    for (const candidate of ['application/graphql-response+json', 'application/json'] as const) {
      const [candidateType, candidateSubtype] = candidate.split('/')
      if ((type === '*' || type === candidateType) && (subtype === '*' || subtype === candidateSubtype))
        chosen = candidate
    }
  }
  return chosen
}

/** Writes a result as yoga's own result processor shapes it (status and headers from `extensions.http`). */
function writeResult(
  res: ServerResponse,
  result: ExecutionResult,
  mediaType: RegularMediaType,
  requestContext: RequestContext,
): void {
  const response = processRegularResult(result, plainFetchApi, mediaType) as unknown as PlainResponse
  const { 'Content-Type': contentType, ...headers } = response.headers
  headers['request-id'] = requestContext.requestId
  // With its Content-Length, as yoga's own answer has, rather than chunked.
  sendJson(res, response.status, new SerializedJson(response.body ?? ''), headers, contentType)
}

/**
 * Yoga marks a syntax error as a 400 request error in a parse hook that needs a Fetch Request in the
 * context, which this path does not build. Its parse cache then hands the same error object to the
 * yoga fallback, so mark it here exactly as yoga would.
 */
function markAsParseFailure(error: unknown): void {
  if (!(error instanceof GraphQLError)) return
  const extensions = error.extensions as Record<string, unknown> & {
    http?: { spec?: boolean; status?: number }
  }
  extensions.code ??= 'GRAPHQL_PARSE_FAILED'
  extensions.http ??= {}
  extensions.http.spec ??= true
  extensions.http.status ??= 400
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isOptionalObject(value: unknown): value is Record<string, unknown> | null | undefined {
  return value == null || isPlainObject(value)
}

/** A single, well-formed request; anything yoga would reject or treat specially returns undefined. */
function asGraphQLParams(body: unknown): GraphQLParams | undefined {
  if (!isPlainObject(body)) return undefined
  for (const key in body) if (body[key] != null && !GRAPHQL_PARAMS.has(key)) return undefined
  const { query, variables, operationName, extensions } = body
  if (typeof query !== 'string') return undefined
  if (!isOptionalObject(variables) || !isOptionalObject(extensions)) return undefined
  if (operationName != null && typeof operationName !== 'string') return undefined
  return { query, variables, operationName, extensions }
}

/**
 * POST /graphql with a JSON body — what dashboards, scripts and GraphiQL send — runs straight through
 * the gateway's envelop pipeline (the same plugins: limits, auth, quota, cost, error shaping),
 * without the Fetch-API bridge (Request, AbortSignal, streams and Response per request), which cost
 * more CPU than the prediction itself. Status and body come from yoga's own result processor.
 * Everything else, and any request that fails to parse or validate, is handed to yoga unchanged, so the
 * GraphQL-over-HTTP behaviour stays yoga's (test/graphql/http-transport.test.ts compares the two).
 */
export function createGraphQLHttpHandler(gateway: Gateway, logger: Logger) {
  async function viaYoga(
    req: IncomingMessage,
    res: ServerResponse,
    requestContext: RequestContext,
    body?: Buffer,
  ): Promise<void> {
    if (!body) return void (await gateway(req, res, { requestContext }))
    const headers: [string, string][] = []
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      headers.push([req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string])
    // A Node Buffer is a Uint8Array; TypeScript's BodyInit only wants it backed by a plain ArrayBuffer.
    const init: RequestInit = { method: req.method, headers, body: body as Uint8Array<ArrayBuffer> }
    const serverContext: GatewayServerContext = { req, requestContext }
    const response = await gateway.fetch(`http://localhost${req.url ?? '/'}`, init, serverContext)
    res.writeHead(response.status, Object.fromEntries(response.headers))
    res.end(Buffer.from(await response.arrayBuffer()))
  }

  async function execute(
    req: IncomingMessage,
    res: ServerResponse,
    requestContext: RequestContext,
    params: GraphQLParams,
    mediaType: RegularMediaType,
  ): Promise<boolean> {
    const enveloped = gateway.getEnveloped({ req, res, requestContext, params })
    let document: ReturnType<typeof enveloped.parse>
    try {
      document = enveloped.parse(params.query)
      if (enveloped.validate(enveloped.schema, document).length > 0) return false
    } catch (error) {
      markAsParseFailure(error)
      return false
    }
    const operation = getOperationAST(document, params.operationName)
    if (!operation || operation.operation === 'subscription') return false
    let result: ExecutionResult
    try {
      const contextValue = await enveloped.contextFactory()
      result = (await enveloped.execute({
        schema: enveloped.schema,
        document,
        contextValue,
        variableValues: params.variables,
        operationName: params.operationName,
      })) as ExecutionResult
    } catch (error) {
      // The executor reports resolver failures in the result; reaching here is a bug, never a leak.
      logger.error({ err: error, requestId: requestContext.requestId }, 'graphql execution threw')
      result = { errors: [toGraphQLError(apiError('internal_error'))] }
    }
    writeResult(res, result, mediaType, requestContext)
    return true
  }

  async function handle(req: IncomingMessage, res: ServerResponse, requestContext: RequestContext) {
    const headers = req.headers
    const length = Number(headers['content-length'])
    const mediaType = negotiateMediaType(headers.accept)
    const fastPath =
      req.method === 'POST' &&
      isJsonBody(headers['content-type']) &&
      mediaType !== undefined &&
      headers.origin === undefined &&
      headers['content-encoding'] === undefined &&
      headers['transfer-encoding'] === undefined &&
      Number.isInteger(length) &&
      length > 0 &&
      length <= MAX_BODY_BYTES
    // Yoga streams any other body itself, except a POST body that may pass the limit (declared so, or
    // chunked): that one is read, or refused, here as on /v1, and yoga is handed what was read.
    const mayPassLimit = length > MAX_BODY_BYTES || headers['transfer-encoding'] !== undefined
    if (!fastPath && (req.method !== 'POST' || !mayPassLimit)) return viaYoga(req, res, requestContext)
    let body: Buffer
    try {
      body = await readBodyBytes(req, MAX_BODY_BYTES)
    } catch (error) {
      // Over the limit: 413 as GraphQL errors. Otherwise the client is gone and nobody is left to answer.
      if (!(error instanceof ApiError)) return
      requestContext.errorCode = error.code
      return writeResult(
        res,
        { errors: [toGraphQLError(error)] },
        mediaType ?? 'application/json',
        requestContext,
      )
    }
    if (!fastPath) return viaYoga(req, res, requestContext, body)
    let params: GraphQLParams | undefined
    try {
      params = asGraphQLParams(JSON.parse(body.toString('utf8')))
    } catch {
      params = undefined
    }
    if (params && (await execute(req, res, requestContext, params, mediaType))) return
    return viaYoga(req, res, requestContext, body)
  }

  return function handleGraphQL(
    req: IncomingMessage,
    res: ServerResponse,
    _url: URL,
    requestContext: RequestContext,
  ): void {
    handle(req, res, requestContext).catch((error: unknown) => {
      logger.error({ err: error, requestId: requestContext.requestId }, 'graphql transport failed')
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
      res.end()
    })
  }
}
