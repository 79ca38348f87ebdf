import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { getNamedType, isInputObjectType } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashApiKey } from '../../src/access/api-key.ts'
import { createKey, type IssuedKey } from '../../src/db/keys.ts'
import { saveSurveyPlots } from '../../src/db/surveys.ts'
import type { SurveyPlot } from '../../src/domain/ports/surveys.ts'
import { schema } from '../../src/graphql/schema/schema.ts'
import { ROLL_PAGE_PATH } from '../../src/key-pages/handler.ts'
import { ROUTES } from '../../src/rest/routes.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { keyIn, type MailCatcher, mailEnv, rollLinkIn, startMailCatcher } from '../support/mail-catcher.ts'
import { eventually } from '../support/waiting.ts'
import {
  createMigratedDatabase,
  type RawResponse,
  ROOT,
  type RunningApp,
  raw,
  SRC,
  startApp,
} from './support.ts'

/**
 * OWASP API5, broken function level authorization. The operator's key actions (create a key of any
 * tier, activate, deactivate, revoke, list) exist only in the keys CLI, which talks to PostgreSQL
 * directly: the HTTP server has no route, GraphQL field or module that could perform them. The only
 * GraphQL writes are the caller's own field surveys, their calibrations and the default model version,
 * on the account of the key that sends them.
 */

/** Every route the REST router serves. A new one must be added here, after asking who may call it. */
const SERVED = [
  'DELETE /v1/jobs/{id}',
  'DELETE /v1/surveys',
  'DELETE /v1/surveys/{plot_id}',
  'GET /v1/audit',
  'GET /v1/climate',
  'GET /v1/coverage',
  'GET /v1/health',
  'GET /v1/health/live',
  'GET /v1/jobs/{id}',
  'GET /v1/jobs/{id}/report.pdf',
  'GET /v1/jobs/{id}/results',
  'GET /v1/methods',
  'GET /v1/models',
  'GET /v1/models/calibrations/{id}',
  'GET /v1/models/{version}',
  'GET /v1/openapi.json',
  'GET /v1/rasters/survival.tif',
  'GET /v1/reports/{token}.pdf',
  'GET /v1/species',
  'GET /v1/surveys',
  'GET /v1/surveys/report',
  'GET /v1/surveys/uploads/{upload_id}',
  'GET /v1/surveys/{plot_id}',
  'GET /v1/treatments',
  'GET /v1/usage',
  'POST /keys',
  'POST /v1/jobs',
  'POST /v1/keys/rotate',
  'POST /v1/models/calibrations',
  'POST /v1/plans/options',
  'POST /v1/plans/stocking',
  'POST /v1/predict',
  'POST /v1/predict/batch',
  'POST /v1/predict/compare',
  'POST /v1/predict/rank',
  'POST /v1/surveys',
  'POST /v1/surveys/uploads',
  'POST /v1/surveys/uploads/tickets/{ticket}',
  'PUT /v1/models/default',
]

/**
 * Every GraphQL write: the caller's own field surveys, a ticket to upload more of them, a calibration
 * of them, and the account's default model version. A new one must be added here, after asking who
 * may call it.
 */
const MUTATIONS = {
  calibrateModel: ['filter'],
  deleteAllSurveys: ['confirm'],
  deleteSurveyPlot: ['plotId'],
  setDefaultModel: ['modelVersion'],
  storeSurveys: ['plots'],
  surveyUploadTicket: ['skipInvalid'],
}

/** Names that would let a request choose whose data a write touches, or with what rights. */
const ACCOUNT_WORDS = /account|key|tier|owner|caller/i

/**
 * What the front door serves under /keys besides the router's POST /keys: the page a mailed roll link
 * opens and its form, to anyone without a key (the link's single-use token is what allows the roll).
 */
