import { createHash } from 'node:crypto'
import { isInputObjectType, isInterfaceType, isObjectType } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashApiKey } from '../../src/access/api-key.ts'
import { createKey } from '../../src/db/keys.ts'
import { schema } from '../../src/graphql/schema/schema.ts'
import { loadOpenApiDocument, OpenApiValidator } from '../openapi/openapi-validator.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { keyIn, type MailCatcher, mailEnv, rollLinkIn, startMailCatcher } from '../support/mail-catcher.ts'
import { compareBody, predictBody } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { createMigratedDatabase, jsonParts, type RunningApp, startApp } from './support.ts'

/**
 * OWASP API3, broken object property level authorization: a caller cannot set a property it was not
 * offered (strict request bodies and inputs, so no tier, status or account can be slipped in), and
 * never sees one it should not (responses are built field by field; no key hash, email or client
 * address ever leaves).
 */
let db: TestDatabase
let running: RunningApp
let mail: MailCatcher
let hypha: string

beforeAll(async () => {
  mail = await startMailCatcher()
  db = await createMigratedDatabase()
  running = await startApp({ database: db, env: mailEnv(mail) })
  hypha = (await issueKey(db, 'hypha')).key
})

afterAll(async () => {
  await running?.close()
  await db?.drop()
  await mail?.close()
})

