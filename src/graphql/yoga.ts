import { createRequire } from 'node:module'
import DataLoader from 'dataloader'
import { createYoga, type GraphiQLOptions, type YogaServerInstance } from 'graphql-yoga'
import type { AccessControl, Admission } from '../auth/access-control.ts'
import type { NearestSite } from '../db/sites.ts'
import type { HealthMonitor } from '../domain/health.ts'
import type { Coordinates, PredictionService } from '../domain/predictions.ts'
import type { Logger } from '../logging/logger.ts'
import type { GraphQLContext } from './context.ts'
import { useAccessControl } from './plugins/access-control.ts'
import { useDocumentLimits } from './plugins/document-limits.ts'
import { useErrorShaping } from './plugins/error-shaping.ts'
import { requestIdOf, useRequestId } from './plugins/request-id.ts'
import { schema } from './schema.ts'

export interface GatewayDeps {
  health: HealthMonitor
  /** One SQL statement for many points (the per-request DataLoader's batch function). */
  findNearest: (points: readonly Coordinates[]) => Promise<(NearestSite | null)[]>
  logger: Logger
  predictions: PredictionService
  access: AccessControl
  searchRadiusKm: number
  graphiql: boolean
  /** Prefilled X-API-Key in GraphiQL (embedded demo mode only). */
  demoKey?: string
}

export type Gateway = YogaServerInstance<Record<string, unknown>, GraphQLContext>

export const EXAMPLE_OPERATION = `# Survival of hand-planted Douglas-fir in the Oregon Coast Range.
# Put your key in the Headers tab: {"X-API-Key": "tsp_live_..."}
query Example {
  predict(input: { latitude: 44.6, longitude: -123.6, speciesCode: "PSME", plantingMethod: MANUAL }) {
    site { matchedLatitude matchedLongitude matchDistanceKm elevationM slopeDeg }
    speciesCommonName
    predictions {
      horizonYears
      survivalProbability
      riskFactors { factor impact magnitude }
    }
    model { series version codename }
  }
}
`

/** The self-contained GraphiQL bundle (~9 MB) is loaded at the first page view, not at start-up. */
let graphiqlRenderer: ((options?: GraphiQLOptions) => string) | undefined
function renderGraphiQLOnDemand(options?: GraphiQLOptions): string {
  graphiqlRenderer ??= (
    createRequire(import.meta.url)('@graphql-yoga/render-graphiql') as {
      renderGraphiQL: (options?: GraphiQLOptions) => string
    }
  ).renderGraphiQL
  return graphiqlRenderer(options)
}

/** Coordinates as DataLoader keys: equal points share one lookup within a request. */
const coordinateKey = (point: Coordinates) => `${point.latitude},${point.longitude}`

export function createGateway(deps: GatewayDeps): Gateway {
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    maskedErrors: false,
    logging: false,
    graphiql: deps.graphiql
      ? {
          title: 'Survival Prediction API',
          defaultQuery: EXAMPLE_OPERATION,
          headers: JSON.stringify({ 'X-API-Key': deps.demoKey ?? 'tsp_live_your_key_here' }, null, 2),
          shouldPersistHeaders: true,
        }
      : false,
    renderGraphiQL: renderGraphiQLOnDemand,
    context: ({ request, admission }: { request: Request; admission?: Admission }): GraphQLContext => ({
      requestId: requestIdOf(request),
      admission,
      caller: null,
      health: deps.health,
      searchRadiusKm: deps.searchRadiusKm,
      predictions: deps.predictions,
      nearestSite: new DataLoader(deps.findNearest, { cacheKeyFn: coordinateKey, maxBatchSize: 1000 }),
    }),
    plugins: [
      useRequestId(),
      useDocumentLimits(),
      useAccessControl(deps.access),
      useErrorShaping(deps.logger),
    ],
  })
}
