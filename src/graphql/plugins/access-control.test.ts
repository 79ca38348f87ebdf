import { createSchema, createYoga } from 'graphql-yoga'
import { describe, expect, it } from 'vitest'
import {
  accessControlOver,
  FakeKeyDirectory,
  recordingLogger,
  requestContext,
  TIERS,
} from '../../../test/support/fakes.ts'
import type { CalibrationService } from '../../domain/calibration/calibration-service.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import { apiError, StoreUnavailableError } from '../../domain/errors.ts'
import type { HealthMonitor } from '../../domain/health.ts'
import type { JobService } from '../../domain/jobs/job-service.ts'
import type { KeyService } from '../../domain/key-service.ts'
import type { DefaultVersions } from '../../domain/models/default-version.ts'
import type { ModelRegistry } from '../../domain/models/model-registry.ts'
import type { PredictionService } from '../../domain/prediction-service.ts'
import type { ReportLinks } from '../../domain/reports/report-links.ts'
import type { StockingPlanService } from '../../domain/stocking/stocking-service.ts'
import type { SurveyService } from '../../domain/surveys/survey-service.ts'
import type { SurveyUploadService } from '../../domain/surveys/survey-upload-service.ts'
import type { SurveyUploadTickets } from '../../domain/surveys/survey-upload-tickets.ts'
import type { SurvivalMapService } from '../../domain/survival-map.ts'
import type { RequestContext } from '../../observability/request-context.ts'
import type { GraphQLContext } from '../schema/context.ts'
import { useAccessControl } from './access-control.ts'
import { useErrorShaping } from './error-shaping.ts'

const NOW = new Date('2026-11-22T12:00:00Z')
/** The next midnight UTC after NOW, when the day's count starts again. */
const RESET_AT = '2026-11-23T00:00:00.000Z'

/**
 * Stand-ins with the gateway's root field names, since the plugin goes by them: `species`, `predict`
 * and `predictBatch` need a key; `health` does not. `species` answers the caller's key id, to show
 * the plugin put the caller in the context; `viewer` answers the day's count from the quota status it
 * put there; `coverage` fails as a domain error does. `store` stands for a write (the survey mutations)
 * and answers the caller's key id.
 */
const typeDefs = /* GraphQL */ `
  type Query {
    species: String
    viewer: Int
    coverage: String
    predict(latitude: Float): Float
    predictBatch(sites: [Int!]!): Int
    health: String
  }
  type Mutation {
    store: String
  }
`

function gateway(directory = new FakeKeyDirectory()) {
  let resolved = 0
  const { logger, entries } = recordingLogger()
  const yoga = createYoga<{ requestContext: RequestContext }, GraphQLContext>({
    schema: createSchema<GraphQLContext & { requestContext: RequestContext }>({
      typeDefs,
      resolvers: {
        Query: {
          species: (_root, _args, ctx) => {
            resolved += 1
            return ctx.caller?.keyId ?? null
          },
          viewer: (_root, _args, ctx) => ctx.quota?.used ?? null,
          coverage: () => {
            throw apiError('outside_coverage')
          },
          predict: () => 0.5,
          predictBatch: (_root, args: { sites: number[] }) => args.sites.length,
          health: (_root, _args, ctx) => (ctx.caller ? 'with caller' : 'ok'),
        },
        Mutation: {
          store: (_root, _args, ctx) => {
            resolved += 1
            return ctx.caller?.keyId ?? null
          },
        },
      },
    }),
    logging: false,
    landingPage: false,
    graphiql: false,
    maskedErrors: false,
    // As createGateway does: the front door's context, and the key as sent.
    context: ({ requestContext, request }) => ({
      request: requestContext,
      apiKey: request.headers.get('x-api-key') ?? undefined,
      caller: null,
      quota: null,
      // Not reached by these resolvers.
      predictions: {} as PredictionService,
      plans: {} as StockingPlanService,
      maps: {} as SurvivalMapService,
      catalogue: {} as Catalogue,
      health: {} as HealthMonitor,
      keys: {} as KeyService,
      surveys: {} as SurveyService,
      surveyUploads: {} as SurveyUploadService,
      surveyUploadTickets: {} as SurveyUploadTickets,
      reportLinks: {} as ReportLinks,
      jobs: {} as JobService,
      calibrations: {} as CalibrationService,
      defaultVersions: {} as DefaultVersions,
      models: {} as ModelRegistry,
    }),
    plugins: [useErrorShaping(logger), useAccessControl(accessControlOver(directory, () => NOW))],
  })

  async function query(
    document: string,
    options: { key?: string; variables?: Record<string, unknown>; operationName?: string } = {},
  ) {
    const context = requestContext('req-gql-1', '/graphql')
    const response = await yoga.fetch(
      'http://localhost/graphql',
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          ...(options.key ? { 'x-api-key': options.key } : {}),
        },
        body: JSON.stringify({
          query: document,
          variables: options.variables,
          operationName: options.operationName,
        }),
      },
      { requestContext: context },
    )
    const body = (await response.json()) as {
      data?: Record<string, unknown> | null
      errors?: { message: string; extensions?: Record<string, unknown> }[]
      extensions?: Record<string, unknown>
    }
    return { status: response.status, headers: response.headers, body, context }
  }

  return { query, directory, logs: entries, resolverCalls: () => resolved }
}