async function send(method: string, path: string, body: string, key?: string) {
  const response = await fetch(`${running.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body,
  })
  // biome-ignore lint/suspicious/noExplicitAny: response shapes vary per endpoint in tests
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

/** Properties a caller might try to give itself. */
const SMUGGLED = { tier: 'hypha', status: 'active', account_id: 'key_0000000000000000', expires_at: null }

describe('API3: request bodies are strict: an unknown property is refused, naming it', () => {
  const rank = { latitude: 44.6, longitude: -123.6, planting_method: 'manual', horizon: 5 }
  const bodies: [string, string, Record<string, unknown>, boolean][] = [
    ['POST', '/v1/predict', predictBody(), true],
    ['POST', '/v1/predict/compare', compareBody(), true],
    ['POST', '/v1/predict/rank', rank, true],
    ['POST', '/v1/keys/rotate', { grace_seconds: 0 }, true],
    ['POST', '/keys', { email: 'strict@example.org' }, false],
  ]

  it.each(bodies)('%s %s', async (method, path, valid, keyed) => {
    for (const [field, value] of Object.entries(SMUGGLED)) {
      // A fresh key each time: were the rotation body not strict, it would roll the key.
      const key = keyed ? (await issueKey(db, 'mycel')).key : undefined
      const result = await send(method, path, JSON.stringify({ ...valid, [field]: value }), key)
      expect(result.status, `${path} ${field}`).toBe(400)
      expect(result.body.error).toMatchObject({
        code: 'invalid_request',
        details: { field, reason: 'is not a recognized field' },
      })
    }
  })

  it('POST /v1/predict/batch, in the envelope and in every item', async () => {
    const outer = await send(
      'POST',
      '/v1/predict/batch',
      JSON.stringify({ sites: [predictBody()], tier: 'hypha' }),
      hypha,
    )
    expect(outer.body.error?.details).toEqual({ field: 'tier', reason: 'is not a recognized field' })
    const item = await send(
      'POST',
      '/v1/predict/batch',
      JSON.stringify({ sites: [predictBody(), predictBody({ tier: 'hypha' })] }),
      hypha,
    )
    expect(item.status).toBe(400)
    expect(item.body.error?.details).toEqual({ field: 'sites[1].tier', reason: 'is not a recognized field' })
  })

  it('the query string of GET /v1/species', async () => {
    const response = await fetch(`${running.url}/v1/species?group=conifer&tier=hypha`, {
      headers: { 'x-api-key': hypha },
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { details: unknown } }).error.details).toEqual({
      field: 'tier',
      reason: 'is not a recognized field',
    })
  })

  it('__proto__ and constructor are unknown fields too, and pollute no prototype', async () => {
    const rest = JSON.stringify(predictBody()).slice(1)
    for (const [field, raw] of [
      ['__proto__', `{"__proto__": {"tier": "hypha", "polluted": true}, ${rest}`],
      ['constructor', `{"constructor": {"prototype": {"polluted": true}}, ${rest}`],
    ] as const) {
      const result = await send('POST', '/v1/predict', raw, hypha)
      expect(result.status, field).toBe(400)
      expect(result.body.error?.details).toEqual({ field, reason: 'is not a recognized field' })
    }
    const keyRequest = await send(
      'POST',
      '/keys',
      '{"email": "proto@example.org", "__proto__": {"tier": "hypha"}}',
    )
    expect(keyRequest.status).toBe(400)
    // The server runs in this process: its objects and ours share Object.prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).tier).toBeUndefined()
  })

  it('GraphQL input objects: an unknown field is a validation error, literal or in variables', async () => {
    const literal = await graphql(
      running.url,
      '{ predict(input: {latitude: 44.6, longitude: -123.6, speciesCode: "PSME", plantingMethod: MANUAL, tier: "hypha"}) { speciesCode } }',
      { key: hypha },
    )
    expect(literal.body.data).toBeUndefined()
    expect(literal.body.errors?.[0]?.message).toMatch(/Field "tier" is not defined by type "PredictionInput"/)
    const variables = await graphql(
      running.url,
      'query ($input: PredictionInput!) { predict(input: $input) { speciesCode } }',
      {
        key: hypha,
        variables: {
          input: {
            latitude: 44.6,
            longitude: -123.6,
            speciesCode: 'PSME',
            plantingMethod: 'MANUAL',
            tier: 'hypha',
          },
        },
      },
    )
    expect(variables.status).toBe(400)
    expect(variables.body.data).toBeUndefined()
    expect(variables.body.errors?.[0]?.message).toMatch(
      /Field "tier" is not defined by type "PredictionInput"/,
    )
  })
})

/** Names of internal properties: none may appear in any response. */
const INTERNAL_NAME = /hash|e-?mail|issued_?from|account|hint|secret|password/i

describe('API3: responses never expose internal properties', () => {
  it('key requests, the roll page, usage, rotation, the audit log, jobs and viewer carry no key, key hash, email, client address or stale key', async () => {
    const email = 'internal-fields@example.org'
    const requested = await send('POST', '/keys', JSON.stringify({ email, name: 'nursery' }))
    expect(requested.status).toBe(202)
    // The answer says only that mail follows: no id, key, tier or status of any key.
    expect(requested.body).toEqual({ status: 'check_your_email' })
    const issued = { key: keyIn(await mail.next(email)) }
    const row = async () =>
      (
        await db.sql<{ issuedFrom: string; keyHash: string }[]>`
          SELECT issued_from, key_hash FROM api_keys WHERE key_hash = ${hashApiKey(issued.key)}`
      )[0]
    expect(await eventually(async () => (await row()) !== undefined)).toBe(true)
    const { issuedFrom, keyHash } = (await row()) as { issuedFrom: string; keyHash: string }
    expect(issuedFrom).toMatch(/^[0-9a-f]{64}$/)
    const secrets = [email, issuedFrom, keyHash, createHash('sha256').update(email).digest('hex')]

    // Asked again, the same answer; the roll link's page names neither the address nor the key.
    const again = await send('POST', '/keys', JSON.stringify({ email }))
    expect(again.body).toEqual(requested.body)
    const page = await (await fetch(`${running.url}${rollLinkIn(await mail.next(email))}`)).text()
    expect(page).toContain('<form method="post" action="/keys/roll">')
    for (const secret of [...secrets, issued.key]) expect(page).not.toContain(secret)

    const answers: unknown[] = [requested.body]
    const usage = await fetch(`${running.url}/v1/usage`, { headers: { 'x-api-key': issued.key } })
    answers.push(await usage.json())
    const viewer = await graphql(
      running.url,
      '{ viewer { key { id tier status name createdAt expiresAt lastUsedAt } limits { requestsPerDay batchSize } today { used remaining resetsAt } history { date requests } } }',
      { key: issued.key },
    )
    expect(viewer.body.errors).toBeUndefined()
    answers.push(viewer.body)
    const rotated = await send('POST', '/v1/keys/rotate', JSON.stringify({ grace_seconds: 60 }), issued.key)
    expect(rotated.status).toBe(201)
    // The new key is shown once, here; the old one is named by id only.
    const { key: replacement, ...rotation } = rotated.body as { key: string }
    answers.push(rotation)
    const later = await fetch(`${running.url}/v1/usage`, { headers: { 'x-api-key': replacement } })
    answers.push(await later.json())
    // The account's log of both changes, each from the client address as a tag, never as issued_from.
    const audit = await fetch(`${running.url}/v1/audit`, { headers: { 'x-api-key': replacement } })
    const log = (await audit.json()) as { events: { kind: string; address_tag: string }[] }
    expect(log.events.map((event) => event.kind)).toEqual(['key.rotated', 'key.issued'])
    expect(log.events[0]?.address_tag).toMatch(/^[0-9a-f]{32}$/)
    answers.push(log)
    secrets.push(issued.key, hashApiKey(replacement), replacement)

    const partner = await createKey(db.sql, { tier: 'mycel', email: 'partner@example.org' })
    const job = await fetch(`${running.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'x-api-key': partner.key, 'content-type': 'text/csv' },
      body: 'latitude,longitude,species_code,planting_method\n44.6,-123.6,PSME,manual\n',
    })
    expect(job.status).toBe(202)
    answers.push(await job.json())
    const { id } = answers.at(-1) as { id: string }
    answers.push(
      await (await fetch(`${running.url}/v1/jobs/${id}`, { headers: { 'x-api-key': partner.key } })).json(),
    )
    secrets.push('partner@example.org', hashApiKey(partner.key))

    for (const answer of answers) {
      const { keys, strings } = jsonParts(answer)
      expect(
        keys.filter((key) => INTERNAL_NAME.test(key)),
        JSON.stringify(answer),
      ).toEqual([])
      for (const secret of secrets) expect(strings.join('\n'), JSON.stringify(answer)).not.toContain(secret)
    }
  })

  it('no GraphQL type, field, argument or input field is named after an internal property', () => {
    const named: string[] = []
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue
      named.push(type.name)
      if (isObjectType(type) || isInterfaceType(type))
        for (const field of Object.values(type.getFields())) {
          named.push(`${type.name}.${field.name}`)
          for (const arg of field.args) named.push(`${type.name}.${field.name}(${arg.name})`)
        }
      if (isInputObjectType(type))
        for (const field of Object.values(type.getFields())) named.push(`${type.name}.${field.name}`)
    }
    expect(named.length).toBeGreaterThan(100)
    expect(named.filter((name) => INTERNAL_NAME.test(name))).toEqual([])
  })

  it('no response the OpenAPI document allows has a property named after an internal one', () => {
    const document = loadOpenApiDocument()
    const validator = new OpenApiValidator(document)
    const names: string[] = []
    const seen = new Set<unknown>()
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object' || seen.has(node)) return
      seen.add(node)
      const schemaNode = node as Record<string, unknown>
      if (typeof schemaNode.$ref === 'string') {
        visit(validator.resolve(schemaNode))
        return
      }
      if (schemaNode.properties && typeof schemaNode.properties === 'object')
        names.push(...Object.keys(schemaNode.properties))
      for (const value of Object.values(schemaNode)) visit(value)
    }
    for (const item of Object.values<Record<string, { responses?: Record<string, unknown> }>>(document.paths))
      for (const operation of Object.values(item))
        for (const response of Object.values(operation.responses ?? {}))
          visit(validator.resolve(response as never))
    expect(names.length).toBeGreaterThan(50)
    expect([...new Set(names)].filter((name) => INTERNAL_NAME.test(name))).toEqual([])
  })
})
