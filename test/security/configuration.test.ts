import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPECIES } from '../../src/domain/species.ts'
import { GRAPHIQL_CSP } from '../../src/graphql/plugins/page-headers.ts'
import { loadSurvivalModel } from '../../src/model/index.ts'
import type { SurvivalModel } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { predictBody } from '../support/sites.ts'
import { createMigratedDatabase, type RunningApp, recordingLogger, startApp } from './support.ts'

/**
 * OWASP API8, security misconfiguration: cross-origin policy, the GraphiQL page's headers and switch,
 * what an unexpected failure shows (nothing), the /metrics token, and no software banner.
 */

const ORIGIN = 'https://elsewhere.example'
const METRICS_TOKEN = 'metrics-token-for-the-security-tests'

let db: TestDatabase
let running: RunningApp
let key: string

beforeAll(async () => {
  db = await createMigratedDatabase()
  running = await startApp({ database: db, env: { METRICS_TOKEN } })
  key = (await issueKey(db, 'hypha')).key
})

afterAll(async () => {
  await running?.close()
  await db?.drop()
})

const graphqlPost = (headers: Record<string, string> = {}) =>
  fetch(`${running.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: '{ species { code } }' }),
  })

describe('API8: cross-origin requests', () => {
  it('GraphQL answers any origin but never lets the browser send its credentials', async () => {
    const answers = [
      await graphqlPost({ origin: ORIGIN, 'x-api-key': key }),
      await graphqlPost({ origin: ORIGIN }), // 401: errors carry the same policy
      await fetch(`${running.url}/graphql`, {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, x-api-key',
        },
      }),
    ]
    expect(answers.map((a) => a.status)).toEqual([200, 401, 204])
    for (const answer of answers) {
      expect(answer.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull()
      expect(answer.headers.get('vary')).toMatch(/Origin/)
    }
    expect(answers[2]?.headers.get('access-control-allow-methods')).toBe('GET, POST')
  })

  it('REST /v1 sends no CORS headers: a preflight is 405, and no page on another origin may read an answer', async () => {
    const preflight = await fetch(`${running.url}/v1/predict`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key',
      },
    })
    expect(preflight.status).toBe(405)
    const simple = await fetch(`${running.url}/v1/health`, { headers: { origin: ORIGIN } })
    expect(simple.status).toBe(200)
    const keyed = await fetch(`${running.url}/v1/methods`, { headers: { origin: ORIGIN, 'x-api-key': key } })
    for (const answer of [preflight, simple, keyed]) {
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
    }
  })

  it('no answer names the software serving it (no Server or X-Powered-By)', async () => {
    const answers = [
      await fetch(`${running.url}/v1/health`),
      await fetch(`${running.url}/v1/nowhere`),
      await graphqlPost({ 'x-api-key': key }),
      await fetch(`${running.url}/graphql`, { headers: { accept: 'text/html' } }),
    ]
    for (const answer of answers) {
      expect(answer.headers.get('server')).toBeNull()
      expect(answer.headers.get('x-powered-by')).toBeNull()
    }
  })
})

describe('API8: keyed answers are the caller’s alone', () => {
  it('every admitted /v1 answer says no-store, and no JSON answer may be sniffed as anything else', async () => {
    const keyed = [
      await fetch(`${running.url}/v1/species`, { headers: { 'x-api-key': key } }),
      await fetch(`${running.url}/v1/usage`, { headers: { 'x-api-key': key } }),
      await fetch(`${running.url}/v1/methods`, { headers: { 'x-api-key': key } }),
      // An error once admitted is the caller's too.
      await fetch(`${running.url}/v1/predict`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ ...predictBody(), species_code: 'NOPE' }),
      }),
    ]
    expect(keyed.map((a) => a.status)).toEqual([200, 200, 200, 422])
    for (const answer of keyed) {
      expect(answer.headers.get('cache-control')).toBe('no-store')
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
    }
    const refused = await fetch(`${running.url}/v1/species`)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff')
    const graphql = await graphqlPost({ 'x-api-key': key })
    expect(graphql.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

describe('API8: GraphiQL', () => {
  it('its page may not be framed by another site, is not sniffed and sends no Referer', async () => {
    const page = await fetch(`${running.url}/graphql`, { headers: { accept: 'text/html' } })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('content-security-policy')).toBe(GRAPHIQL_CSP)
    expect(GRAPHIQL_CSP).toContain("frame-ancestors 'none'")
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    // JSON answers are not pages: they go without the page's policy.
    const json = await graphqlPost({ 'x-api-key': key })
    expect(json.headers.get('content-security-policy')).toBeNull()
  })

  it('GRAPHIQL=false serves no page at all', async () => {
    const off = await startApp({ database: db, env: { GRAPHIQL: 'false' } })
    try {
      const page = await fetch(`${off.url}/graphql`, { headers: { accept: 'text/html' } })
      expect(page.headers.get('content-type') ?? '').not.toMatch(/text\/html/)
      expect(await page.text()).not.toMatch(/<html/i)
    } finally {
      await off.close()
    }
  })
})

describe('API8: /metrics', () => {
  it('needs exactly the bearer token; anything else is 401 with no body', async () => {
    const wrong = [
      undefined,
      `Bearer ${'x'.repeat(METRICS_TOKEN.length)}`,
      `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
      `Bearer ${METRICS_TOKEN}x`,
      `Basic ${Buffer.from(`user:${METRICS_TOKEN}`).toString('base64')}`,
    ]
    for (const authorization of wrong) {
      const response = await fetch(`${running.url}/metrics`, {
        headers: authorization ? { authorization } : {},
      })
      expect(response.status, authorization).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Bearer')
      expect(await response.text()).toBe('')
    }
    const right = await fetch(`${running.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    })
    expect(right.status).toBe(200)
  })

  it('labels requests by route, never by the path a caller chose', async () => {
    const marker = randomBytes(6).toString('hex')
    await fetch(`${running.url}/v1/jobs/job_${marker}${marker}${marker}`, { headers: { 'x-api-key': key } })
    await fetch(`${running.url}/nowhere-${marker}`)
    await fetch(`${running.url}/v1/nowhere-${marker}`)
    const text = await (
      await fetch(`${running.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text()
    expect(text).not.toContain(marker)
    expect(text).toMatch(/route="\/v1\/jobs\/\{id\}"/)
    expect(text).toMatch(/route="unmatched"/)
  })
})

