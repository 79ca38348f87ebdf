import { createServer } from 'node:net'
import { FOREST_POINTS } from './fixtures.ts'
import { graphql } from './server.ts'

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

/**
 * `count` distinct points on a small grid in the Oregon Coast Range (all inside coverage; most have a
 * data point within the radius, a few may answer no_nearby_data, which is fine for counting).
 */
export function forestGrid(count: number): { latitude: number; longitude: number }[] {
  const base = FOREST_POINTS.coastRange
  const side = Math.ceil(Math.sqrt(count))
  return Array.from({ length: count }, (_, index) => ({
    latitude: Number((base.latitude - 0.3 + (index % side) * 0.02).toFixed(5)),
    longitude: Number((base.longitude - 0.2 + Math.floor(index / side) * 0.02).toFixed(5)),
  }))
}

export interface BatchSite {
  latitude: number
  longitude: number
  speciesCode: string
  plantingMethod: string
  horizons?: number[]
}

/** `count` batch items (as variables) at distinct forest points. */
export function batchSites(count: number, overrides: Partial<BatchSite> = {}): BatchSite[] {
  return forestGrid(count).map((point) => ({
    ...point,
    speciesCode: 'PSME',
    plantingMethod: 'manual',
    ...overrides,
  }))
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

/** Fires `count` calls at once and waits for all of them. */
export function simultaneously<T>(count: number, call: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => call(index)))
}

/** Polls `check` until it returns true, at most `timeoutMs`; returns whether it ever did. */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs = 5000,
  intervalMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  return check()
}

/** A TCP port that was free a moment ago on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
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