describe('useAccessControl', () => {
  it('refuses an operation that needs a key when none is sent: 401 invalid_api_key, nothing resolved', async () => {
    const { query, resolverCalls } = gateway()
    const { status, body, context } = await query('query Mine { species }')
    expect(status).toBe(401)
    expect(body).toEqual({
      errors: [
        {
          message: 'A valid API key is required in the X-API-Key header',
          extensions: { code: 'invalid_api_key', status: 401 },
        },
      ],
    })
    expect(resolverCalls()).toBe(0)
    expect(context).toMatchObject({
      errorCode: 'invalid_api_key',
      operation: 'Mine',
      graphqlField: 'species',
    })
  })

  it.each([
    { sent: 'a malformed key', keyFor: () => 'tsp_live_short', status: 401, code: 'invalid_api_key' },
    {
      sent: 'an unknown key',
      keyFor: () => `tsp_live_${'a'.repeat(32)}`,
      status: 401,
      code: 'invalid_api_key',
    },
    {
      sent: 'a revoked key',
      keyFor: (d: FakeKeyDirectory) => d.issue('mycel', 'revoked').key,
      status: 401,
      code: 'invalid_api_key',
    },
    {
      sent: 'a rotated key',
      keyFor: (d: FakeKeyDirectory) => d.issue('mycel', 'rotated').key,
      status: 401,
      code: 'invalid_api_key',
    },
    {
      sent: 'a deactivated key',
      keyFor: (d: FakeKeyDirectory) => d.issue('mycel', 'inactive').key,
      status: 403,
      code: 'key_inactive',
    },
  ])('refuses $sent with $status $code', async ({ keyFor, status, code }) => {
    const { query, directory, resolverCalls } = gateway()
    const result = await query('{ species }', { key: keyFor(directory) })
    expect(result.status).toBe(status)
    expect(result.body.data).toBeUndefined()
    expect(result.body.errors?.[0]?.extensions).toMatchObject({ code, status })
    expect(resolverCalls()).toBe(0)
  })

  it('admits a good key, puts the caller in the context and counts the request', async () => {
    const { query, directory } = gateway()
    const { key, id } = directory.issue('spore')
    const first = await query('{ species }', { key })
    const second = await query('{ species }', { key })

    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      data: { species: id },
      extensions: { rateLimit: { limit: 100, remaining: 99, resetAt: RESET_AT } },
    })
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99')
    expect(second.headers.get('x-ratelimit-remaining')).toBe('98')
    expect(second.headers.get('ratelimit-policy')).toBe('"daily";q=100;w=86400')
    expect(second.context).toMatchObject({ keyId: id, tier: 'spore', operation: 'anonymous' })
  })

  it('admits a mutation as it does a query: refused without a key, admitted and counted once with one', async () => {
    const { query, directory, resolverCalls } = gateway()
    const refused = await query('mutation Write { store }')
    expect(refused.status).toBe(401)
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_api_key' })
    expect(resolverCalls()).toBe(0)
    expect(refused.context).toMatchObject({ operation: 'Write', graphqlField: 'store' })

    const { key, id } = directory.issue('spore')
    const admitted = await query('mutation { store }', { key })
    expect(admitted.body).toEqual({
      data: { store: id },
      extensions: { rateLimit: { limit: 100, remaining: 99, resetAt: RESET_AT } },
    })
    // Two writes in one operation are still one request.
    const twice = await query('mutation { a: store b: store }', { key })
    expect(twice.body.data).toEqual({ a: id, b: id })
    expect(twice.headers.get('x-ratelimit-remaining')).toBe('98')
  })

  it('lets public operations through without a key and never counts them', async () => {
    const { query, directory } = gateway()
    const { key } = directory.issue('spore')
    for (const document of ['{ health }', '{ __typename }', '{ __schema { queryType { name } } }']) {
      const anonymous = await query(document)
      expect(anonymous.status, document).toBe(200)
      expect(anonymous.headers.get('x-ratelimit-limit')).toBeNull()
    }
    const keyed = await query('{ health }', { key })
    expect(keyed.body).toEqual({ data: { health: 'ok' } })
    expect(directory.lookups).toBe(0)

    expect((await query('{ species }', { key })).headers.get('x-ratelimit-remaining')).toBe('99')
  })

  it('needs a key as soon as one root field does, even next to public ones', async () => {
    const { query } = gateway()
    const { status, body } = await query('{ health species }')
    expect(status).toBe(401)
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_api_key' })
  })

  it('counts aliases and batch lists against the tier’s batch size', async () => {
    const { query, directory } = gateway()
    const { key } = directory.issue('spore')
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `p${i}: predict(latitude: ${i})`).join(' ')} }`

    const ten = await query(aliases(10), { key })
    expect(ten.status).toBe(200)
    expect(Object.keys(ten.body.data ?? {})).toHaveLength(10)

    const eleven = await query(aliases(11), { key })
    expect(eleven.status).toBe(422)
    expect(eleven.body).toEqual({
      errors: [
        {
          message: 'This batch has 11 sites; the spore tier allows up to 10 per call',
          extensions: {
            code: 'batch_too_large',
            status: 422,
            details: { submitted: 11, tier_limit: 10, tier: 'spore' },
          },
        },
      ],
      // Admitted, so counted: the refusal says where the caller stands like any keyed response.
      extensions: { rateLimit: { limit: 100, remaining: 98, resetAt: RESET_AT } },
    })
    expect(eleven.headers.get('x-ratelimit-remaining')).toBe('98')

    const batch = 'query ($s: [Int!]!) { predict predictBatch(sites: $s) }'
    expect((await query(batch, { key, variables: { s: [1, 2, 3, 4, 5, 6, 7, 8, 9] } })).status).toBe(200)
    const over = await query(batch, { key, variables: { s: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } })
    expect(over.body.errors?.[0]?.extensions).toMatchObject({ details: { submitted: 11 } })
  })

  it('answers 429 rate_limit_exceeded with Retry-After once the day’s requests are used', async () => {
    const directory = new FakeKeyDirectory([{ ...TIERS.mycel, dailyRequestLimit: 2 }])
    const { query } = gateway(directory)
    const { key } = directory.issue('mycel')
    await query('{ species }', { key })
    await query('{ species }', { key })

    const refused = await query('{ species }', { key })
    expect(refused.status).toBe(429)
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'rate_limit_exceeded', status: 429 })
    expect(refused.headers.get('retry-after')).toBe('43200')
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(refused.body.extensions).toEqual({ rateLimit: { limit: 2, remaining: 0, resetAt: RESET_AT } })
  })

  describe('extensions.rateLimit', () => {
    it('is on every admitted response, in GitHub’s shape, and follows the day’s count', async () => {
      const { query, directory } = gateway()
      const { key } = directory.issue('mycel')
      const first = await query('{ viewer }', { key })
      const second = await query('query Both { species viewer }', { key })
      expect(first.body).toEqual({
        data: { viewer: 1 },
        extensions: { rateLimit: { limit: 10_000, remaining: 9999, resetAt: RESET_AT } },
      })
      expect(second.body.data).toMatchObject({ viewer: 2 })
      expect(second.body.extensions).toEqual({
        rateLimit: { limit: 10_000, remaining: 9998, resetAt: RESET_AT },
      })
      // The headers say the same; `http` itself never reaches the body.
      expect(second.headers.get('x-ratelimit-remaining')).toBe('9998')
      expect(second.headers.get('x-ratelimit-reset')).toBe(String(Date.parse(RESET_AT) / 1000))
    })

    it('is on a response whose fields failed after admission, next to the errors', async () => {
      const { query, directory } = gateway()
      const { key } = directory.issue('spore')
      const { status, body } = await query('{ species coverage }', { key })
      expect(status).toBe(200)
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'outside_coverage' })
      expect(body.extensions).toEqual({ rateLimit: { limit: 100, remaining: 99, resetAt: RESET_AT } })

      const failed = await query('{ coverage }', { key })
      expect(failed.status).toBe(422)
      expect(failed.body.extensions).toEqual({
        rateLimit: { limit: 100, remaining: 98, resetAt: RESET_AT },
      })
    })

    it('has null limit and remaining for the unlimited hypha tier', async () => {
      const { query, directory } = gateway()
      const { key } = directory.issue('hypha')
      await query('{ species }', { key })
      const { body, headers } = await query('{ viewer }', { key })
      expect(body).toEqual({
        data: { viewer: 2 },
        extensions: { rateLimit: { limit: null, remaining: null, resetAt: RESET_AT } },
      })
      expect(headers.get('x-ratelimit-limit')).toBe('unlimited')
    })

    it('is absent from public operations, with or without a key', async () => {
      const { query, directory } = gateway()
      const { key } = directory.issue('spore')
      for (const document of ['{ health }', '{ __typename }', '{ __schema { queryType { name } } }']) {
        for (const sent of [undefined, key]) {
          const { body } = await query(document, { key: sent })
          expect(body.extensions, `${document} ${sent ? 'with' : 'without'} a key`).toBeUndefined()
        }
      }
    })

    it('is absent when the caller was not admitted: no key, a bad key, the key store away', async () => {
      const { query, directory } = gateway()
      expect((await query('{ species }')).body.extensions).toBeUndefined()
      const inactive = directory.issue('mycel', 'inactive').key
      expect((await query('{ species }', { key: inactive })).body.extensions).toBeUndefined()
      const { key } = directory.issue('spore')
      directory.failure = new StoreUnavailableError(new Error('ECONNREFUSED'))
      const away = await query('{ species }', { key })
      expect(away.status).toBe(503)
      expect(away.body.extensions).toBeUndefined()
    })
  })

  it('answers 503 service_unavailable with Retry-After while the key store is away', async () => {
    const { query, directory } = gateway()
    const { key } = directory.issue('spore')
    directory.failure = new StoreUnavailableError(new Error('ECONNREFUSED'))
    const { status, body, headers } = await query('{ species }', { key })
    expect(status).toBe(503)
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'service_unavailable', status: 503 })
    expect(headers.get('retry-after')).toBe('5')
  })

  /** Error shaping, registered first as in createGateway, masks it: no SQL or hosts reach the client. */
  it('masks an unexpected failure of the key store as internal_error and logs it', async () => {
    const { query, directory, logs } = gateway()
    const { key } = directory.issue('spore')
    directory.failure = new Error('relation "api_keys" does not exist')
    const { status, body } = await query('{ species }', { key })
    expect(status).toBe(500)
    expect(body.errors?.[0]).toMatchObject({
      message: 'Unexpected server failure',
      extensions: { code: 'internal_error' },
    })
    expect(logs).toHaveLength(1)
  })
})