describe('API8: unexpected failures show nothing of the inside', () => {
  const MARKER = 'LEAK-MARKER-7f3a'
  let seeded: TestDatabase
  let broken: RunningApp
  let brokenKey: string
  const logged = recordingLogger()

  beforeAll(async () => {
    seeded = await createSeededDatabase()
    const model = loadSurvivalModel(SPECIES)
    // The model fails the way a bug would: a message full of internals, and a stack.
    const failing: SurvivalModel = Object.assign(Object.create(model), {
      predict() {
        throw new TypeError(`${MARKER} at /srv/app/src/model/evaluator.ts:42 while reading weights[NaN]`)
      },
    })
    broken = await startApp({ database: seeded, model: failing, logger: logged.logger, keyCacheMs: 0 })
    brokenKey = (await issueKey(seeded, 'hypha')).key
  })

  afterAll(async () => {
    await broken?.close()
    await seeded?.drop()
  })

  /** Nothing a caller could learn the code, the database or the stack from. */
  function expectMasked(text: string) {
    expect(text).not.toContain(MARKER)
    expect(text).not.toMatch(/\.ts\b|\bat \/|SELECT|api_keys|key_hash|postgres|stack|TypeError/i)
  }

  it('a bug in a prediction: REST and both GraphQL ways answer internal_error alone, the log has the rest', async () => {
    const rest = await fetch(`${broken.url}/v1/predict`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': brokenKey },
      body: JSON.stringify(predictBody()),
    })
    const restText = await rest.text()
    expect(rest.status).toBe(500)
    expect(JSON.parse(restText)).toEqual({
      error: { code: 'internal_error', message: 'Unexpected server failure' },
    })
    expectMasked(restText)

    const query =
      '{ predict(input: {latitude: 44.6, longitude: -123.6, speciesCode: "PSME", plantingMethod: MANUAL}) { speciesCode } }'
    const direct = await fetch(`${broken.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': brokenKey },
      body: JSON.stringify({ query }),
    })
    const viaYoga = await fetch(`${broken.url}/graphql?query=${encodeURIComponent(query)}`, {
      headers: { accept: 'application/graphql-response+json', 'x-api-key': brokenKey },
    })
    for (const answer of [direct, viaYoga]) {
      const text = await answer.text()
      expectMasked(text)
      const body = JSON.parse(text) as { errors: { message: string; extensions: { code: string } }[] }
      expect(body.errors).toHaveLength(1)
      expect(body.errors[0]).toMatchObject({
        message: 'Unexpected server failure',
        extensions: { code: 'internal_error' },
      })
    }
    // What the caller does not see is in the log, under the request id the caller was given.
    const requestId = rest.headers.get('request-id')
    const line = logged.lines.find((l) => l.requestId === requestId && l.msg === 'unexpected error')
    expect(JSON.stringify(line)).toContain(MARKER)
  })

  it('a database error (with SQL in its message): internal_error alone, on REST and GraphQL', async () => {
    await seeded.sql.unsafe(`
      CREATE FUNCTION leak_guard() RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '${MARKER}: SELECT key_hash, email, issued_from FROM api_keys failed';
      END $$;
      ALTER TABLE api_keys RENAME TO api_keys_hidden;
      CREATE VIEW api_keys AS SELECT * FROM api_keys_hidden WHERE leak_guard();
    `)
    try {
      const rest = await fetch(`${broken.url}/v1/methods`, { headers: { 'x-api-key': brokenKey } })
      const restText = await rest.text()
      expect(rest.status, restText).toBe(500)
      expect(JSON.parse(restText)).toEqual({
        error: { code: 'internal_error', message: 'Unexpected server failure' },
      })
      expectMasked(restText)
      const graphql = await fetch(`${broken.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': brokenKey },
        body: JSON.stringify({ query: '{ species { code } }' }),
      })
      const graphqlText = await graphql.text()
      expectMasked(graphqlText)
      expect(JSON.parse(graphqlText).errors[0]).toMatchObject({
        message: 'Unexpected server failure',
        extensions: { code: 'internal_error' },
      })
    } finally {
      await seeded.sql.unsafe(`
        DROP VIEW api_keys;
        ALTER TABLE api_keys_hidden RENAME TO api_keys;
        DROP FUNCTION leak_guard();
      `)
    }
    const after = await fetch(`${broken.url}/v1/methods`, { headers: { 'x-api-key': brokenKey } })
    expect(after.status).toBe(200)
  })
})
