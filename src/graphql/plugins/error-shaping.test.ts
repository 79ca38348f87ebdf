import fc from 'fast-check'
import { createSchema, createYoga } from 'graphql-yoga'
import { describe, expect, it } from 'vitest'
import { recordingLogger, requestContext } from '../../../test/support/fakes.ts'
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
import { useErrorShaping } from './error-shaping.ts'

const typeDefs = /* GraphQL */ `
  type Query {
    ok: String
    fails: String
    count(n: Int!): Int
  }
`

/** A yoga whose `fails` field throws whatever the test hands it; only error shaping is plugged in. */
function gateway(thrown: () => unknown) {
  let throwing = thrown
  const { logger, entries } = recordingLogger()
  const yoga = createYoga<{ requestContext: RequestContext }, GraphQLContext>({
    schema: createSchema<GraphQLContext & { requestContext: RequestContext }>({
      typeDefs,
      resolvers: {
        Query: {
          ok: () => 'fine',
          fails: () => {
            throw throwing()
          },
          count: (_root, args: { n: number }) => args.n,
        },
      },
    }),
    logging: false,
    landingPage: false,
    graphiql: false,
    maskedErrors: false,
    context: ({ requestContext }) => ({
      request: requestContext,
      apiKey: undefined,
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
    plugins: [useErrorShaping(logger)],
  })

  async function query(document: string, variables?: Record<string, unknown>) {
    const context = requestContext('req-shape-9', '/graphql')
    const response = await yoga.fetch(
      'http://localhost/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: document, variables }),
      },
      { requestContext: context },
    )
    const text = await response.text()
    const body = JSON.parse(text) as {
      data?: Record<string, unknown> | null
      errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[]
    }
    return { status: response.status, headers: response.headers, text, body, context }
  }

  /** From now on `fails` throws this instead; the log starts afresh. */
  function throwNext(next: () => unknown) {
    throwing = next
    entries.length = 0
  }

  return { query, logs: entries, throwNext }
}

describe('useErrorShaping', () => {
  it('masks an unexpected error as internal_error (500): no message, no stack, but logged', async () => {
    const bug = new Error('duplicate key violates "api_keys_pkey" at postgres://app:hunter2@db')
    const { query, logs } = gateway(() => bug)
    const { status, body, text, context } = await query('{ fails }')

    expect(status).toBe(500)
    expect(body).toEqual({
      data: { fails: null },
      errors: [
        {
          message: 'Unexpected server failure',
          locations: [{ line: 1, column: 3 }],
          path: ['fails'],
          extensions: { code: 'internal_error', status: 500 },
        },
      ],
    })
    expect(text).not.toMatch(/hunter2|api_keys|stack|at .*\.ts/)
    expect(context.errorCode).toBe('internal_error')
    expect(logs).toEqual([
      {
        level: 'error',
        fields: { requestId: 'req-shape-9', err: bug, path: ['fails'] },
        message: 'unexpected error',
      },
    ])
  })

  it('masks whatever else a resolver throws, never showing it', async () => {
    const { query, logs, throwNext } = gateway(() => undefined)
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ minLength: 1 }).map((message) => new Error(`secret:${message}`)),
          fc.string({ minLength: 1 }).map((message) => new TypeError(`secret:${message}`)),
          fc.string({ minLength: 1 }).map((message) => `secret:${message}`),
          fc.constantFrom(null, undefined, 42, { secret: true }),
        ),
        async (thrown) => {
          throwNext(() => thrown)
          const { status, body, text } = await query('{ fails }')
          expect(status).toBe(500)
          expect(body.errors?.map((e) => [e.message, e.extensions])).toEqual([
            ['Unexpected server failure', { code: 'internal_error', status: 500 }],
          ])
          expect(text).not.toContain('secret')
          expect(logs).toHaveLength(1)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('keeps a domain error’s code, message, status and details, with its HTTP status', async () => {
    const species = apiError(
      'invalid_species',
      { code: 'PSMA', closest: { code: 'PSME', commonName: 'Douglas-fir' } },
      { details: { closest_code: 'PSME' } },
    )
    const { query, logs } = gateway(() => species)
    const { status, body, context } = await query('{ fails }')

    expect(status).toBe(422)
    expect(body.errors).toEqual([
      {
        message: 'Species code "PSMA" is not recognized. Did you mean PSME (Douglas-fir)?',
        locations: [{ line: 1, column: 3 }],
        path: ['fails'],
        extensions: { code: 'invalid_species', status: 422, details: { closest_code: 'PSME' } },
      },
    ])
    expect(context.errorCode).toBe('invalid_species')
    expect(logs).toEqual([])
  })

  it('reports a data store that is away as 503 service_unavailable with Retry-After', async () => {
    const { query, logs } = gateway(() => new StoreUnavailableError(new Error('ECONNRESET')))
    const { status, body, headers } = await query('{ fails }')
    expect(status).toBe(503)
    expect(body.errors?.[0]).toMatchObject({
      message: 'The data store is temporarily unavailable; retry shortly',
      extensions: { code: 'service_unavailable', status: 503 },
    })
    expect(headers.get('retry-after')).toBe('5')
    expect(logs).toEqual([])
  })

  it('answers 200 when some field answered, each error still saying its own status', async () => {
    const { query } = gateway(() => apiError('no_nearby_data'))
    const { status, body } = await query('{ ok fails }')
    expect(status).toBe(200)
    expect(body.data).toEqual({ ok: 'fine', fails: null })
    expect(body.errors?.[0]?.extensions).toEqual({ code: 'no_nearby_data', status: 422 })
  })

  it('leaves GraphQL’s own errors about the variables as they are, unlogged', async () => {
    const { query, logs } = gateway(() => new Error('not reached'))
    const { status, body } = await query('query ($n: Int!) { count(n: $n) }', { n: 'seven' })
    expect(status).toBe(400)
    expect(body.errors?.[0]?.message).toMatch(
      /^Variable "\$n" got invalid value "seven"; Int cannot represent/,
    )
    expect(body.errors?.[0]?.extensions?.code).not.toBe('internal_error')
    expect(logs).toEqual([])
  })

  it('changes nothing in a result without errors', async () => {
    const { query, logs } = gateway(() => new Error('not reached'))
    const { status, body, context } = await query('{ ok }')
    expect(status).toBe(200)
    expect(body).toEqual({ data: { ok: 'fine' } })
    expect(context.errorCode).toBeUndefined()
    expect(logs).toEqual([])
  })
})
