import { readFileSync } from 'node:fs'
import type { ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import formatsPlugin from 'ajv-formats'
import { parse } from 'yaml'

/** schema/openapi.yaml, parsed; tests read into it freely. */
// biome-ignore lint/suspicious/noExplicitAny: the document is walked generically
export type OpenApiDocument = Record<string, any>
// biome-ignore lint/suspicious/noExplicitAny: OpenAPI objects are walked generically
type Node = Record<string, any>

export const OPENAPI_PATH = new URL('../../schema/openapi.yaml', import.meta.url)

export function loadOpenApiDocument(): OpenApiDocument {
  return parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenApiDocument
}

/** Response headers the API itself sets; any of them present must be documented for that response. */
const API_HEADERS = [
  'request-id',
  'ratelimit-policy',
  'ratelimit',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-used',
  'x-ratelimit-reset',
  'retry-after',
  'allow',
]

const SCHEMA_ID = 'urn:survival-api:openapi'
const SCHEMA_REF = /^#\/components\/schemas\//

/** A copy of a schema with `#/components/schemas/X` refs pointing at the registered `$defs`. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string' && SCHEMA_REF.test(inner)
          ? inner.replace(SCHEMA_REF, `${SCHEMA_ID}#/$defs/`)
          : rewriteRefs(inner),
      ]),
    )
  }
  return value
}

export interface ObservedResponse {
  status: number
  headers: Headers
  body: unknown
}

export interface CheckOptions {
  /** Check the body against its schema (default); off for HEAD, which has none. */
  withBody?: boolean
}

/**
 * Checks real responses against the document: status documented for the operation, media type,
 * body against the JSON Schema (draft 2020-12), required headers present, present headers valid,
 * and no API header the document does not list for that response.
 */
export class OpenApiValidator {
  private readonly ajv: Ajv2020
  private readonly compiled = new Map<unknown, ValidateFunction>()

