import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, type IssuedKey } from '../../src/db/keys.ts'
import { schema } from '../../src/graphql/schema/schema.ts'
import { ROUTES } from '../../src/rest/routes.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { createMigratedDatabase, ROOT, type RunningApp, raw, SRC, startApp } from './support.ts'

/**
 * OWASP API5, broken function level authorization. The operator's key actions (create a key of any
 * tier, activate, deactivate, revoke, list) exist only in the keys CLI, which talks to PostgreSQL
 * directly: the HTTP server has no route, GraphQL field or module that could perform them.
 */

/** Every route the REST router serves. A new one must be added here, after asking who may call it. */
const SERVED = [
  'DELETE /v1/jobs/{id}',
  'GET /v1/audit',
  'GET /v1/climate',
  'GET /v1/coverage',
  'GET /v1/health',
  'GET /v1/health/live',
  'GET /v1/jobs/{id}',
  'GET /v1/jobs/{id}/results',
  'GET /v1/methods',
  'GET /v1/openapi.json',
  'GET /v1/species',
  'GET /v1/usage',
  'POST /keys',
  'POST /v1/jobs',
  'POST /v1/keys/rotate',
  'POST /v1/plans/stocking',
  'POST /v1/predict',
  'POST /v1/predict/batch',
  'POST /v1/predict/compare',
  'POST /v1/predict/rank',
]

/** Words that name an operator action or an operator's view of keys. */
const OPERATOR_WORDS = /\b(admin|activate|deactivate|revoke|list|create|tiers?|status|keys\/\{)/i

/** The key functions of src/db/keys.ts that only an operator may run. */
const OPERATOR_FUNCTIONS = ['createKey', 'setKeyStatus', 'listKeys']

/** Every module src/wiring/app.ts (the HTTP server's composition) reaches through static or dynamic imports. */
function serverModules(): string[] {
  const found = new Set<string>()
  const pending = [join(SRC, 'wiring/app.ts')]
  while (pending.length > 0) {
    const file = pending.pop() as string
    if (found.has(file)) continue
    found.add(file)
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = resolve(dirname(file), match[1] as string)
      if (target.startsWith(SRC) && existsSync(target)) pending.push(target)
    }
  }
  return [...found].map((file) => relative(ROOT, file)).sort()
}

describe('API5: what the HTTP server routes', () => {
  it('the REST router serves exactly the known routes, none of them an operator action', () => {
    const routes = ROUTES.map((route) => `${route.method} ${route.path}`).sort()
    expect(routes).toEqual(SERVED)
    expect(routes.filter((route) => OPERATOR_WORDS.test(route))).toEqual([])
    // The only key routes: a spore key for anyone, and the caller rolling its own key.
    expect(routes.filter((route) => /keys/.test(route))).toEqual(['POST /keys', 'POST /v1/keys/rotate'])
  })

  it('GraphQL has no mutation or subscription root: every field only reads', () => {
    expect(schema.getMutationType()).toBeFalsy()
    expect(schema.getSubscriptionType()).toBeFalsy()
    const fields = Object.keys(schema.getQueryType()?.getFields() ?? {}).sort()
    expect(fields).toEqual([
      'climateScenarios',
      'compareMethods',
      'coverage',
      'health',
      'model',
      'modelFactors',
      'plantingMethods',
      'predict',
      'predictBatch',
      'species',
      'speciesRanking',
      'stockingPlan',
      'survivalMap',
      'viewer',
    ])
  })

  it('no module of the HTTP server imports an operator key function; only the keys CLI does', () => {
    const modules = serverModules()
    expect(modules).toContain('src/rest/routes.ts')
    expect(modules).toContain('src/graphql/yoga.ts')
    expect(modules).not.toContain('src/cli/keys.ts')
    const users = modules.filter((module) => {
      if (module === 'src/db/keys.ts') return false
      const text = readFileSync(join(ROOT, module), 'utf8')
      return OPERATOR_FUNCTIONS.some((name) => new RegExp(`\\b${name}\\b`).test(text))
    })
    expect(users).toEqual([])
    const cli = readFileSync(join(SRC, 'cli/keys.ts'), 'utf8')
    for (const name of OPERATOR_FUNCTIONS) expect(cli).toMatch(new RegExp(`\\b${name}\\b`))
  })
})

