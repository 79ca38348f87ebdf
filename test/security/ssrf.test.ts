import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isInputObjectType } from 'graphql'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { schema } from '../../src/graphql/schema/schema.ts'
import * as requestSchemas from '../../src/rest/request-schemas.ts'
import { ROOT, sourceFiles } from './support.ts'

/**
 * OWASP API7, server-side request forgery: the service never fetches a URL a caller supplies. It has
 * no HTTP client at all; its only outbound connections are to PostgreSQL and Redis, at addresses read
 * from the environment at start-up (src/config/config.ts). These tests read the server's code.
 */

/** The server's modules: everything under src/ but the explorer's browser code (it runs in the browser). */
const SERVER_MODULES = sourceFiles().filter(({ path }) => !path.startsWith('src/explorer/page/'))

/** Modules that would open connections of their own, and the only names of them that do not. */
const NETWORK_MODULES: Record<string, readonly string[]> = {
  http: [
    'createServer',
    'IncomingMessage',
    'ServerResponse',
    'Server',
    'IncomingHttpHeaders',
    'OutgoingHttpHeaders',
  ],
  https: [],
  http2: [],
  net: ['isIP', 'isIPv4', 'isIPv6', 'AddressInfo'],
  tls: [],
  dgram: [],
  dns: [],
  undici: [],
  axios: [],
  got: [],
  'node-fetch': [],
  'openapi-fetch': [],
  ws: [],
}

/** The database and Redis clients, and the modules allowed to hold one (each given its URL by config). */
const STORE_CLIENTS = ['postgres', 'ioredis', 'bullmq', '@electric-sql/pglite-socket']
const STORE_MODULES = [
  'src/db/connect.ts',
  'src/db/embedded.ts',
  'src/db/notifications.ts',
  'src/queue/bullmq-chunk-queue.ts',
  // A single Redis or a Redis Cluster (REDIS_URL, REDIS_CLUSTER_NODES), for the quota store and the queue.
  'src/redis/connection.ts',
]

interface Finding {
  path: string
  what: string
}

/** Imports of network modules (and the names taken from them), and calls of the global fetch. */
function outboundUses(path: string, text: string): Finding[] {
  const found: Finding[] = []
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const visit = (node: ts.Node) => {
    // `import type` is erased at compile time: it brings no client into the running server.
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      !node.importClause?.isTypeOnly
    ) {
      const module = node.moduleSpecifier.text.replace(/^node:/, '')
      const allowed = NETWORK_MODULES[module]
      if (allowed) {
        const bindings = node.importClause?.namedBindings
        const names =
          bindings && ts.isNamedImports(bindings)
            ? bindings.elements.map((e) => (e.propertyName ?? e.name).text)
            : []
        const whole = !!node.importClause?.name || (bindings && ts.isNamespaceImport(bindings))
        for (const name of whole ? ['*'] : names)
          if (!allowed.includes(name)) found.push({ path, what: `import ${name} from ${module}` })
      }
      if (STORE_CLIENTS.includes(module)) found.push({ path, what: `store client ${module}` })
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression
      const globalFetch =
        (ts.isIdentifier(callee) && callee.text === 'fetch') ||
        (ts.isPropertyAccessExpression(callee) &&
          callee.name.text === 'fetch' &&
          ts.isIdentifier(callee.expression) &&
          ['globalThis', 'global', 'window'].includes(callee.expression.text))
      if (globalFetch) found.push({ path, what: 'fetch()' })
      if (ts.isIdentifier(callee) && callee.text === 'require') found.push({ path, what: 'require()' })
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [target] = node.arguments
      const module = target && ts.isStringLiteral(target) ? target.text.replace(/^node:/, '') : '(computed)'
      if (NETWORK_MODULES[module] || STORE_CLIENTS.includes(module) || module === '(computed)')
        found.push({ path, what: `import(${module})` })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('API7: the service fetches nothing a caller names', () => {
  it('no server module imports an HTTP client or calls fetch(); only the store modules hold network clients', () => {
    expect(SERVER_MODULES.length).toBeGreaterThan(50)
    const findings = SERVER_MODULES.flatMap(({ path, text }) => outboundUses(path, text))
    const stores = findings.filter((f) => f.what.startsWith('store client'))
    expect(findings.filter((f) => !f.what.startsWith('store client'))).toEqual([])
    expect([...new Set(stores.map((f) => f.path))].sort()).toEqual(STORE_MODULES)
  })

  it('the check itself finds a fetch, an http.request and a computed import', () => {
    const probe = `
      import { request } from 'node:http'
      import * as https from 'node:https'
      export async function get(url: string) {
        await fetch(url)
        await globalThis.fetch(url)
        await import(url)
        request(url)
      }`
    expect(outboundUses('probe.ts', probe).map((f) => f.what)).toEqual([
      'import request from http',
      'import * from https',
      'fetch()',
      'fetch()',
      'import((computed))',
    ])
  })

  it('the store clients are given their addresses by the environment configuration only', () => {
    const config = readFileSync(join(ROOT, 'src/config/config.ts'), 'utf8')
    for (const variable of ['DATABASE_URL', 'REDIS_URL']) expect(config).toContain(`${variable}:`)
    // No request schema or GraphQL input has a field that could carry a URL or a host.
    const URLISH = /url|uri|href|link|host|callback|webhook|endpoint|address/i
    const restFields = Object.values(requestSchemas).flatMap((value) =>
      value && typeof value === 'object' && 'shape' in value
        ? Object.keys((value as { shape: object }).shape)
        : [],
    )
    expect(restFields.length).toBeGreaterThan(10)
    expect(restFields.filter((field) => URLISH.test(field))).toEqual([])
    const inputFields = Object.values(schema.getTypeMap())
      .filter(isInputObjectType)
      .flatMap((type) => Object.keys(type.getFields()))
    const argumentNames = [schema.getQueryType(), schema.getMutationType()].flatMap((root) =>
      Object.values(root?.getFields() ?? {}).flatMap((field) => field.args.map((arg) => arg.name)),
    )
    expect([...inputFields, ...argumentNames].filter((name) => URLISH.test(name))).toEqual([])
  })
})
