import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import {
  aliasedPredicts,
  batchInputTypeName,
  firstError,
  type GraphQLResult,
  graphql,
  predictField,
} from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { FOREST_POINTS, forestGrid, predictionInputs } from '../support/sites.ts'

let db: TestDatabase
let server: TestServer
let batchType: string

beforeAll(async () => {
  ;({ db, server } = await startSeededServer())
  batchType = await batchInputTypeName(server.url)
})

afterAll(() => stopSeededServer({ db, server }))

/** A fresh spore key per test: the daily quota never interferes with what is being tested. */
const sporeKey = async () => (await issueKey(db, 'spore')).key

function expectTooLarge(result: GraphQLResult, submitted: number, tier = 'spore', limit = 10) {
  expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(422)
  expect(result.body.data ?? null).toBeNull()
  const error = firstError(result)
  expect(error.extensions?.code).toBe('batch_too_large')
  expect(error.extensions?.status).toBe(422)
  expect(error.extensions?.details).toEqual({ submitted, tier_limit: limit, tier })
}

function expectRejectedDocument(result: GraphQLResult, pattern: RegExp, code = 'query_too_complex') {
  expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(400)
  expect(result.body.data ?? null).toBeNull()
  expect(firstError(result).message).toMatch(pattern)
  expect(firstError(result).extensions?.code).toBe(code)
}

describe('site predictions per operation are capped at the tier batch size', () => {
  it('10 aliased predicts pass on a spore key; 11 are batch_too_large (submitted 11, tier_limit 10)', async () => {
    const key = await sporeKey()
    const ten = await graphql(server.url, aliasedPredicts(10), { key })
    expect(ten.status).toBe(200)
    expect(Object.keys(ten.body.data)).toHaveLength(10)
    expectTooLarge(await graphql(server.url, aliasedPredicts(11), { key }), 11)
  })

  it('compareMethods counts as one site prediction', async () => {
    const key = await sporeKey()
    const compares = forestGrid(5).map(
      (p, i) =>
        `c${i}: compareMethods(input: { latitude: ${p.latitude}, longitude: ${p.longitude}, speciesCode: "PSME" }) { species { code } }`,
    )
    const predicts = forestGrid(6).map((p, i) => predictField(p, 'speciesCode', `p${i}`))
    expectTooLarge(await graphql(server.url, `{ ${[...compares, ...predicts].join(' ')} }`, { key }), 11)
    const ok = await graphql(server.url, `{ ${[...compares, ...predicts.slice(1)].join(' ')} }`, { key })
    expect(ok.status).toBe(200)
  })

  it('predictBatch sites passed as variables are counted, together with other predictions', async () => {
    const key = await sporeKey()
    const query = `query Mixed($sites: [${batchType}!]!) {
      predictBatch(sites: $sites) { index }
      ${predictField(FOREST_POINTS.coastRange, 'speciesCode', 'single')}
    }`
    expectTooLarge(await graphql(server.url, query, { key, variables: { sites: predictionInputs(10) } }), 11)
    const ok = await graphql(server.url, query, { key, variables: { sites: predictionInputs(9) } })
    expect(ok.status).toBe(200)
    expect(ok.body.data.predictBatch).toHaveLength(9)
  })

  it('two predictBatch fields add up', async () => {
    const key = await sporeKey()
    const query = `query Two($a: [${batchType}!]!, $b: [${batchType}!]!) {
      a: predictBatch(sites: $a) { index }
      b: predictBatch(sites: $b) { index }
    }`
    expectTooLarge(
      await graphql(server.url, query, {
        key,
        variables: { a: predictionInputs(6), b: predictionInputs(6) },
      }),
      12,
    )
  })

  it('a literal list of variables is counted item by item', async () => {
    const key = await sporeKey()
    const names = Array.from({ length: 11 }, (_, i) => `s${i}`)
    const query = `query L(${names.map((n) => `$${n}: ${batchType}!`).join(', ')}) {
      predictBatch(sites: [${names.map((n) => `$${n}`).join(', ')}]) { index }
    }`
    const sites = predictionInputs(11)
    const variables = Object.fromEntries(names.map((n, i) => [n, sites[i]]))
    expectTooLarge(await graphql(server.url, query, { key, variables }), 11)
  })

  it('predictions inside fragments and inline fragments are counted', async () => {
    const key = await sporeKey()
    const fields = forestGrid(11).map((p, i) => predictField(p, 'speciesCode', `p${i}`))
    const named = `query { ...Many } fragment Many on Query { ${fields.join(' ')} }`
    expectTooLarge(await graphql(server.url, named, { key }), 11)
    const inline = `{ ${fields.slice(0, 5).join(' ')} ... on Query { ${fields.slice(5).join(' ')} } }`
    expectTooLarge(await graphql(server.url, inline, { key }), 11)
    const nested = `query { ...A } fragment A on Query { ${fields.slice(0, 5).join(' ')} ...B }
      fragment B on Query { ${fields.slice(5).join(' ')} }`
    expectTooLarge(await graphql(server.url, nested, { key }), 11)
  })

  it('mycel allows 100 aliased predicts and refuses 101', async () => {
    const { key } = await issueKey(db, 'mycel')
    const hundred = await graphql(server.url, aliasedPredicts(100), { key })
    expect(hundred.status).toBe(200)
    expect(Object.keys(hundred.body.data)).toHaveLength(100)
    expectTooLarge(await graphql(server.url, aliasedPredicts(101), { key }), 101, 'mycel', 100)
  })
})

