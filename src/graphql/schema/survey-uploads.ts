import { z } from 'zod'
import type { SurveyRefusal, SurveyUploadRecord } from '../../domain/ports/survey-uploads.ts'
import {
  REFUSALS_PAGE_DEFAULT,
  REFUSALS_PAGE_MAX,
  type SurveyUploadView,
} from '../../domain/surveys/survey-upload-service.ts'
import {
  SURVEY_UPLOAD_TICKET_SETTINGS,
  type SurveyUploadTicket,
} from '../../domain/surveys/survey-upload-tickets.ts'
import { builder } from './builder.ts'
import { callerOf, writerOf } from './survey-callers.ts'

/*
 * Bulk survey uploads: a ticket to stream the file (it cannot travel inside a JSON request), and what an
 * upload read, refused and stored, read back as GET /v1/surveys/uploads/{id} does.
 */

const SurveyRefusedRowRef = builder.objectRef<SurveyRefusal>('SurveyRefusedRow').implement({
  description: 'A row of an upload that was refused, as POST /v1/surveys would refuse the same plot',
  fields: (t) => ({
    row: t.exposeInt('row', {
      description: 'The row’s number from 1: CSV after the header, NDJSON by line, GeoJSON by feature',
    }),
    plotId: t.exposeString('plotId', { nullable: true, description: 'The row’s plot_id, when readable' }),
    field: t.exposeString('field', { description: 'The field refused, as named in the plot' }),
    code: t.exposeString('code', { description: 'The error code POST /v1/surveys gives the same plot' }),
    reason: t.exposeString('reason', { description: 'Why' }),
  }),
})

const SurveyUploadFailureRef = builder
  .objectRef<{ code: string; message: string }>('SurveyUploadFailure')
  .implement({
    description: 'Why an upload stored nothing',
    fields: (t) => ({
      code: t.exposeString('code', {
        description:
          'survey_upload_refused, survey_limit_reached, invalid_request, client_closed, interrupted, …',
      }),
      message: t.exposeString('message', { description: 'What happened, in words' }),
    }),
  })

const SurveyUploadStatusEnum = builder.enumType('SurveyUploadStatus', {
  description: 'Where an upload stands',
  values: {
    receiving: { value: 'receiving', description: 'The file is still streaming in' },
    committed: { value: 'committed', description: 'The valid rows are stored' },
    refused: {
      value: 'refused',
      description: 'Nothing stored: rows refused without skipInvalid, or over the account’s limit',
    },
    failed: {
      value: 'failed',
      description: 'Nothing stored: the file could not be read, the client went away or the server stopped',
    },
  } as const,
})

const field = (upload: SurveyUploadView) => upload.upload
const SurveyUploadRef = builder.objectRef<SurveyUploadView>('SurveyUpload').implement({
  description: 'A bulk survey upload and a page of its refused rows',
  fields: (t) => ({
    uploadId: t.string({ description: 'The upload’s id', resolve: (view) => field(view).id }),
    status: t.field({
      type: SurveyUploadStatusEnum,
      description: 'Where the upload stands',
      resolve: (view) => field(view).status,
    }),
    format: t.string({ description: 'csv, ndjson or geojson', resolve: (view) => field(view).format }),
    skipInvalid: t.boolean({
      description: 'Whether valid rows were stored despite refused ones',
      resolve: (view) => field(view).skipInvalid,
    }),
    rows: t.int({ description: 'Data rows read', resolve: (view) => field(view).rowsRead }),
    validRows: t.int({
      description: 'Rows that passed every check',
      resolve: (view) => field(view).rowsValid,
    }),
    refusedRows: t.int({ description: 'Rows refused', resolve: (view) => field(view).rowsRefused }),
    stored: t.int({
      description: 'Surveys written; a (plotId, surveyedOn) sent twice counts once',
      resolve: (view) => field(view).stored,
    }),
    ignoredColumns: t.stringList({
      description: 'CSV columns the upload ignored',
      resolve: (view) => field(view).ignoredColumns,
    }),
    failure: t.field({
      type: SurveyUploadFailureRef,
      nullable: true,
      description: 'Why nothing was stored; null once committed',
      resolve: (view) => field(view).failure,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it began',
      resolve: (view) => field(view).createdAt,
    }),
    finishedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it ended; null while receiving',
      resolve: (view: SurveyUploadView): SurveyUploadRecord['finishedAt'] => field(view).finishedAt,
    }),
    refused: t.field({
      type: [SurveyRefusedRowRef],
      description: 'A page of the refused rows, in row order',
      resolve: (view) => view.refused,
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as cursor for the next page of refused rows; null on the last page',
    }),
  }),
})

