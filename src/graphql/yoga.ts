import type { IncomingMessage } from 'node:http'
import { createYoga, type YogaServerInstance } from 'graphql-yoga'
import type { AccessControl } from '../access/auth/access-control.ts'
import type { CalibrationService } from '../domain/calibration/calibration-service.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { HealthMonitor } from '../domain/health.ts'
import type { JobService } from '../domain/jobs/job-service.ts'
import type { KeyService } from '../domain/key-service.ts'
import type { DefaultVersions } from '../domain/models/default-version.ts'
import type { ModelRegistry } from '../domain/models/model-registry.ts'
import type { PredictionService } from '../domain/prediction-service.ts'
import type { ReportLinks } from '../domain/reports/report-links.ts'
import type { StockingPlanService } from '../domain/stocking/stocking-service.ts'
import type { SurveyService } from '../domain/surveys/survey-service.ts'
import type { SurveyUploadService } from '../domain/surveys/survey-upload-service.ts'
import type { SurveyUploadTickets } from '../domain/surveys/survey-upload-tickets.ts'
import type { SurvivalMapService } from '../domain/survival-map.ts'
import { MAX_BODY_BYTES } from '../http-body/body.ts'
import type { Logger } from '../logging/logger.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { renderGraphiQLOnce } from './graphiql-page.ts'
import { useAccessControl } from './plugins/access-control.ts'
import { useCompiledExecution } from './plugins/compiled-execution.ts'
import { useDocumentLimits } from './plugins/document-limits.ts'
import { useErrorShaping } from './plugins/error-shaping.ts'
import { useGraphiQLPageHeaders } from './plugins/page-headers.ts'
import { useRequestId } from './plugins/request-id.ts'
import { useSurvivalMapThrottle } from './plugins/survival-map-throttle.ts'
import type { GraphQLContext } from './schema/context.ts'
import { schema } from './schema/schema.ts'

export interface GatewayDeps {
  health: HealthMonitor
  predictions: PredictionService
  plans: StockingPlanService
  maps: SurvivalMapService
  catalogue: Catalogue
  access: AccessControl
  /** Key usage for `viewer`. */
  keys: KeyService
  /** Field surveys for the survey queries and mutations. */
  surveys: SurveyService
  /** Bulk survey uploads, read back by surveyUpload. */
  surveyUploads: SurveyUploadService
  models: ModelRegistry
  calibrations: CalibrationService
  defaultVersions: DefaultVersions
  /** Tickets to stream an upload (surveyUploadTicket). */
  surveyUploadTickets: SurveyUploadTickets
  /** Links to the PDF report of an answer (reportLink). */
  reportLinks: ReportLinks
  /** Portfolio jobs (job). */
  jobs: JobService
  logger: Logger
  graphiql: boolean
  /** Prefilled X-API-Key in GraphiQL (embedded demo mode only). */
  demoKey?: string
  /** survivalMap calls a minute per key (SURVIVAL_MAP_PER_MINUTE). */
  survivalMapPerMinute: number
}

/** What the HTTP transport passes with every GraphQL request. */
export interface GatewayServerContext {
  req: IncomingMessage
  requestContext: RequestContext
}

export type Gateway = YogaServerInstance<GatewayServerContext, GraphQLContext>

/** Largest request body, as on /v1: the transport refuses larger POST bodies; this bounds what yoga reads itself. */
export const MAX_GRAPHQL_BODY_BYTES = MAX_BODY_BYTES

/**
 * Cross-origin calls: any page may call with a key it holds, but never with the browser's credentials
 * (cookies, HTTP auth): yoga's default reflects the origin *with* Access-Control-Allow-Credentials.
 * The API uses no ambient credentials, so this gives a foreign page nothing it did not already have.
 */
const CORS = { origin: '*', credentials: false, methods: ['GET', 'POST'] }

const EXAMPLE_OPERATION = `# Survival of hand-planted Douglas-fir in the Oregon Coast Range.
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

export function createGateway(deps: GatewayDeps): Gateway {
  return createYoga<GatewayServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    maskedErrors: false,
    maxRequestBodySize: MAX_GRAPHQL_BODY_BYTES,
    cors: CORS,
    logging: false,
    graphiql: deps.graphiql
      ? {
          title: 'Survival Prediction API',
          defaultQuery: EXAMPLE_OPERATION,
          headers: JSON.stringify({ 'X-API-Key': deps.demoKey ?? 'tsp_live_your_key_here' }, null, 2),
          // A key typed into the Headers tab lives only as long as the page: never in localStorage,
          // where any script on this origin (and anyone at the browser later) could read it.
          shouldPersistHeaders: false,
        }
      : false,
    renderGraphiQL: renderGraphiQLOnce,
    // Both ways in (src/graphql/http-transport.ts) hand over the Node request and the front door's context.
    context: ({ req, requestContext }: GatewayServerContext): GraphQLContext => {
      const apiKey = req.headers['x-api-key']
      return {
        request: requestContext,
        apiKey: Array.isArray(apiKey) ? apiKey[0] : apiKey,
        caller: null,
        quota: null,
        health: deps.health,
        predictions: deps.predictions,
        plans: deps.plans,
        maps: deps.maps,
        catalogue: deps.catalogue,
        keys: deps.keys,
        surveys: deps.surveys,
        surveyUploads: deps.surveyUploads,
        surveyUploadTickets: deps.surveyUploadTickets,
        reportLinks: deps.reportLinks,
        jobs: deps.jobs,
        models: deps.models,
        calibrations: deps.calibrations,
        defaultVersions: deps.defaultVersions,
      }
    },
    plugins: [
      useRequestId(),
      useGraphiQLPageHeaders(),
      useDocumentLimits(),
      // Before access control: its onExecuteDone also shapes the result access control stops with.
      useErrorShaping(deps.logger),
      useAccessControl(deps.access),
      // After access control: only admitted callers are counted, by their key's account.
      useSurvivalMapThrottle({ perMinute: deps.survivalMapPerMinute }),
      // Last: it replaces how admitted operations execute, nothing about who may run them.
      useCompiledExecution(),
    ],
  })
}