describe('API5: operator actions over HTTP find nothing', () => {
  let db: TestDatabase
  let running: RunningApp
  let hypha: IssuedKey
  let other: IssuedKey

  beforeAll(async () => {
    db = await createMigratedDatabase()
    running = await startApp({ database: db, keyCacheMs: 0 })
    hypha = await issueKey(db, 'hypha')
    other = await createKey(db.sql, { tier: 'spore', status: 'inactive' })
  })

  afterAll(async () => {
    await running?.close()
    await db?.drop()
  })

  const keyTable = () =>
    db.sql`SELECT id, tier, status, expires_at, rotated_to FROM api_keys ORDER BY id`.then((rows) => [
      ...rows,
    ])

  it('creating, listing, (de)activating and revoking keys by any plausible route answers 404 or 405 and changes nothing', async () => {
    const before = await keyTable()
    const id = other.id
    const attempts: [string, string, unknown?][] = [
      ['GET', '/keys'],
      ['GET', '/v1/keys'],
      ['POST', '/v1/keys', { tier: 'hypha', name: 'mine now' }],
      ['GET', `/v1/keys/${id}`],
      ['PATCH', `/v1/keys/${id}`, { status: 'active' }],
      ['PUT', `/v1/keys/${id}`, { status: 'active', tier: 'hypha' }],
      ['DELETE', `/v1/keys/${id}`],
      ['POST', `/v1/keys/${id}/activate`],
      ['POST', `/v1/keys/${id}/deactivate`],
      ['POST', `/v1/keys/${id}/revoke`],
      ['POST', `/v1/keys/${id}/rotate`],
      ['POST', `/keys/${id}/activate`],
      ['DELETE', `/keys/${id}`],
      ['GET', '/v1/keys/list'],
      ['PUT', '/keys', { email: 'x@example.org', tier: 'hypha' }],
      ['PATCH', '/v1/keys/rotate', { tier: 'hypha' }],
      ['GET', '/admin'],
      ['POST', '/admin/keys', { tier: 'hypha' }],
      ['GET', '/v1/admin/keys'],
      ['PUT', '/v1/tiers/spore', { daily_request_limit: null }],
      ['GET', '/v1/tiers'],
    ]
    for (const [method, path, body] of attempts) {
      const response = await raw(
        running.url,
        method,
        path,
        { 'x-api-key': hypha.key, 'content-type': 'application/json' },
        body === undefined ? [] : [JSON.stringify(body)],
      )
      expect([404, 405], `${method} ${path} → ${response.status} ${response.text}`).toContain(response.status)
    }
    expect(await keyTable()).toEqual(before)
  })

  it('POST /keys only ever issues a spore key, and rotation rolls only the calling key', async () => {
    const issued = await fetch(`${running.url}/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'only-spore@example.org' }),
    })
    expect(issued.status).toBe(201)
    expect(((await issued.json()) as { tier: string }).tier).toBe('spore')

    const caller = await issueKey(db, 'mycel')
    const naming = await fetch(`${running.url}/v1/keys/rotate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': caller.key },
      body: JSON.stringify({ key_id: other.id }),
    })
    expect(naming.status).toBe(400)
    const rolled = await fetch(`${running.url}/v1/keys/rotate`, {
      method: 'POST',
      headers: { 'x-api-key': caller.key },
    })
    expect(rolled.status).toBe(201)
    const rotation = (await rolled.json()) as { tier: string; previous_key: { id: string } }
    expect(rotation.previous_key.id).toBe(caller.id)
    expect(rotation.tier).toBe('mycel')
    const [untouched] = await db.sql`SELECT status FROM api_keys WHERE id = ${other.id}`
    expect(untouched?.status).toBe('inactive')
  })

  it('a GraphQL mutation is refused whatever its name', async () => {
    const result = await graphql(running.url, `mutation { revokeKey(id: "${other.id}") }`, { key: hypha.key })
    expect(result.body.data ?? null).toBeNull()
    expect(result.body.errors?.[0]?.message).toMatch(/Schema is not configured to execute mutation operation/)
  })
})
