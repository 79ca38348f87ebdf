import { getIntrospectionQuery } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, rotateKey, setKeyStatus } from '../../src/db/keys.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { firstError, type GraphQLResult, graphql, predictField } from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'

const KEY_CACHE_MS = 200

let db: TestDatabase
let server: TestServer

beforeAll(async () => {
  ;({ db, server } = await startSeededServer({ keyCacheMs: KEY_CACHE_MS }))
})

afterAll(() => stopSeededServer({ db, server }))

const SPECIES_QUERY = '{ species { code } }'
const PREDICT_QUERY = `{ ${predictField(FOREST_POINTS.coastRange)} }`

function expectRefused(result: GraphQLResult, code: string, status: number) {
  expect(result.status, JSON.stringify(result.body)).toBe(status)
  expect(result.body.data ?? null).toBeNull()
  const error = firstError(result)
  expect(error.extensions?.code).toBe(code)
  expect(error.extensions?.status).toBe(status)
  expect(error.extensions?.details).toBeUndefined()
  return error
}

describe('invalid_api_key (401)', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['unknown but well-formed', `tsp_live_${'0123456789abcdef'.repeat(2)}`],
    ['malformed: wrong prefix', `tsp_test_${'a'.repeat(32)}`],
    ['malformed: too short', `tsp_live_${'a'.repeat(31)}`],
    ['malformed: uppercase hex', `tsp_live_${'A'.repeat(32)}`],
    ['malformed: garbage', 'not a key at all'],
    ['malformed: very long', `tsp_live_${'a'.repeat(5000)}`],
  ])('%s key', async (_label, key) => {
    for (const query of [SPECIES_QUERY, PREDICT_QUERY]) {
      const result = await graphql(
        server.url,
        query,
        key === undefined ? {} : { headers: { 'x-api-key': key } },
      )
      const error = expectRefused(result, 'invalid_api_key', 401)
      expect(error.message).toMatch(/X-API-Key/i)
      if (key) expect(JSON.stringify(result.body)).not.toContain(key)
    }
  })

  it('a revoked key is invalid_api_key', async () => {
    const issued = await issueKey(db, 'mycel')
    await setKeyStatus(db.sql, issued.id, 'revoke')
    expectRefused(await graphql(server.url, SPECIES_QUERY, { key: issued.key }), 'invalid_api_key', 401)
  })

  it('a rotated key is invalid_api_key and its replacement works', async () => {
    const issued = await issueKey(db, 'mycel')
    expect((await graphql(server.url, SPECIES_QUERY, { key: issued.key })).status).toBe(200)
    const { issued: replacement } = await rotateKey(db.sql, issued.id)
    expect(replacement.key).not.toBe(issued.key)
    expect(replacement.tier).toBe('mycel')
    const refused = await eventually(
      async () => (await graphql(server.url, SPECIES_QUERY, { key: issued.key })).status === 401,
    )
    expect(refused).toBe(true)
    expectRefused(await graphql(server.url, SPECIES_QUERY, { key: issued.key }), 'invalid_api_key', 401)
    const fresh = await graphql(server.url, SPECIES_QUERY, { key: replacement.key })
    expect(fresh.status).toBe(200)
    expect(fresh.body.data.species).toHaveLength(20)
  })

  it('auth failures are not counted and carry no rate-limit headers', async () => {
    const result = await graphql(server.url, SPECIES_QUERY)
    expect(result.headers.get('x-ratelimit-limit')).toBeNull()
    expect(result.headers.get('ratelimit')).toBeNull()
  })
})

