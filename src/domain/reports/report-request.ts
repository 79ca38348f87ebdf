import type { Paper, ReportLanguage } from './report-document.ts'

/** How a report was asked for: its language and paper, and the request it answers, to print in it. */
export interface ReportRequest {
  language: ReportLanguage
  paper: Paper
  /** The request's Request-Id. */
  requestId: string
  /** The operation as called, e.g. POST /v1/plans/stocking. */
  method: string
  path: string
  /** The JSON body as the service read it. */
  body: unknown
}
