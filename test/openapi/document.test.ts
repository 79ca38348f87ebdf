import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_CODES, type ErrorCode, errorStatus } from '../../src/domain/errors.ts'
import { ROUTES } from '../../src/rest/routes.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { loadOpenApiDocument, type OpenApiDocument, OpenApiValidator } from './openapi-validator.ts'

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

let document: OpenApiDocument
let validator: OpenApiValidator

beforeAll(() => {
  document = loadOpenApiDocument()
  validator = new OpenApiValidator(document)
})

/** Every `method path` the document describes. */
function documentedOperations(): string[] {
  return Object.entries<Record<string, unknown>>(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  )
}

/** Every error code a schema can carry, with the status it is documented under. */
function documentedErrorCodes(): { code: string; status: number; where: string }[] {
  const found: { code: string; status: number; where: string }[] = []
  const visit = (schema: unknown, status: number, where: string, seen: Set<unknown>): void => {
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return
    seen.add(schema)
    const node = schema as Record<string, unknown>
    if (typeof node.$ref === 'string') {
      visit(validator.resolve(node), status, where, seen)
      return
    }
    const code = (node.properties as Record<string, { const?: unknown }> | undefined)?.code?.const
    if (typeof code === 'string') found.push({ code, status, where })
    for (const value of Object.values(node)) visit(value, status, where, seen)
  }
  const responses: [string, Record<string, unknown>][] = []
  for (const [path, item] of Object.entries<Record<string, { responses?: Record<string, unknown> }>>(
    document.paths,
  )) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        responses.push([`${method} ${path} ${status}`, response as Record<string, unknown>])
      }
    }
  }
  const components = { NotFound: 404, MethodNotAllowed: 405 } as const
  for (const [name, status] of Object.entries(components)) {
    responses.push([`components ${name} ${status}`, document.components.responses[name]])
  }
  for (const [where, response] of responses) {
    const status = Number(where.split(' ').at(-1))
    const resolved = validator.resolve(response)
    if (status < 400) continue
    for (const media of Object.values<{ schema: unknown }>(resolved.content ?? {})) {
      visit(media.schema, status, where, new Set())
    }
  }
  return found
}

describe('the OpenAPI document', () => {
  it('parses as OpenAPI 3.1 and every schema compiles under ajv 2020-12 strict mode', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(document.info.version).toBe('1.0.0')
    expect(Object.keys(document.paths).length).toBeGreaterThan(0)
    expect(validator.compileAll()).toBeGreaterThan(50)
  })

  it('lists exactly the routes the REST router serves, with the same authentication', () => {
    const served = ROUTES.map((route) => `${route.method} ${route.path}`).sort()
    expect(documentedOperations().sort()).toEqual(served)
    for (const route of ROUTES) {
      const operation = document.paths[route.path][route.method.toLowerCase()]
      const security = operation.security ?? document.security
      expect(security.length > 0, `${route.method} ${route.path} security`).toBe(route.authenticated)
    }
    expect(document.components.securitySchemes.ApiKeyAuth).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    })
  })

  it('documents every REST error code under the HTTP status the service gives it', () => {
    const documented = documentedErrorCodes()
    for (const { code, status, where } of documented) {
      expect(errorStatus(code as ErrorCode), `${code} at ${where}`).toBe(status)
    }
    const codes = new Set(documented.map((entry) => entry.code))
    // query_too_complex belongs to GraphQL document limits only: no /v1 response carries it.
    const restCodes = ERROR_CODES.filter((code) => code !== 'query_too_complex')
    expect([...codes].sort()).toEqual(restCodes.sort())
  })

  it('lists every code of the errors module in its error table with the same status, and no other', () => {
    const table = [...String(document.info.description).matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)]
    const listed = table.map(([, code, status]) => ({ code, status: Number(status) }))
    expect(listed.map((entry) => entry.code).sort()).toEqual([...ERROR_CODES].sort())
    for (const { code, status } of listed) expect(errorStatus(code as ErrorCode), code).toBe(status)
  })

  it('documents every operation with an operationId, a 2xx and, for keyed ones, 401/403/429', () => {
    for (const route of ROUTES) {
      const operation = document.paths[route.path][route.method.toLowerCase()]
      expect(operation.operationId).toBeTruthy()
      // One 2xx, besides 204 (DELETE of a finished job), 206 (a range of a job's results) and 202
      // (a calibration still running when POST /v1/models/calibrations answers; 201 when it ended).
      const longRunning = route.method === 'POST' && route.path === '/v1/models/calibrations'
      expect(
        Object.keys(operation.responses).filter(
          (status) =>
            /^2\d\d$/.test(status) && !['204', '206', ...(longRunning ? ['202'] : [])].includes(status),
        ),
      ).toHaveLength(1)
      if (route.authenticated) {
        // A call that is not counted (a job's status, results, cancel) cannot meet the daily quota.
        const statuses =
          'counted' in route && route.counted === false
            ? ['401', '403', '500', '503']
            : ['401', '403', '429', '500', '503']
        for (const status of statuses) {
          expect(operation.responses[status], `${route.method} ${route.path} ${status}`).toBeDefined()
        }
      }
      if (route.method === 'POST') {
        // 422 belongs to the prediction endpoints: their inputs can be well-formed yet unanswerable.
        const statuses = route.path.startsWith('/v1/predict')
          ? ['400', '413', '415', '422']
          : ['400', '413', '415']
        for (const status of statuses) {
          expect(operation.responses[status], `${route.method} ${route.path} ${status}`).toBeDefined()
        }
      }
    }
  })
})

