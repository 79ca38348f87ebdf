import { forestGrid } from './sites.ts'

/** A GraphQL response body; tests read into it freely. */
// biome-ignore lint/suspicious/noExplicitAny: response shapes vary per query in tests
export type GraphQLBody = { data?: any; errors?: any[] }

/** POSTs a GraphQL operation to `<url>/graphql`; returns status, headers and parsed body. */
export async function graphql(
  url: string,
  query: string,
  options: { key?: string; variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: GraphQLBody }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...(options.key ? { 'x-api-key': options.key } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ query, variables: options.variables }),
  })
  return { status: response.status, headers: response.headers, body: await response.json() }
}

export type GraphQLResult = Awaited<ReturnType<typeof graphql>>

export interface GraphQLErrorBody {
  message: string
  path?: (string | number)[]
  extensions?: { code?: string; status?: number; details?: Record<string, unknown>; [key: string]: unknown }
}

/** The first error of a response, failing loudly when there is none. */
export function firstError(result: GraphQLResult): GraphQLErrorBody {
  const error = result.body.errors?.[0] as GraphQLErrorBody | undefined
  if (!error) throw new Error(`expected an error, got ${JSON.stringify(result.body).slice(0, 500)}`)
  return error
}

export interface PredictArgs {
  latitude: number
  longitude: number
  speciesCode?: string
  /** GraphQL enum name (MANUAL, DRONE_SEEDED) for `predict`. */
  plantingMethod?: string
  horizons?: number[]
}

/** A `predict(input: {...})` argument literal; the planting method is written as an enum value. */
export function predictInput(args: PredictArgs): string {
  const parts = [
    `latitude: ${args.latitude}`,
    `longitude: ${args.longitude}`,
    `speciesCode: ${JSON.stringify(args.speciesCode ?? 'PSME')}`,
    `plantingMethod: ${args.plantingMethod ?? 'MANUAL'}`,
  ]
  if (args.horizons) parts.push(`horizons: [${args.horizons.join(', ')}]`)
  return `{ ${parts.join(', ')} }`
}

/** One `predict` field, optionally aliased, selecting `selection`. */
export function predictField(args: PredictArgs, selection = 'speciesCode', alias?: string): string {
  return `${alias ? `${alias}: ` : ''}predict(input: ${predictInput(args)}) { ${selection} }`
}

/** An operation with `count` aliased predicts at distinct forest points. */
export function aliasedPredicts(count: number, selection = 'speciesCode'): string {
  const fields = forestGrid(count).map((point, index) => predictField(point, selection, `p${index}`))
  return `query Aliased { ${fields.join('\n')} }`
}

export const BATCH_QUERY = `query Batch($sites: [PredictionInput!]!) {
  predictBatch(sites: $sites) {
    index
    prediction { speciesCode plantingMethod site { latitude longitude matchedLatitude } }
    error { code message details }
  }
}`

/**
 * The batch operation. The variable type follows the schema's argument type, so this keeps working
 * whichever input type `predictBatch(sites:)` takes.
 */
export function batchQuery(inputTypeName: string): string {
  return BATCH_QUERY.replace('[PredictionInput!]!', `[${inputTypeName}!]!`)
}

/** The type name of `predictBatch(sites:)` items, read by introspection (no key needed). */
export async function batchInputTypeName(url: string): Promise<string> {
  const result = await graphql(
    url,
    '{ __type(name: "Query") { fields { name args { name type { ofType { ofType { ofType { name } } } } } } } }',
  )
  const fields = result.body.data.__type.fields as {
    name: string
    args: { name: string; type: { ofType: { ofType: { ofType: { name: string } } } } }[]
  }[]
  const sites = fields.find((f) => f.name === 'predictBatch')?.args.find((a) => a.name === 'sites')
  const name = sites?.type.ofType.ofType.ofType.name
  if (!name) throw new Error('predictBatch(sites:) not found in the schema')
  return name
}

/** Counts of outcomes of many GraphQL responses: data, or the error code. */
export function outcomeCounts(results: GraphQLResult[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const result of results) {
    const error = result.body.errors?.[0] as GraphQLErrorBody | undefined
    const outcome = error
      ? `${result.status}:${error.extensions?.code ?? 'unknown'}`
      : `${result.status}:data`
    counts[outcome] = (counts[outcome] ?? 0) + 1
  }
  return counts
}
