import type { IncomingMessage } from 'node:http'
import type { AccessControl, Admission } from '../access/auth/access-control.ts'
import type { Caller } from '../access/caller.ts'
import type { AuditService } from '../domain/audit-service.ts'
import type { CalibrationService } from '../domain/calibration/calibration-service.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { HealthMonitor } from '../domain/health.ts'
import type { JobService } from '../domain/jobs/job-service.ts'
import type { SporeKeyRequests } from '../domain/key-mail/spore-key-requests.ts'
import type { KeyService } from '../domain/key-service.ts'
import type { DefaultVersions } from '../domain/models/default-version.ts'
import type { ModelRegistry } from '../domain/models/model-registry.ts'
import type { PredictionService } from '../domain/prediction-service.ts'
import type { RasterReadCounter } from '../domain/rasters/raster-reads.ts'
import type { SurvivalRasterService } from '../domain/rasters/survival-raster-service.ts'
import type { ReportLinks } from '../domain/reports/report-links.ts'
import type { ReportService } from '../domain/reports/report-service.ts'
import type { StockingPlanService } from '../domain/stocking/stocking-service.ts'
import type { SurveyService } from '../domain/surveys/survey-service.ts'
import type { SurveyUploadService } from '../domain/surveys/survey-upload-service.ts'
import type { SurveyUploadTickets } from '../domain/surveys/survey-upload-tickets.ts'
import type { RequestContext } from '../observability/request-context.ts'

/*
 * What a /v1 route is and what it answers: the shape every route table (routes.ts, job-routes.ts)
 * fills in and the router (router.ts) serves.
 */

/** The domain services the /v1 endpoints translate to; the GraphQL resolvers call the same ones. */
export interface RestDeps {
  access: AccessControl
  audit: AuditService
  jobs: JobService
  predictions: PredictionService
  plans: StockingPlanService
  catalogue: Catalogue
  health: HealthMonitor
  keys: KeyService
  surveys: SurveyService
  surveyUploads: SurveyUploadService
  surveyUploadTickets: SurveyUploadTickets
  /** The model versions an account may answer with, and which one a request gets. */
  models: ModelRegistry
  calibrations: CalibrationService
  defaultVersions: DefaultVersions
  /** Free spore keys by email; null while they are off (DATABASE_URL and no SMTP_URL). */
  keyRequests: SporeKeyRequests | null
  /** Reports of answers (PDF, `Accept: application/pdf`). */
  reports: ReportService
  /** Links to reports that GraphQL hands out (GET /v1/reports/{token}.pdf, no key). */
  reportLinks: ReportLinks
  /** Survival rasters and the rule that counts their reads; without them the raster route answers 404. */
  rasters?: { service: SurvivalRasterService; reads: RasterReadCounter }
}

export interface RestResponse {
  status: number
  /** JSON (or text already serialised); absent for an empty answer (204). */
  body?: unknown
  /** A body written piece by piece as it is produced (job results), with backpressure. */
  stream?: AsyncIterable<string | Buffer>
  headers?: Record<string, string>
  contentType?: string
}

/** The values of a route path's `{name}` segments. */
type Params = Record<string, string>

export interface KeyedRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** May hold `{name}` segments, e.g. /v1/jobs/{id}. */
  path: string
  authenticated: true
  /** false: reads what was already paid for (a job's status, results), so the call is not counted. */
  counted?: false
  /** The body is a file streamed in (up to 512 MiB): the 30 s body deadline does not apply. */
  streamedBody?: true
  alongside?: false
  handle(
    req: IncomingMessage,
    url: URL,
    deps: RestDeps,
    admission: Admission,
    params: Params,
    /** The request as the front door saw it (its client address, for the audit log). */
    request: RequestContext,
  ): Promise<RestResponse>
}

/**
 * A keyed call that only reads (the predictions): its work starts while the request is counted, and
 * the answer is as if it had started after (AccessControl.admitAlongside). It sees the caller.
 */
interface ReadingRoute {
  method: 'POST'
  path: string
  authenticated: true
  alongside: true
  handle(
    req: IncomingMessage,
    url: URL,
    deps: RestDeps,
    caller: Caller,
    params: Params,
    /** The request as the front door saw it (its Request-Id, which a report prints). */
    request: RequestContext,
  ): Promise<RestResponse>
}

interface PublicRoute {
  method: 'GET' | 'POST'
  path: string
  /** Health, the OpenAPI document, the self-service key door and upload tickets: no key, never counted. */
  authenticated: false
  streamedBody?: true
  handle(
    req: IncomingMessage,
    url: URL,
    deps: RestDeps,
    params: Params,
    request: RequestContext,
  ): Promise<RestResponse>
}

export type Route = KeyedRoute | ReadingRoute | PublicRoute

/** Types a keyed route whose handler reads the admission (the union alone cannot tell it from a ReadingRoute). */
export const keyed = (route: KeyedRoute): KeyedRoute => route
