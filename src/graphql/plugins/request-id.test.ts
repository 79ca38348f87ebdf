import fc from 'fast-check'
import { createSchema, createYoga } from 'graphql-yoga'
import { describe, expect, it } from 'vitest'
import { requestContext } from '../../../test/support/fakes.ts'
import { resolveRequestId } from '../../http/request-id.ts'
import type { RequestContext } from '../../observability/request-context.ts'
import { useRequestId } from './request-id.ts'

/** A yoga with a one-field schema and nothing but the plugin under test. */
const yoga = createYoga<{ requestContext?: RequestContext }>({
  schema: createSchema({
    typeDefs: 'type Query { hello: String! }',
    resolvers: { Query: { hello: () => 'world' } },
  }),
  logging: false,
  landingPage: false,
  graphiql: false,
  plugins: [useRequestId()],
})

function post(body: string, requestId?: string, method = 'POST') {
  return yoga.fetch(
    'http://localhost/graphql',
    {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body,
    },
    requestId === undefined ? {} : { requestContext: requestContext(requestId, '/graphql') },
  )
}

describe('useRequestId', () => {
  it('echoes the front door’s request id on a successful response', async () => {
    const response = await post('{"query":"{ hello }"}', 'req-abc-123')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ data: { hello: 'world' } })
    expect(response.headers.get('request-id')).toBe('req-abc-123')
  })

  it.each([
    ['a document that does not parse', '{"query":"{ hello "}', 'POST', 400],
    ['a field the schema does not have', '{"query":"{ goodbye }"}', 'POST', 400],
    ['a body that is not JSON', '{"query":', 'POST', 400],
    ['a method GraphQL does not serve', '{"query":"{ hello }"}', 'PUT', 405],
  ])('echoes it on errors yoga answers itself: %s', async (_case, body, method, status) => {
    const response = await post(body, 'req-err-7', method)
    expect(response.status).toBe(status)
    expect(response.headers.get('request-id')).toBe('req-err-7')
  })

  it('adds nothing when no request context came with the request', async () => {
    const response = await post('{"query":"{ hello }"}')
    expect(response.status).toBe(200)
    expect(response.headers.get('request-id')).toBeNull()
  })

  it('echoes any id the front door accepts, exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/), async (sent) => {
        const id = resolveRequestId(sent)
        expect(id).toBe(sent)
        const response = await post('{"query":"{ hello }"}', id)
        expect(response.headers.get('request-id')).toBe(sent)
      }),
      { numRuns: 40 },
    )
  })
})