const KEY_PAGES = ['GET /keys/roll', 'POST /keys/roll']

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

  it('GraphQL writes only the caller’s own data: the mutation root holds exactly the survey and model writes, none naming an account or key', () => {
    expect(schema.getSubscriptionType()).toBeFalsy()
    const mutations = Object.values(schema.getMutationType()?.getFields() ?? {})
    // Exactly these fields and arguments: the account written to can only be the admitted key's.
    expect(
      Object.fromEntries(mutations.map((field) => [field.name, field.args.map((arg) => arg.name)])),
    ).toEqual(MUTATIONS)
    expect(mutations.map((field) => field.name).filter((name) => OPERATOR_WORDS.test(name))).toEqual([])
    const argumentFields = mutations.flatMap((field) =>
      field.args.flatMap((arg) => {
        const type = getNamedType(arg.type)
        return isInputObjectType(type)
          ? Object.keys(type.getFields()).map((name) => `${type.name}.${name}`)
          : [arg.name]
      }),
    )
    expect(argumentFields).toContain('SurveyPlotInput.plotId')
    expect(argumentFields.filter((name) => ACCOUNT_WORDS.test(name))).toEqual([])
  })

  it('every GraphQL query field only reads', () => {
    const fields = Object.keys(schema.getQueryType()?.getFields() ?? {}).sort()
    expect(fields).toEqual([
      'calibration',
      'climateScenarios',
      'compareMethods',
      'coverage',
      'health',
      'job',
      'model',
      'modelFactors',
      'models',
      'plantingMethods',
      'plantingOptions',
      'predict',
      'predictBatch',
      'species',
      'speciesRanking',
      'stockingPlan',
      'surveyPlot',
      'surveyReport',
      'surveyUpload',
      'surveys',
      'survivalMap',
      'treatmentCatalogue',
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

  it('the one server module that writes new keys (the store of key mail) writes only spore keys', () => {
    const writers = serverModules().filter(
      (module) =>
        module !== 'src/db/keys.ts' && /\binsertKey\b/.test(readFileSync(join(ROOT, module), 'utf8')),
    )
    expect(writers).toEqual(['src/db/key-requests.ts'])
    const text = readFileSync(join(ROOT, 'src/db/key-requests.ts'), 'utf8')
    const calls = [...text.matchAll(/\binsertKey\(\w+, \{([^}]*)\}/g)].map((match) => match[1] as string)
    expect(calls.length).toBeGreaterThan(0)
    for (const options of calls) expect(options).toMatch(/\btier: 'spore'/)
  })
})

describe('API5: operator actions over HTTP find nothing', () => {
  let db: TestDatabase
  let running: RunningApp
  let mail: MailCatcher
  let hypha: IssuedKey
  let other: IssuedKey

  beforeAll(async () => {
    mail = await startMailCatcher()
    db = await createMigratedDatabase()
    // Self-service keys on (SMTP_URL), so the key pages are served.
    running = await startApp({ database: db, keyCacheMs: 0, env: mailEnv(mail) })
    hypha = await issueKey(db, 'hypha')
    other = await createKey(db.sql, { tier: 'spore', status: 'inactive' })
  })

  afterAll(async () => {
    await running?.close()
    await db?.drop()
    await mail?.close()
  })

  /** The key a mailed key is once written (the mail server accepts the message first). */
  async function written(key: string): Promise<{ id: string; tier: string; status: string }> {
    const row = async () =>
      (
        await db.sql<{ id: string; tier: string; status: string }[]>`
          SELECT id, tier, status FROM api_keys WHERE key_hash = ${hashApiKey(key)}`
      )[0]
    expect(await eventually(async () => (await row()) !== undefined)).toBe(true)
    return (await row()) as { id: string; tier: string; status: string }
  }

  /** The router's (or the front door's) own "no such endpoint". */
  const nothingThere = (response: RawResponse) =>
    response.status === 404 && (response.text === '' || /No endpoint at/.test(response.text))

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

  it('under /keys the front door serves only POST /keys and the roll-link page (GET and POST), each without a key', async () => {
    expect(ROLL_PAGE_PATH).toBe('/keys/roll')
    const served = new Set([...KEY_PAGES, 'POST /keys'])
    const paths = [
      '/keys',
      '/keys/',
      '/keys/roll',
      '/keys/roll/',
      '/keys/roll/x',
      '/keys/rolls',
      '/keys/ROLL',
      '/KEYS/roll',
      '/keys/roll.html',
      '/keys/roll%2f',
      '/keys/rotate',
      '/keys/new',
      '/keys/issue',
      '/keys/list',
      '/keys/admin',
      `/keys/${other.id}`,
    ]
    const problems: string[] = []
    for (const path of paths) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const response = await raw(running.url, method, path, {}, [])
        const described = `${method} ${path} → ${response.status} ${response.text.slice(0, 80)}`
        if (served.has(`${method} ${path}`)) {
          // Served, to a caller with no key: a page (a roll link's token that is not one, here) or the door's refusal of an empty body.
          if (nothingThere(response) || response.status === 401 || response.status === 405)
            problems.push(described)
        } else if (path === '/keys' || path === '/keys/roll') {
          if (!(response.status === 405 || (method === 'HEAD' && nothingThere(response))))
            problems.push(described)
        } else if (!nothingThere(response)) problems.push(described)
      }
    }
    expect(problems).toEqual([])
    const page = await raw(running.url, 'GET', '/keys/roll', {}, [])
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    expect((await raw(running.url, 'DELETE', '/keys/roll', {}, [])).headers.allow).toBe('GET, HEAD, POST')
  })

  it('POST /keys only ever mails a spore key, a roll link rolls only the key it was mailed for, and rotation rolls only the calling key', async () => {
    const email = 'only-spore@example.org'
    const ask = () =>
      fetch(`${running.url}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      })
    expect((await ask()).status).toBe(202)
    const first = await written(keyIn(await mail.next(email)))
    expect(first).toMatchObject({ tier: 'spore', status: 'active' })

    // The link's token alone names the key: other fields in its form are not read.
    expect((await ask()).status).toBe(202)
    const token = new URL(rollLinkIn(await mail.next(email)), 'http://x').searchParams.get('token') as string
    const confirmed = await fetch(`${running.url}/keys/roll`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, key_id: other.id, id: other.id, tier: 'hypha', status: 'active' }),
    })
    expect(confirmed.status).toBe(200)
    const replacement = await written(keyIn(await mail.next(email)))
    expect(replacement).toMatchObject({ tier: 'spore', status: 'active' })
    const [linked] = await db.sql`SELECT status, rotated_to FROM api_keys WHERE id = ${first.id}`
    expect(linked).toMatchObject({ status: 'rotated', rotatedTo: replacement.id })
    const [stillInactive] = await db.sql`SELECT status, tier FROM api_keys WHERE id = ${other.id}`
    expect(stillInactive).toMatchObject({ status: 'inactive', tier: 'spore' })

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

  it('a GraphQL mutation other than the survey writes is refused whatever its name', async () => {
    const before = await keyTable()
    for (const field of [
      `revokeKey(id: "${other.id}")`,
      `setKeyStatus(id: "${other.id}", status: "active")`,
      'createKey(tier: "hypha")',
    ]) {
      const result = await graphql(running.url, `mutation { ${field} }`, { key: hypha.key })
      expect(result.status, field).toBe(400)
      expect(result.body.data ?? null).toBeNull()
      expect(result.body.errors?.[0]?.message).toMatch(/^Cannot query field "\w+" on type "Mutation"/)
    }
    expect(await keyTable()).toEqual(before)
  })

  it('the GraphQL survey writes act only on the calling key’s account, and none runs without a key', async () => {
    const survey = (plotId: string): SurveyPlot => ({
      plotId,
      surveyedOn: '2024-03-15',
      plantedOn: '2021-03-15',
      latitude: 44.6,
      longitude: -123.6,
      speciesCode: 'PSME',
      plantingMethod: 'manual',
      planted: 40,
      alive: 31,
      plotAreaM2: null,
      protocol: null,
      siteId: 1,
      matchedLatitude: 44.6,
      matchedLongitude: -123.6,
      matchDistanceKm: 0.5,
      ageYears: 3,
      predicted: 0.8,
      modelVersion: '0.2',
      dataVersion: null,
      updatedAt: new Date(),
    })
    // The hypha key's account holds two plots (stored directly: this database has no sites to match).
    const stored = await saveSurveyPlots(db.sql, hypha.id, [survey('mine'), survey('also-mine')], 1000, {
      accountId: hypha.id,
      kind: 'survey.stored',
      actor: { kind: 'holder', keyId: hypha.id, addressHash: null },
      details: { surveys: 2 },
    })
    expect(stored).toEqual({ saved: true })
    const plots = async () =>
      (
        await db.sql<{ accountId: string; plotId: string }[]>`
        SELECT account_id, plot_id FROM survey_plots ORDER BY account_id, plot_id`
      ).map((row) => `${row.accountId === hypha.id ? 'hypha' : row.accountId}:${row.plotId}`)
    expect(await plots()).toEqual(['hypha:also-mine', 'hypha:mine'])

    const store = `mutation Store($plots: [SurveyPlotInput!]!) { storeSurveys(plots: $plots) { stored } }`
    const plotInput = {
      plotId: 'mine',
      latitude: 44.6,
      longitude: -123.6,
      speciesCode: 'PSME',
      plantingMethod: 'manual',
      plantedOn: '2021-03-15',
      surveyedOn: '2024-03-15',
      planted: 40,
      alive: 0,
    }
    const writes: [string, string, Record<string, unknown>][] = [
      ['storeSurveys', store, { plots: [plotInput] }],
      ['deleteSurveyPlot', 'mutation { deleteSurveyPlot(plotId: "mine") }', {}],
      ['deleteAllSurveys', 'mutation { deleteAllSurveys(confirm: true) }', {}],
      ['surveyUploadTicket', 'mutation { surveyUploadTicket { path } }', {}],
      ['calibrateModel', 'mutation { calibrateModel { id } }', {}],
      ['setDefaultModel', 'mutation { setDefaultModel(modelVersion: null) { version } }', {}],
    ]
    expect(writes.map(([name]) => name).sort()).toEqual(Object.keys(MUTATIONS))
    for (const [name, document, variables] of writes) {
      const result = await graphql(running.url, document, { variables })
      expect(result.status, name).toBe(401)
      expect(result.body.errors?.[0]?.extensions?.code, name).toBe('invalid_api_key')
    }
    expect(await plots()).toEqual(['hypha:also-mine', 'hypha:mine'])
    expect(await db.sql`SELECT 1 FROM survey_upload_tickets`).toHaveLength(0)

    // Another account's key reaches none of them: the plot is not found, and "all" is its own none.
    const intruder = await issueKey(db, 'mycel')
    const missing = await graphql(running.url, writes[1]?.[1] as string, { key: intruder.key })
    expect(missing.status).toBe(404)
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('not_found')
    const none = await graphql(running.url, writes[2]?.[1] as string, { key: intruder.key })
    expect(none.body).toMatchObject({ data: { deleteAllSurveys: 0 } })
    expect(await plots()).toEqual(['hypha:also-mine', 'hypha:mine'])

    // The owner's key deletes its own.
    const own = await graphql(running.url, writes[1]?.[1] as string, { key: hypha.key })
    expect(own.body).toMatchObject({ data: { deleteSurveyPlot: 1 } })
    expect(await plots()).toEqual(['hypha:also-mine'])
  })
})
