import { parseInput } from '../domain/input-rules.ts'
import {
  REFUSALS_PAGE_DEFAULT,
  refusalJson,
  type SurveyUploadView,
} from '../domain/surveys/survey-upload-service.ts'
import { jobUpload } from './job-upload.ts'
import { SurveyUploadPageQuery, SurveyUploadQuery } from './request-schemas.ts'
import type { KeyedRoute } from './route.ts'
import { surveyWriter } from './survey-routes.ts'

export function surveyUploadJson({ upload, refused, nextCursor }: SurveyUploadView) {
  return {
    upload_id: upload.id,
    status: upload.status,
    format: upload.format,
    skip_invalid: upload.skipInvalid,
    rows: upload.rowsRead,
    valid_rows: upload.rowsValid,
    refused_rows: upload.rowsRefused,
    stored: upload.stored,
    ignored_columns: upload.ignoredColumns,
    failure: upload.failure,
    created_at: upload.createdAt.toISOString(),
    finished_at: upload.finishedAt?.toISOString() ?? null,
    refused: refused.map(refusalJson),
    next_cursor: nextCursor,
  }
}

/** Bulk survey uploads: the REST translation of SurveyUploadService, nothing more. */
export const SURVEY_UPLOAD_ROUTES: readonly KeyedRoute[] = [
  {
    method: 'POST',
    path: '/v1/surveys/uploads',
    authenticated: true,
    async handle(req, url, deps, admission, _params, request) {
      const query = parseInput(SurveyUploadQuery, Object.fromEntries(url.searchParams), 'query string')
      const view = await deps.surveyUploads.upload(
        surveyWriter(admission, request),
        jobUpload(req),
        query.skip_invalid ?? false,
      )
      return {
        status: 201,
        body: surveyUploadJson(view),
        headers: { location: `/v1/surveys/uploads/${view.upload.id}` },
      }
    },
  },
  {
    method: 'GET',
    path: '/v1/surveys/uploads/{upload_id}',
    authenticated: true,
    async handle(_req, url, deps, admission, params) {
      const query = parseInput(SurveyUploadPageQuery, Object.fromEntries(url.searchParams), 'query string')
      const view = await deps.surveyUploads.view(
        admission.caller.accountId,
        params.upload_id ?? '',
        query.cursor ?? null,
        query.limit ?? REFUSALS_PAGE_DEFAULT,
      )
      return { status: 200, body: surveyUploadJson(view) }
    },
  },
]
