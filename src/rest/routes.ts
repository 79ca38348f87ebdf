import type { IncomingMessage } from 'node:http'
import type { AccessControl, Admission } from '../auth/access-control.ts'
import type { Sql } from '../db/connect.ts'
import { ApiError } from '../domain/errors.ts'
import { checkHealth, type ModelInfo } from '../domain/health.ts'
import { checkPredictionRequest } from '../domain/predictions.ts'
import type { Gateway } from '../graphql/yoga.ts'
import { executeOperation } from './execute.ts'
import { readJsonBody } from './http-io.ts'
import { OPENAPI_DOCUMENT } from './openapi.ts'
import type { RestOperation } from './operations.ts'
import { BatchBody, CompareBody, PredictBody, parseInput, SpeciesQuery } from './request-schemas.ts'
import {
  batchItemJson,
  comparisonJson,
  type GqlBatchItem,
  type GqlComparison,
  type GqlPrediction,
  type GqlSpecies,
  predictionJson,
  speciesJson,
} from './responses.ts'

export interface RestDeps {
  gateway: Gateway
  access: AccessControl
  sql: Sql
  modelInfo: ModelInfo
}

export interface RestRequest {
  req: IncomingMessage
  url: URL
  requestId: string
}

export interface RestResponse {
  status: number
  body: unknown
  headers?: Record<string, string>
  contentType?: string
}

export interface Route {
  method: 'GET' | 'POST'
  path: string
  /** false only for health and the OpenAPI document. */
  authenticated: boolean
  handle(request: RestRequest, deps: RestDeps, admission: Admission | null): Promise<RestResponse>
}

/** Runs a /v1 document for an admitted caller; domain errors surface as ApiError. */
async function run<T>(
  deps: RestDeps,
  request: RestRequest,
  admission: Admission | null,
  operation: RestOperation,
  variables: Record<string, unknown>,
): Promise<T> {
  const outcome = await executeOperation<T>(deps.gateway, operation, variables, {
    apiKey: undefined,
    requestId: request.requestId,
    admission: admission ?? undefined,
  })
  if (outcome.error) throw outcome.error
  if (!outcome.data) throw new ApiError('internal_error', 'Unexpected server failure')
  return outcome.data
}

function predictInput(body: ReturnType<typeof PredictBody.parse>) {
  return {
    latitude: body.latitude,
    longitude: body.longitude,
    speciesCode: body.species_code,
    plantingMethod: body.planting_method,
    horizons: body.horizons,
  }
}

export const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/predict',
    authenticated: true,
    async handle(request, deps, admission) {
      const body = parseInput(PredictBody, await readJsonBody(request.req))
      // Species and method are judged by the domain (422) before the method becomes a GraphQL enum.
      const { plantingMethod } = checkPredictionRequest(predictInput(body))
      const data = await run<{ predict: GqlPrediction }>(deps, request, admission, 'predict', {
        input: { ...predictInput(body), plantingMethod: plantingMethod.toUpperCase() },
      })
      return { status: 200, body: predictionJson(data.predict) }
    },
  },
  {
    method: 'POST',
    path: '/v1/predict/compare',
    authenticated: true,
    async handle(request, deps, admission) {
      const body = parseInput(CompareBody, await readJsonBody(request.req))
      const data = await run<{ compareMethods: GqlComparison }>(deps, request, admission, 'compare', {
        input: {
          latitude: body.latitude,
          longitude: body.longitude,
          speciesCode: body.species_code,
          horizons: body.horizons,
        },
      })
      return { status: 200, body: comparisonJson(data.compareMethods) }
    },
  },
  {
    method: 'POST',
    path: '/v1/predict/batch',
    authenticated: true,
    async handle(request, deps, admission) {
      const body = parseInput(BatchBody, await readJsonBody(request.req))
      const data = await run<{ predictBatch: GqlBatchItem[] }>(deps, request, admission, 'batch', {
        sites: body.sites.map(predictInput),
      })
      return { status: 200, body: { results: data.predictBatch.map(batchItemJson) } }
    },
  },
  {
    method: 'GET',
    path: '/v1/species',
    authenticated: true,
    async handle(request, deps, admission) {
      const query = parseInput(SpeciesQuery, Object.fromEntries(request.url.searchParams), 'query string')
      const data = await run<{ species: GqlSpecies[] }>(deps, request, admission, 'species', {
        group: query.group?.toUpperCase(),
        search: query.search,
        zone: query.zone,
      })
      return { status: 200, body: { species: data.species.map(speciesJson), count: data.species.length } }
    },
  },
  {
    method: 'GET',
    path: '/v1/methods',
    authenticated: true,
    async handle(request, deps, admission) {
      const data = await run<{ plantingMethods: { id: string; name: string; description: string }[] }>(
        deps,
        request,
        admission,
        'methods',
        {},
      )
      return {
        status: 200,
        body: { methods: data.plantingMethods.map((m) => ({ ...m, id: m.id.toLowerCase() })) },
      }
    },
  },
  {
    method: 'GET',
    path: '/v1/coverage',
    authenticated: true,
    async handle(request, deps, admission) {
      const data = await run<{
        coverage: { region: string; searchRadiusKm: number; geojson: CoverageGeoJson }
      }>(deps, request, admission, 'coverage', {})
      const { region, searchRadiusKm, geojson } = data.coverage
      return {
        status: 200,
        contentType: 'application/geo+json; charset=utf-8',
        body: {
          ...geojson,
          features: geojson.features.map((feature) => ({
            ...feature,
            properties: { ...feature.properties, search_radius_km: searchRadiusKm },
          })),
          region,
          search_radius_km: searchRadiusKm,
        },
      }
    },
  },
  {
    method: 'GET',
    path: '/v1/openapi.json',
    authenticated: false,
    async handle() {
      return { status: 200, body: OPENAPI_DOCUMENT }
    },
  },
  {
    method: 'GET',
    path: '/v1/health',
    authenticated: false,
    async handle(_request, deps) {
      return { status: 200, body: await checkHealth({ sql: deps.sql, model: deps.modelInfo }) }
    },
  },
]

interface CoverageGeoJson {
  type: 'FeatureCollection'
  features: { type: 'Feature'; properties: Record<string, unknown>; geometry: unknown }[]
}