describe('key_inactive (403)', () => {
  it('a key issued inactive is refused with key_inactive', async () => {
    const issued = await createKey(db.sql, { tier: 'spore', name: 'inactive', status: 'inactive' })
    for (const query of [SPECIES_QUERY, PREDICT_QUERY, '{ coverage { region } }']) {
      const error = expectRefused(await graphql(server.url, query, { key: issued.key }), 'key_inactive', 403)
      expect(error.message).toMatch(/deactivated|inactive/i)
    }
  })

  it('a key deactivated in the key store is refused within the cache window, and comes back when reactivated', async () => {
    const issued = await issueKey(db, 'spore')
    expect((await graphql(server.url, SPECIES_QUERY, { key: issued.key })).status).toBe(200)
    await setKeyStatus(db.sql, issued.id, 'deactivate')
    const refused = await eventually(
      async () => (await graphql(server.url, SPECIES_QUERY, { key: issued.key })).status === 403,
    )
    expect(refused).toBe(true)
    expectRefused(await graphql(server.url, SPECIES_QUERY, { key: issued.key }), 'key_inactive', 403)
    await setKeyStatus(db.sql, issued.id, 'activate')
    expect(
      await eventually(
        async () => (await graphql(server.url, SPECIES_QUERY, { key: issued.key })).status === 200,
      ),
    ).toBe(true)
  })

  it('a key revoked after use is refused within the cache window', async () => {
    const issued = await issueKey(db, 'hypha')
    expect((await graphql(server.url, SPECIES_QUERY, { key: issued.key })).status).toBe(200)
    await setKeyStatus(db.sql, issued.id, 'revoke')
    expect(
      await eventually(
        async () => (await graphql(server.url, SPECIES_QUERY, { key: issued.key })).status === 401,
      ),
    ).toBe(true)
  })

  it('a status change reaches a server with the default key cache (CLI promise: within 5 s)', async () => {
    const defaultServer = await startTestServer({ database: db })
    try {
      const issued = await issueKey(db, 'spore')
      expect((await graphql(defaultServer.url, SPECIES_QUERY, { key: issued.key })).status).toBe(200)
      await setKeyStatus(db.sql, issued.id, 'deactivate')
      const refused = await eventually(
        async () => (await graphql(defaultServer.url, SPECIES_QUERY, { key: issued.key })).status === 403,
        5000,
        100,
      )
      expect(refused).toBe(true)
    } finally {
      await defaultServer.close()
    }
  })
})

describe('public operations', () => {
  it('`{ __typename }` needs no key', async () => {
    const result = await graphql(server.url, '{ __typename }')
    expect(result.status).toBe(200)
    expect(result.body).toEqual({ data: { __typename: 'Query' } })
  })

  it('schema introspection needs no key: a small __schema query and the full GraphiQL introspection', async () => {
    const small = await graphql(server.url, '{ __schema { queryType { name } } }')
    expect(small.status).toBe(200)
    expect(small.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } })

    const full = await graphql(server.url, getIntrospectionQuery())
    expect(full.status).toBe(200)
    expect(full.body.errors).toBeUndefined()
    const types = full.body.data.__schema.types.map((t: { name: string }) => t.name)
    for (const name of [
      'Query',
      'Prediction',
      'Site',
      'RiskFactor',
      'Species',
      'PlantingMethod',
      'Health',
      'Model',
    ]) {
      expect(types).toContain(name)
    }

    const typeQuery = await graphql(server.url, '{ __type(name: "Prediction") { name fields { name } } }')
    expect(typeQuery.status).toBe(200)
    expect(typeQuery.body.data.__type.name).toBe('Prediction')
  })

  it('introspection with a key works and is not counted against the quota', async () => {
    const issued = await issueKey(db, 'spore')
    const before = await graphql(server.url, SPECIES_QUERY, { key: issued.key })
    expect(before.headers.get('x-ratelimit-remaining')).toBe('99')
    for (let i = 0; i < 5; i++) {
      const result = await graphql(server.url, getIntrospectionQuery(), { key: issued.key })
      expect(result.status).toBe(200)
      expect(result.headers.get('x-ratelimit-remaining')).toBeNull()
    }
    await graphql(server.url, '{ __schema { queryType { name } } }', { key: issued.key })
    await graphql(server.url, '{ __typename }', { key: issued.key })
    await graphql(server.url, '{ health { status } model { version } }', { key: issued.key })
    const after = await graphql(server.url, SPECIES_QUERY, { key: issued.key })
    expect(after.headers.get('x-ratelimit-remaining')).toBe('98')
  })

  it('public operations work even with an invalid or inactive key', async () => {
    const inactive = await createKey(db.sql, { tier: 'spore', status: 'inactive' })
    for (const key of ['garbage', inactive.key]) {
      const result = await graphql(server.url, '{ __typename health { status } }', {
        headers: { 'x-api-key': key },
      })
      expect(result.status).toBe(200)
      expect(result.body.data.health.status).toBe('healthy')
    }
  })

  it('mixing a public field with a keyed one needs the key', async () => {
    for (const query of [
      '{ __typename species { code } }',
      '{ health { status } species { code } }',
      '{ __schema { queryType { name } } plantingMethods { id } }',
      'query { ...F } fragment F on Query { model { version } coverage { region } }',
      '{ ... on Query { health { status } modelFactors { key } } }',
    ]) {
      expectRefused(await graphql(server.url, query), 'invalid_api_key', 401)
    }
  })

  it('an operation picked by operationName is judged on its own fields', async () => {
    const document = 'query Pub { health { status } } query Priv { species { code } }'
    const call = (operationName: string) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: document, operationName }),
      })
    expect((await call('Pub')).status).toBe(200)
    expect((await call('Priv')).status).toBe(401)
  })
})
