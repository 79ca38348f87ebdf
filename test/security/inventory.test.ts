import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROUTES } from '../../src/rest/routes.ts'
import { loadOpenApiDocument } from '../openapi/openapi-validator.ts'
import type { TestDatabase } from '../support/database.ts'
import { type MailCatcher, mailEnv, startMailCatcher } from '../support/mail-catcher.ts'
import { createMigratedDatabase, type RawResponse, type RunningApp, raw, startApp } from './support.ts'

/**
 * OWASP API9, improper inventory management: schema/openapi.yaml is the inventory of the HTTP API. Every
 * operation it documents is served, and nothing it does not document answers (no route of the router's
 * table, no other path), whatever the method or however the path is spelled.
 * (test/openapi/document.test.ts compares the router's table with the document statically; these
 * tests ask the running server, front door included.) Besides /v1 and /keys the front door serves only
 * /graphql (described by schema/schema.graphql), /metrics, the page a mailed roll link opens
 * (/keys/roll, while self-service keys are on: test/security/function-level-authorization.test.ts) and,
 * when switched on, the explorer page.
 */
const OTHER_SURFACES = ['/graphql', '/metrics', '/keys/roll']

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

let db: TestDatabase
let running: RunningApp
let mail: MailCatcher
/** Documented path templates with their methods (HEAD wherever GET is: HTTP gives it). */
const documented = new Map<string, { pattern: RegExp; methods: Set<string> }>()

beforeAll(async () => {
  mail = await startMailCatcher()
  db = await createMigratedDatabase()
  // The explorer is a page, not an API: off here, as EXPLORER=false leaves it (test/explorer covers it).
  // Self-service keys on (SMTP_URL), as in production: POST /keys is served.
  running = await startApp({ database: db, env: mailEnv(mail) })
  const document = loadOpenApiDocument()
  for (const [path, item] of Object.entries<Record<string, unknown>>(document.paths)) {
    const methods = new Set(
      Object.keys(item)
        .filter((key) => METHODS.includes(key.toUpperCase()))
        .map((key) => key.toUpperCase()),
    )
    if (methods.has('GET')) methods.add('HEAD')
    documented.set(path, { pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`), methods })
  }
})

afterAll(async () => {
  await running?.close()
  await db?.drop()
  await mail?.close()
})

/** The documented path a request path stands for, as the server reads it (dot segments, trailing slashes). */
function documentedPath(rawPath: string): string | undefined {
  const pathname = new URL(rawPath, 'http://localhost').pathname.replace(/\/+$/, '') || '/'
  for (const [path, { pattern }] of documented) if (pattern.test(pathname)) return path
  return undefined
}

const jobId = () => `job_${randomBytes(12).toString('hex')}`
const concrete = (template: string) => template.replace('{id}', jobId())

/** Without a key: nothing is changed (no rotation), and a keyed route still shows itself by its 401. */
async function ask(method: string, path: string): Promise<RawResponse> {
  const body = ['POST', 'PUT', 'PATCH'].includes(method) ? ['{}'] : []
  return raw(running.url, method, path, body.length ? { 'content-type': 'application/json' } : {}, body)
}

/** Is this the router's own "no such endpoint" (not a job that is not there)? */
const routerNotFound = (response: RawResponse) =>
  response.status === 404 && (response.text === '' || /No endpoint at/.test(response.text))

describe('API9: the OpenAPI document is the inventory of the HTTP API', () => {
  it('every documented operation is served', async () => {
    expect(documented.size).toBeGreaterThan(10)
    for (const [template, { methods }] of documented) {
      for (const method of methods) {
        const response = await ask(method, concrete(template))
        expect(routerNotFound(response), `${method} ${template}: ${response.text}`).toBe(false)
        expect(response.status, `${method} ${template}`).not.toBe(405)
      }
    }
  })

  it('nothing undocumented answers: any method, any spelling of a path', async () => {
    const paths = new Set<string>([
      '/',
      '/v1',
      '/v1/',
      '/v2/predict',
      '/api/v1/predict',
      '/V1/predict',
      '/v1/PREDICT',
      '/v1//predict',
      '/v1/predict.json',
      '/v1/predict;jsessionid=1',
      '/v1/%70redict',
      '/v1/predict%2fbatch',
      '/v1/predict/single',
      '/v1/predict/../health',
      '/v1/keys',
      '/v1/keys/usage',
      '/keys/rotate',
      '/keys/',
      '/keys/roll',
      '/keys/roll/',
      '/keys/roll/x',
      '/keys/rollx',
      '/KEYS/ROLL',
      '/v1/openapi.yaml',
      '/openapi.json',
      '/docs',
      '/swagger.json',
      '/v1/graphql',
      '/graphiql',
      '/graphql/',
      '/metrics/',
      '/health',
      '/status',
      '/debug',
      '/.env',
      '/explorer',
      '/explorer/assets/index.js',
      `/v1/jobs/${jobId()}/cancel`,
      `/v1/jobs/${jobId()}/results/1`,
      '/v1/jobs/',
    ])
    // Every path the REST router has a route for, and every documented one, in several spellings.
    for (const template of new Set([...documented.keys(), ...ROUTES.map((route) => route.path)])) {
      const path = concrete(template)
      for (const variant of [path, `${path}/`, `${path}/x`, `${path}x`, path.toUpperCase()])
        paths.add(variant)
    }
    const requests = [...paths].flatMap((path) => METHODS.map((method) => [method, path] as const))
    expect(requests.length).toBeGreaterThan(300)
    const problems: string[] = []
    for (let start = 0; start < requests.length; start += 16) {
      const batch = requests.slice(start, start + 16)
      const answers = await Promise.all(batch.map(([method, path]) => ask(method, path)))
      answers.forEach((response, index) => {
        const [method, path] = batch[index] as (typeof batch)[number]
        if (OTHER_SURFACES.includes(path)) return
        const template = documentedPath(path)
        const operation = template ? documented.get(template) : undefined
        if (routerNotFound(response)) return
        if (response.status === 405) {
          const allow = new Set(String(response.headers.allow ?? '').split(/,\s*/))
          if (
            !operation ||
            operation.methods.has(method) ||
            [...allow].sort().join() !== [...operation.methods].sort().join()
          )
            problems.push(`${method} ${path} → 405 Allow: ${response.headers.allow}`)
          return
        }
        if (!operation?.methods.has(method))
          problems.push(`${method} ${path} → ${response.status} ${response.text.slice(0, 100)}`)
      })
    }
    expect(problems).toEqual([])
  })
})