  constructor(readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true })
    // ajv-formats is CommonJS: its plugin is the module's `default` export under NodeNext interop.
    formatsPlugin.default(this.ajv)
    this.ajv.addSchema({ $id: SCHEMA_ID, $defs: rewriteRefs(document.components?.schemas ?? {}) })
  }

  /** Compiles every schema the document uses (fails on any schema ajv rejects in strict mode). */
  compileAll(): number {
    let count = 0
    for (const name of Object.keys(this.document.components?.schemas ?? {})) {
      this.ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`)
      count++
    }
    for (const pathItem of Object.values<Node>(this.document.paths)) {
      for (const operation of Object.values<Node>(pathItem)) {
        for (const response of Object.values<Node>(operation.responses ?? {})) {
          const resolved = this.resolve(response)
          for (const media of Object.values<Node>(resolved.content ?? {})) {
            this.schemaValidator(media.schema)
            count++
          }
          for (const header of Object.values<Node>(resolved.headers ?? {})) {
            this.schemaValidator(this.resolve(header).schema)
            count++
          }
        }
        const body = operation.requestBody?.content?.['application/json']?.schema
        if (body) this.schemaValidator(body)
      }
    }
    return count
  }

  /** Resolves a local `$ref` (one level, or a chain of them). */
  resolve(node: Node): Node {
    let current = node
    while (typeof current.$ref === 'string') {
      const ref: string = current.$ref
      if (!ref.startsWith('#/')) throw new Error(`only local refs are supported: ${ref}`)
      current = ref
        .slice(2)
        .split('/')
        .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
        .reduce<Node>((at, part) => {
          const next = at?.[part]
          if (next === undefined) throw new Error(`unresolved ref ${ref}`)
          return next
        }, this.document)
    }
    return current
  }

  schemaValidator(schema: unknown): ValidateFunction {
    let validate = this.compiled.get(schema)
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as object)
      this.compiled.set(schema, validate)
    }
    return validate
  }

  /** The documented response object for an operation and status. */
  responseFor(method: string, path: string, status: number): Node {
    const operation = this.document.paths?.[path]?.[method.toLowerCase()]
    if (!operation) throw new Error(`${method} ${path} is not in the document`)
    const response = operation.responses?.[String(status)]
    if (!response) throw new Error(`${method} ${path} does not document status ${status}`)
    return this.resolve(response)
  }

  /** Problems of a real response against an operation's documented response (empty = conforms). */
  check(method: string, path: string, observed: ObservedResponse, options: CheckOptions = {}): string[] {
    let response: Node
    try {
      response = this.responseFor(method, path, observed.status)
    } catch (error) {
      return [(error as Error).message]
    }
    return this.checkAgainst(response, observed, options)
  }

  /**
   * Problems of the response to any request a client sent (`target` may carry a query string): the
   * documented response of its operation, `NotFound` for a path the document does not have, and
   * `MethodNotAllowed` for a method its path does not serve. `HEAD` is answered as `GET` without a
   * body, so only its status, media type and headers are checked.
   */
  checkExchange(
    method: string,
    target: string,
    observed: ObservedResponse,
    options: Omit<CheckOptions, 'withBody'> = {},
  ): string[] {
    const path = this.documentedPath(new URL(target, 'http://api.invalid').pathname)
    const pathItem = this.document.paths?.[path] as Node | undefined
    if (!pathItem) {
      return observed.status === 404
        ? this.checkComponent('NotFound', observed, options)
        : [`${path} is not in the document, yet the answer was ${observed.status} rather than 404`]
    }
    const head = method.toUpperCase() === 'HEAD'
    const operationMethod = head ? 'get' : method.toLowerCase()
    if (!pathItem[operationMethod]) {
      return observed.status === 405
        ? this.checkComponent('MethodNotAllowed', observed, options)
        : [`${method} ${path} is not in the document, yet the answer was ${observed.status} rather than 405`]
    }
    return this.check(operationMethod, path, observed, { ...options, withBody: !head })
  }

  /** The document's path for a request path: itself, or the template it fills (`/v1/jobs/{id}`). */
  documentedPath(path: string): string {
    const paths = Object.keys(this.document.paths ?? {})
    if (paths.includes(path)) return path
    const template = paths.find((candidate) =>
      new RegExp(`^${candidate.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
    )
    return template ?? path
  }

  /** Problems of a real response against a `components/responses` entry (404/405 have no operation). */
  checkComponent(name: string, observed: ObservedResponse, options: CheckOptions = {}): string[] {
    const response = this.document.components?.responses?.[name]
    if (!response) return [`no component response ${name}`]
    return this.checkAgainst(this.resolve(response), observed, options)
  }

  private checkAgainst(
    response: Node,
    observed: ObservedResponse,
    { withBody = true }: CheckOptions,
  ): string[] {
    const problems: string[] = []
    const contentType = observed.headers.get('content-type') ?? ''
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
    const media = response.content?.[mediaType]
    if (!response.content && !contentType) {
      // A response documented without content (204) and sent without one.
    } else if (!media) {
      problems.push(
        `content-type ${contentType} is not documented (${Object.keys(response.content ?? {}).join(', ')})`,
      )
    } else if (withBody && /^application\/([\w.+-]+\+)?json$/.test(mediaType)) {
      // JSON bodies are checked field by field; text bodies (CSV, NDJSON) only by their media type.
      const validate = this.schemaValidator(media.schema)
      if (!validate(observed.body)) {
        problems.push(
          ...(validate.errors ?? []).map(
            (e) => `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
          ),
        )
      }
    }
    const documented = new Map<string, Node>(
      Object.entries<Node>(response.headers ?? {}).map(([name, header]) => [
        name.toLowerCase(),
        this.resolve(header),
      ]),
    )
    for (const [name, header] of documented) {
      const value = observed.headers.get(name)
      if (value === null) {
        if (header.required) problems.push(`header ${name} is required but missing`)
        continue
      }
      const schema = header.schema as Node
      const candidate = schema?.type === 'integer' && /^-?[0-9]+$/.test(value) ? Number(value) : value
      const validate = this.schemaValidator(schema)
      if (!validate(candidate)) {
        problems.push(`header ${name}: ${JSON.stringify(value)} ${validate.errors?.[0]?.message ?? ''}`)
      }
    }
    for (const name of API_HEADERS) {
      if (observed.headers.has(name) && !documented.has(name)) {
        problems.push(`header ${name} is sent but not documented for this response`)
      }
    }
    return problems
  }
}
