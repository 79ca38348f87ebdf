import { createRequire } from 'node:module'
import { createYoga, type GraphiQLOptions, type YogaServerInstance } from 'graphql-yoga'
import type { AccessControl, Admission } from '../auth/access-control.ts'
import type { HealthMonitor } from '../domain/health.ts'
import type { NearestSiteLookup, PredictionService } from '../domain/predictions.ts'
import type { Logger } from '../logging/logger.ts'
import type { GraphQLContext } from './context.ts'
import { useAccessControl } from './plugins/access-control.ts'
import { useDocumentLimits } from './plugins/document-limits.ts'
import { useErrorShaping } from './plugins/error-shaping.ts'
import { requestIdOf, useRequestId } from './plugins/request-id.ts'
import { schema } from './schema.ts'

export interface GatewayDeps {
  health: HealthMonitor
  /** The process-wide batching lookup: all points asked for in one tick share one SQL statement. */
  nearestSite: NearestSiteLookup
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
      nearestSite: deps.nearestSite,
    }),
    plugins: [
      useRequestId(),
      useDocumentLimits(),
      useAccessControl(deps.access),
      useErrorShaping(deps.logger),
    ],
  })
}
