import type { Caller } from '../../access/caller.ts'
import type { QuotaStatus } from '../../access/quota/quota-guard.ts'
import type { CalibrationService } from '../../domain/calibration/calibration-service.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
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

/** What every resolver and plugin can reach. */
export interface GraphQLContext {
  /** The request as the front door opened it: id, route, and what the layers learn about it. */
  request: RequestContext
  /** The X-API-Key header as sent (checked by the access-control plugin; never logged). */
  apiKey: string | undefined
  /** Set by the access-control plugin for operations that need a key; null for public ones (health, introspection). */
  caller: Caller | null
  /** Where the caller stands against today's quota, this request counted; set with `caller`. */
  quota: QuotaStatus | null
  predictions: PredictionService
  plans: StockingPlanService
  maps: SurvivalMapService
  catalogue: Catalogue
  health: HealthMonitor
  keys: KeyService
  /** The account's field surveys (surveys, surveyPlot, surveyReport and the survey mutations). */
  surveys: SurveyService
  /** The account's bulk survey uploads (surveyUpload: what an upload stored and refused). */
  surveyUploads: SurveyUploadService
  /** The model versions an account may answer with (models, model(version), every modelVersion). */
  models: ModelRegistry
  /** Calibrations of an account's surveys (calibrateModel, calibration). */
  calibrations: CalibrationService
  /** The account's default version (setDefaultModel). */
  defaultVersions: DefaultVersions
  /** Tickets to stream a survey upload over REST (surveyUploadTicket). */
  surveyUploadTickets: SurveyUploadTickets
  /** The account's portfolio jobs (job: its status and report link). */
  jobs: JobService
  /** Links to the PDF report of an answer, a finished job or the survey check (reportLink). */
  reportLinks: ReportLinks
}
