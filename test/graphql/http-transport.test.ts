import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGraphQLHttpHandler, negotiateMediaType } from '../../src/graphql/http-transport.ts'
import type { Gateway, GatewayServerContext } from '../../src/graphql/yoga.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { createRequestContext } from '../../src/observability/request-context.ts'
import { predictInput } from '../support/graphql-helpers.ts'
import { type SeededServer, startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import { FOREST_POINTS, OUTSIDE_POINTS, predictionInputs } from '../support/sites.ts'

/**
 * POST /graphql JSON requests are executed by src/graphql/http-transport.ts without yoga's Fetch
 * bridge. Sending the same request with a chunked body (no Content-Length) always takes yoga's own
 * path, so each case here is answered both ways and the answers must be identical.
 */

interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function send(
  url: string,
  body: string,
  headers: Record<string, string>,
  transfer: 'content-length' | 'chunked',
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}/graphql`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      )
    })
    outgoing.on('error', reject)
    if (transfer === 'content-length') outgoing.setHeader('content-length', Buffer.byteLength(body))
    else outgoing.setHeader('transfer-encoding', 'chunked')
    outgoing.end(body)
  })
}

/** Headers that describe the answer (transport framing and clocks left out). */
const COMPARED_HEADERS = ['content-type', 'request-id', 'retry-after', 'www-authenticate', 'allow', 'accept']

function comparable(response: RawResponse) {
  const headers = Object.fromEntries(
    COMPARED_HEADERS.filter((name) => response.headers[name] !== undefined).map((name) => [
      name,
      response.headers[name],
    ]),
  )
  const rateLimitHeaders = Object.keys(response.headers)
    .filter((name) => name.includes('ratelimit'))
    .sort()
  let body: unknown = response.body
  try {
    body = JSON.parse(response.body)
  } catch {
    // not JSON: compare the text
  }
  return { status: response.status, headers, rateLimitHeaders, body }
}

const PREDICT = `query Predict($input: PredictionInput!) {
  predict(input: $input) {
    speciesCode plantingMethod
    site { latitude longitude matchedLatitude matchDistanceKm region }
    predictions { horizonYears survivalProbability riskFactors { factor impact magnitude } }
  }
}`
const PREDICT_BATCH = `query Batch($sites: [BatchSiteInput!]!) {
  predictBatch(sites: $sites) {
    index
    prediction { speciesCode site { matchedLatitude region } predictions { horizonYears survivalProbability riskFactors { factor impact magnitude } } }
    error { code message }
  }
}`
const forestInput = {
  latitude: FOREST_POINTS.coastRange.latitude,
  longitude: FOREST_POINTS.coastRange.longitude,
  speciesCode: 'PSME',
  plantingMethod: 'MANUAL',
}

let running: SeededServer

beforeAll(async () => {
  running = await startSeededServer({ quota: 'memory' })
}, 120_000)

afterAll(async () => {
  await stopSeededServer(running)
})

interface Case {
  name: string
  body: string
  headers?: Record<string, string>
  /** Send no X-API-Key. */
  anonymous?: boolean
  /** The status both must answer with, where the case is about a successful answer. */
  status?: number
}

const json = (value: unknown) => JSON.stringify(value)

const CASES: Case[] = [
  { name: 'a prediction', body: json({ query: PREDICT, variables: { input: forestInput } }) },
  {
    name: 'a prediction asking for application/graphql-response+json',
    body: json({ query: PREDICT, variables: { input: forestInput } }),
    headers: { accept: 'application/graphql-response+json' },
  },
  {
    name: 'a prediction asking for application/json',
    body: json({ query: PREDICT, variables: { input: forestInput }, operationName: 'Predict' }),
    headers: { accept: 'application/json' },
  },
  {
    name: 'a prediction with a preference list',
    body: json({ query: PREDICT, variables: { input: forestInput } }),
    headers: { accept: 'application/json;q=0.9, application/graphql-response+json' },
  },
  {
    name: 'a prediction whose client accepts nothing JSON',
    body: json({ query: PREDICT, variables: { input: forestInput } }),
    headers: { accept: 'text/html' },
  },
  {
    name: 'a prediction with a literal input and null extras',
    body: json({
      query: `{ predict(input: ${predictInput(FOREST_POINTS.westCascades)}) { speciesCode predictions { horizonYears survivalProbability } } }`,
      variables: null,
      operationName: null,
      extensions: null,
    }),
  },
  {
    name: 'a domain error (outside coverage)',
    body: json({
      query: PREDICT,
      variables: { input: { ...forestInput, latitude: 40.0, longitude: -100.0 } },
    }),
    headers: { accept: 'application/graphql-response+json' },
  },
  {
    name: 'an argument the zod plugin rejects',
    body: json({ query: PREDICT, variables: { input: { ...forestInput, latitude: 95 } } }),
  },
  {
    name: 'a variable of the wrong type (graphql-response+json)',
    body: json({ query: PREDICT, variables: { input: { ...forestInput, latitude: 'north' } } }),
    headers: { accept: 'application/graphql-response+json' },
  },
  {
    name: 'a variable of the wrong type (application/json)',
    body: json({ query: PREDICT, variables: { input: { ...forestInput, latitude: 'north' } } }),
    headers: { accept: 'application/json' },
  },
  {
    // Long enough to be written piece by piece; one site outside the coverage answers an item error.
    name: 'a batch of 120 sites, one outside the coverage',
    status: 200,
    body: json({
      query: PREDICT_BATCH,
      variables: {
        sites: [
          ...predictionInputs(119, { plantingMethod: 'MANUAL' }),
          { ...forestInput, ...OUTSIDE_POINTS.boise },
        ],
      },
    }),
  },
  { name: 'no key', body: json({ query: PREDICT, variables: { input: forestInput } }), anonymous: true },
  { name: 'a public operation without a key', body: json({ query: '{ __typename }' }), anonymous: true },
  { name: 'invalid JSON', body: '{"query": ' },
  { name: 'a JSON array (batching is off)', body: json([{ query: '{ __typename }' }]) },
  { name: 'a JSON string', body: json('{ __typename }') },
  { name: 'an unexpected parameter', body: json({ query: '{ __typename }', persisted: true }) },
  { name: 'a query that is not a string', body: json({ query: 42 }) },
  { name: 'variables as an array', body: json({ query: '{ __typename }', variables: [1] }) },
  { name: 'a syntax error', body: json({ query: '{ predict(' }) },
  { name: 'an unknown field', body: json({ query: '{ nonsense }' }) },
  {
    name: 'an unknown operation name',
    body: json({ query: PREDICT, variables: { input: forestInput }, operationName: 'Other' }),
  },
  {
    name: 'a document too deep',
    body: json({
      query:
        '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } }',
    }),
    headers: { accept: 'application/graphql-response+json' },
  },
  {
    name: 'a mutation of a field the Mutation type lacks',
    body: json({ query: 'mutation { x }' }),
  },
  {
    // Executed (no surveys stored for this key): not_found both ways, nothing written.
    name: 'a mutation',
    status: 404,
    body: json({ query: 'mutation { deleteSurveyPlot(plotId: "absent") }' }),
  },
]

describe('POST /graphql answered directly equals yoga’s answer', () => {
  it.each(CASES)('$name', async ({ body, headers = {}, anonymous, status }) => {
    const requestHeaders = {
      'content-type': 'application/json',
      'request-id': 'req_transport_case',
      ...(anonymous ? {} : { 'x-api-key': running.key }),
      ...headers,
    }
    const direct = await send(running.server.url, body, requestHeaders, 'content-length')
    const viaYoga = await send(running.server.url, body, requestHeaders, 'chunked')
    expect(comparable(direct)).toEqual(comparable(viaYoga))
    expect(direct.body).toBe(viaYoga.body)
    if (direct.body !== '')
      expect(direct.headers['content-length']).toBe(String(Buffer.byteLength(direct.body)))
    if (status !== undefined) expect(direct.status).toBe(status)
    expect(direct.status).toBeLessThan(500)
  })
})

describe('which requests skip yoga', () => {
  it('executes a well-formed request itself and hands a malformed one to yoga with its body', async () => {
    // The same handler over the running gateway, with yoga's buffered-body entry point counted.
    const gateway = running.server.app.gateway
    const fallbacks: string[] = []
    const counted = Object.assign(
      (req: IncomingMessage, res: ServerResponse, context: GatewayServerContext) =>
        gateway(req, res, context),
      {
        getEnveloped: gateway.getEnveloped,
        fetch: (url: string, init: RequestInit, context: GatewayServerContext) => {
          fallbacks.push(String(init.body))
          return gateway.fetch(url, init, context)
        },
      },
    ) as unknown as Gateway
    const handle = createGraphQLHttpHandler(counted, createLogger({ level: 'silent' }))
    const server = createServer((req, res) =>
      handle(
        req,
        res,
        new URL(req.url ?? '/', 'http://localhost'),
        createRequestContext('req_counted', '/graphql'),
      ),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const headers = { 'content-type': 'application/json', 'x-api-key': running.key }
      const ok = await send(
        url,
        json({ query: PREDICT, variables: { input: forestInput } }),
        headers,
        'content-length',
      )
      expect(ok.status).toBe(200)
      expect(JSON.parse(ok.body).data.predict.speciesCode).toBe('PSME')
      expect(ok.headers['request-id']).toBe('req_counted')
      expect(fallbacks).toEqual([])
      const bad = await send(url, '{"query": ', headers, 'content-length')
      expect(bad.status).toBe(400)
      expect(fallbacks).toEqual(['{"query": '])
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('lets yoga answer CORS requests', async () => {
    const response = await send(
      running.server.url,
      json({ query: '{ __typename }' }),
      { 'content-type': 'application/json', origin: 'https://dashboard.example' },
      'content-length',
    )
    expect(response.status).toBe(200)
    expect(response.headers['access-control-allow-origin']).toBe('https://dashboard.example')
  })
})

describe('negotiateMediaType (yoga’s order)', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['application/graphql-response+json', 'application/graphql-response+json'],
    ['application/json', 'application/json'],
    ['application/graphql-response+json, application/json', 'application/graphql-response+json'],
    ['application/json, application/graphql-response+json', 'application/json'],
    ['application/json; charset=latin1', undefined],
    ['application/json; charset=latin1, */*', 'application/json'],
    ['text/html', undefined],
    ['text/event-stream', undefined],
  ] as const)('%s → %s', (accept, expected) => {
    expect(negotiateMediaType(accept)).toBe(expected)
  })
})