const pageRule = `must be a whole number from 1 to ${REFUSALS_PAGE_MAX}`

builder.queryFields((t) => ({
  surveyUpload: t.field({
    type: SurveyUploadRef,
    description:
      'One of the account’s bulk survey uploads (sent to POST /v1/surveys/uploads) with a page of its refused rows, as GET /v1/surveys/uploads/{id}; not_found for another account’s. Counts as one request',
    args: {
      uploadId: t.arg.string({ required: true, description: 'The upload’s id, upl_…' }),
      limit: t.arg.int({
        required: false,
        defaultValue: REFUSALS_PAGE_DEFAULT,
        description: `Refused rows on the page, 1 to ${REFUSALS_PAGE_MAX}`,
        validate: { schema: z.number().int(pageRule).min(1, pageRule).max(REFUSALS_PAGE_MAX, pageRule) },
      }),
      cursor: t.arg.string({
        required: false,
        description: 'The nextCursor of the page before; absent: the first page',
        validate: { schema: z.string().max(40, 'is not a cursor this upload handed out') },
      }),
    },
    resolve: (_root, args, ctx, info) =>
      ctx.surveyUploads.view(
        callerOf(ctx, info).accountId,
        args.uploadId,
        args.cursor ?? null,
        args.limit ?? REFUSALS_PAGE_DEFAULT,
      ),
  }),
}))

const SurveyUploadTicketRef = builder.objectRef<SurveyUploadTicket>('SurveyUploadTicket').implement({
  description:
    'A one-time right to stream one survey file: POST it to `path` as to POST /v1/surveys/uploads (Content-Type text/csv, application/x-ndjson or application/geo+json; gzip allowed), with no key',
  fields: (t) => ({
    path: t.exposeString('path', {
      description:
        'Where to POST the file, on this server: /v1/surveys/uploads/tickets/sut_…. It is a credential: keep it to yourself',
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: `When the ticket stops working, ${SURVEY_UPLOAD_TICKET_SETTINGS.lifetimeMs / 60_000} minutes after it was made; it works once`,
      resolve: (ticket) => ticket.expiresAt,
    }),
    skipInvalid: t.exposeBoolean('skipInvalid', {
      description: 'Whether the upload will store its valid rows when some are refused',
    }),
  }),
})

builder.mutationFields((t) => ({
  surveyUploadTicket: t.field({
    type: SurveyUploadTicketRef,
    description: `A ticket to stream a survey file of up to 1,000,000 rows over HTTP: the file cannot travel in a GraphQL request, which is JSON. POST the file to the ticket’s path; the answer is POST /v1/surveys/uploads’s, and surveyUpload reads the upload later. The ticket works once, while your key works, for ${SURVEY_UPLOAD_TICKET_SETTINGS.lifetimeMs / 60_000} minutes. Counts as one request (the file’s POST is not counted again)`,
    args: {
      skipInvalid: t.arg.boolean({
        required: false,
        defaultValue: false,
        description:
          'Store the valid rows and report the rest (as ?skip_invalid=true); otherwise one refused row stores nothing',
      }),
    },
    resolve: (_root, args, ctx, info) =>
      ctx.surveyUploadTickets.issue(writerOf(ctx, info), args.skipInvalid ?? false),
  }),
}))