describe('the response validator', () => {
  const headers = (entries: Record<string, string>) =>
    new Headers({ 'content-type': 'application/json; charset=utf-8', ...entries })
  const methods = { methods: [{ id: 'manual', name: 'Hand planting', description: 'By crews' }] }
  const keyed = { 'request-id': 'abc', 'x-ratelimit-limit': '100', 'x-ratelimit-reset': '1700006400' }

  it('accepts a conforming response', () => {
    expect(
      validator.check('GET', '/v1/methods', { status: 200, headers: headers(keyed), body: methods }),
    ).toEqual([])
  })

  it('catches drift: extra fields, wrong values, undocumented statuses and headers, bad header values', () => {
    const check = (status: number, entries: Record<string, string>, body: unknown) =>
      validator.check('GET', '/v1/methods', { status, headers: headers(entries), body })
    expect(check(200, keyed, { ...methods, count: 1 })).not.toEqual([])
    expect(check(200, keyed, { methods: [{ ...methods.methods[0], id: 'helicopter' }] })).not.toEqual([])
    expect(check(200, { 'x-ratelimit-limit': '100' }, methods)).not.toEqual([])
    expect(check(200, { ...keyed, 'retry-after': '5' }, methods)).not.toEqual([])
    expect(check(200, { ...keyed, ratelimit: 'r=5' }, methods)).not.toEqual([])
    expect(check(404, keyed, { error: { code: 'not_found', message: 'x' } })).not.toEqual([])
    const unauthorized = { error: { code: 'invalid_api_key', message: 'x' } }
    expect(check(401, { 'request-id': 'abc' }, unauthorized)).toEqual([])
    expect(check(401, keyed, unauthorized)).not.toEqual([])
    expect(check(401, { 'request-id': 'abc' }, { ...unauthorized, detail: 1 })).not.toEqual([])
  })
})

describe('GET /v1/openapi.json', () => {
  let db: TestDatabase
  let server: TestServer

  beforeAll(async () => {
    db = await createSeededDatabase()
    server = await startTestServer({ database: db })
  })

  afterAll(async () => {
    await server?.close()
    await db?.drop()
  })

  it('serves schema/openapi.yaml as JSON, without a key, conforming to its own description', async () => {
    const response = await fetch(`${server.url}/v1/openapi.json`)
    const body = await response.json()
    expect(response.status).toBe(200)
    expect(body).toEqual(document)
    expect(
      validator.check('GET', '/v1/openapi.json', { status: 200, headers: response.headers, body }),
    ).toEqual([])
  })
})