describe('document limits', () => {
  it('depth: a __type query nested deeper than 10 is refused with 400', async () => {
    const nest = (depth: number): string => (depth === 0 ? 'name' : `ofType { ${nest(depth - 1)} }`)
    const deep = `{ __type(name: "Query") { fields { type { ${nest(10)} } } } }`
    expectRejectedDocument(await graphql(server.url, deep), /depth/i)
    const shallow = `{ __type(name: "Query") { fields { type { ${nest(5)} } } } }`
    expect((await graphql(server.url, shallow)).status).toBe(200)
  })

  it('depth: nested inline fragments on a real field count too', async () => {
    const key = await sporeKey()
    const nest = (depth: number): string =>
      depth === 0 ? 'speciesCode' : `... on Prediction { ${nest(depth - 1)} }`
    const deep = `{ ${predictField(FOREST_POINTS.coastRange, nest(12))} }`
    expectRejectedDocument(await graphql(server.url, deep, { key }), /depth/i)
  })

  it('depth: a fragment cycle is refused with 400', async () => {
    const key = await sporeKey()
    const cycle = 'query { ...A } fragment A on Query { species { code } ...B } fragment B on Query { ...A }'
    // A fragment cycle is invalid GraphQL before it is too deep.
    expectRejectedDocument(await graphql(server.url, cycle, { key }), /.+/, 'GRAPHQL_VALIDATION_FAILED')
  })

  it('aliases: 510 aliased fields pass, 511 are refused with 400', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `m${i}: model { version }`).join(' ')} }`
    const ok = await graphql(server.url, aliases(510))
    expect(ok.status).toBe(200)
    expect(Object.keys(ok.body.data)).toHaveLength(510)
    expectRejectedDocument(await graphql(server.url, aliases(511)), /alias/i)
  })

  it('aliases: more than 510 aliases of __typename are refused too', async () => {
    const many = `{ ${Array.from({ length: 600 }, (_, i) => `t${i}: __typename`).join(' ')} }`
    expectRejectedDocument(await graphql(server.url, many), /alias/i)
  })

  it('tokens: a document of more than 30 000 tokens is refused with 400', async () => {
    const huge = `{ ${'__typename '.repeat(30_001)} }`
    expectRejectedDocument(await graphql(server.url, huge), /token/i)
    // ~1 000 tokens: well inside the limit
    const fine = `{ ${Array.from({ length: 150 }, (_, i) => `m${i}: model { version }`).join(' ')} }`
    expect((await graphql(server.url, fine)).status).toBe(200)
  })

  it('document limits apply before any key or quota is looked at', async () => {
    const nest = (depth: number): string => (depth === 0 ? 'name' : `ofType { ${nest(depth - 1)} }`)
    const deep = `{ species { code } __type(name: "Query") { fields { type { ${nest(10)} } } } }`
    expectRejectedDocument(await graphql(server.url, deep), /depth/i)
  })
})
