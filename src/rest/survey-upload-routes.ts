import { keyExpiryHeaders } from '../access/auth/access-control.ts'
import { rateLimitHeaders } from '../access/quota/quota-guard.ts'
import { invalidField } from '../domain/errors.ts'
import { parseInput } from '../domain/input-rules.ts'
import {
  REFUSALS_PAGE_DEFAULT,
  refusalJson,
  type SurveyUploadView,
} from '../domain/surveys/survey-upload-service.ts'
import { SURVEY_UPLOAD_TICKET_PATH } from '../domain/surveys/survey-upload-tickets.ts'
import { SurveyUploadPageQuery, SurveyUploadQuery } from './request-schemas.ts'
import type { KeyedRoute, Route } from './route.ts'
import { streamedUpload } from './streamed-upload.ts'
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

const created = (view: SurveyUploadView, headers: Record<string, string> = {}) => ({
  status: 201,
  body: surveyUploadJson(view),
  headers: { ...headers, location: `/v1/surveys/uploads/${view.upload.id}` },
})

/** Bulk survey uploads: the REST translation of SurveyUploadService, nothing more. */
export const SURVEY_UPLOAD_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/surveys/uploads',
    authenticated: true,
    streamedBody: true,
    async handle(req, url, deps, admission, _params, request) {
      const query = parseInput(SurveyUploadQuery, Object.fromEntries(url.searchParams), 'query string')
      const view = await deps.surveyUploads.upload(
        surveyWriter(admission, request),
        streamedUpload(req),
        query.skip_invalid ?? false,
      )
      return created(view)
    },
  } satisfies KeyedRoute,
  {
    // GraphQL's surveyUploadTicket handed out this path: the ticket stands for the key, once.
    method: 'POST',
    path: `${SURVEY_UPLOAD_TICKET_PATH}/{ticket}`,
    authenticated: false,
    streamedBody: true,
    async handle(req, url, deps, params, request) {
      if (url.search !== '')
        throw invalidField('query string', 'takes no parameters: the ticket holds the upload’s options')
      const ticket = await deps.surveyUploadTickets.redeem(params.ticket ?? '')
      const admission = await deps.access.identifyKeyHash(ticket.keyHash, request)
      const view = await deps.surveyUploads.upload(
        surveyWriter(admission, request),
        streamedUpload(req),
        ticket.skipInvalid,
      )
      return created(view, {
        'cache-control': 'no-store',
        ...rateLimitHeaders(admission.quota),
        ...keyExpiryHeaders(admission.caller, admission.at),
      })
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
  } satisfies KeyedRoute,
]
