import type { IncomingMessage } from 'node:http'
import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import type { AccessControl, Admission } from '../auth/access-control.ts'
import { ApiError } from '../domain/errors.ts'
import type { HealthMonitor } from '../domain/health.ts'
import type { NearestSiteLookup, PredictionRequest, PredictionService } from '../domain/predictions.ts'
import type { Gateway } from '../graphql/yoga.ts'
import { executeOperation } from './execute.ts'
import type { SpeciesGroup as GroupEnum } from './generated/operations.ts'
import { readJsonBody } from './http-io.ts'
import { OPENAPI_DOCUMENT } from './openapi.ts'
import { REST_DOCUMENTS } from './operations.ts'
import { BatchBody, CompareBody, PredictBody, parseInput, SpeciesQuery } from './request-schemas.ts'
import {
  batchItemJson,
  batchResultsJson,
  comparisonJson,
  methodJson,
  predictionJson,
  speciesJson,
} from './responses.ts'

export interface RestDeps {
  gateway: Gateway
  access: AccessControl
  health: HealthMonitor
  /** Predictions go straight to the domain service the GraphQL resolvers call (no GraphQL execution on the hot path). */
  predictions: PredictionService
  nearestSite: NearestSiteLookup
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
async function run<T, V extends Record<string, unknown>>(
  deps: RestDeps,
  request: RestRequest,
  admission: Admission | null,
  document: TypedDocumentNode<T, V>,
  variables: V,
): Promise<T> {
  const outcome = await executeOperation(deps.gateway, document, variables, {
    apiKey: undefined,
    requestId: request.requestId,
    admission: admission ?? undefined,
  })
  if (outcome.error) throw outcome.error
  if (!outcome.data) throw new ApiError('internal_error', 'Unexpected server failure')
  return outcome.data
}

const groupEnum = (group: 'conifer' | 'hardwood') => group.toUpperCase() as GroupEnum

function predictRequest(body: ReturnType<typeof PredictBody.parse>): PredictionRequest {
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
    async handle(request, deps) {
      const body = parseInput(PredictBody, await readJsonBody(request.req))
      return {
        status: 200,
        body: predictionJson(await deps.predictions.predict(predictRequest(body), deps.nearestSite)),
      }
    },
  },
  {
    method: 'POST',
    path: '/v1/predict/compare',
    authenticated: true,
    async handle(request, deps) {
      const body = parseInput(CompareBody, await readJsonBody(request.req))
      const comparison = await deps.predictions.compare(
        {
          latitude: body.latitude,
          longitude: body.longitude,
          speciesCode: body.species_code,
          horizons: body.horizons,
        },
        deps.nearestSite,
      )
      return { status: 200, body: comparisonJson(comparison) }
    },
  },
  {
    method: 'POST',
    path: '/v1/predict/batch',
    authenticated: true,
    async handle(request, deps, admission) {
      const body = parseInput(BatchBody, await readJsonBody(request.req))
      if (!admission) throw new Error('batch handled without an admission')
      const items = await deps.predictions.batchEach(
        body.sites.map(predictRequest),
        admission.caller.tier,
        deps.nearestSite,
        (result, index) => JSON.stringify(batchItemJson(result, index)),
      )
      return { status: 200, body: batchResultsJson(items) }
    },
  },
  {
    method: 'GET',
    path: '/v1/species',
    authenticated: true,
    async handle(request, deps, admission) {
      const query = parseInput(SpeciesQuery, Object.fromEntries(request.url.searchParams), 'query string')
      const data = await run(deps, request, admission, REST_DOCUMENTS.species, {
        group: query.group && groupEnum(query.group),
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
      const data = await run(deps, request, admission, REST_DOCUMENTS.methods, {})
      return {
        status: 200,
        body: { methods: data.plantingMethods.map(methodJson) },
      }
    },
  },
  {
    method: 'GET',
    path: '/v1/coverage',
    authenticated: true,
    async handle(request, deps, admission) {
      const data = await run(deps, request, admission, REST_DOCUMENTS.coverage, {})
      const { region, searchRadiusKm } = data.coverage
      const geojson = data.coverage.geojson as CoverageGeoJson
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
      const report = await deps.health.check()
      return { status: report.status === 'unavailable' ? 503 : 200, body: report }
    },
  },
]

interface CoverageGeoJson {
  type: 'FeatureCollection'
  features: { type: 'Feature'; properties: Record<string, unknown>; geometry: unknown }[]
}
