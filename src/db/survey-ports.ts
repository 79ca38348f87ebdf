import type { SurveyUploadTicketStore } from '../domain/ports/survey-upload-tickets.ts'
import type { SurveyUploadStore } from '../domain/ports/survey-uploads.ts'
import type { SurveyStore } from '../domain/ports/surveys.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { Sql } from './connect.ts'
import { bounded, type Deadline } from './store-call.ts'
import {
  issueSurveyUploadTicket,
  redeemSurveyUploadTicket,
  sweepSurveyUploadTickets,
} from './survey-upload-tickets.ts'
import {
  addSurveyUploadBatch,
  COMMIT_STATEMENT_TIMEOUT_MS,
  commitSurveyUpload,
  createSurveyUpload,
  findSurveyUpload,
  finishEmptySurveyUpload,
  surveyUploadRefusals,
  sweepSurveyUploads,
  touchSurveyUpload,
} from './survey-uploads.ts'
import {
  calibrationPlots,
  removeSurveyPlots,
  saveSurveyPlots,
  surveyPlotPage,
  surveyReportPlots,
  surveysOfPlot,
} from './surveys.ts'

/** An account's survey plots. */
export function surveyStore(sql: Sql, config: Deadline, metrics: Metrics): SurveyStore {
  const call = bounded(config, metrics)
  return {
    save: (accountId, plots, limit, event) => call(saveSurveyPlots(sql, accountId, plots, limit, event)),
    page: (accountId, filter, limit, after) => call(surveyPlotPage(sql, accountId, filter, limit, after)),
    plot: (accountId, plotId) => call(surveysOfPlot(sql, accountId, plotId)),
    remove: (accountId, plotId, event) => call(removeSurveyPlots(sql, accountId, plotId, event)),
    reportPlots: (accountId, filter) => call(surveyReportPlots(sql, accountId, filter)),
    calibrationPlots: (accountId, filter, version) => call(calibrationPlots(sql, accountId, filter, version)),
  }
}

/** Bulk survey uploads; the commit, which moves a whole upload, has its own longer deadline. */
export function surveyUploadStore(sql: Sql, config: Deadline, metrics: Metrics): SurveyUploadStore {
  const call = bounded(config, metrics)
  const commitCall = bounded({ DB_QUERY_TIMEOUT_MS: COMMIT_STATEMENT_TIMEOUT_MS + 5_000 }, metrics)
  return {
    create: (upload) => call(createSurveyUpload(sql, upload)),
    addBatch: (uploadId, staged, refused, counts) =>
      call(addSurveyUploadBatch(sql, uploadId, staged, refused, counts)),
    touch: (uploadId) => call(touchSurveyUpload(sql, uploadId)),
    commit: (accountId, uploadId, limit, event) =>
      commitCall(commitSurveyUpload(sql, accountId, uploadId, limit, event)),
    finishEmpty: (uploadId, status, failure) => call(finishEmptySurveyUpload(sql, uploadId, status, failure)),
    find: (accountId, uploadId) => call(findSurveyUpload(sql, accountId, uploadId)),
    refusals: (uploadId, afterRow, limit) => call(surveyUploadRefusals(sql, uploadId, afterRow, limit)),
    sweep: (stalledBefore, expiredBefore) => call(sweepSurveyUploads(sql, stalledBefore, expiredBefore)),
  }
}

/** Survey upload tickets (GraphQL's way to a streamed upload). */
export function surveyUploadTicketStore(
  sql: Sql,
  config: Deadline,
  metrics: Metrics,
): SurveyUploadTicketStore {
  const call = bounded(config, metrics)
  return {
    issue: (ticket) => call(issueSurveyUploadTicket(sql, ticket)),
    redeem: (tokenHash, at) => call(redeemSurveyUploadTicket(sql, tokenHash, at)),
    sweep: (expiredBefore) => call(sweepSurveyUploadTickets(sql, expiredBefore)),
  }
}
