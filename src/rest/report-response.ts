import type { ReportRequest } from '../domain/reports/report-request.ts'
import type { ReportFile } from '../domain/reports/report-service.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { dataVersionHeaders } from './data-version-header.ts'
import type { ReportAsked } from './report-negotiation.ts'
import type { RestResponse } from './route.ts'

async function* whole(bytes: Uint8Array): AsyncGenerator<Buffer> {
  yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** A report as the answer: a PDF shown in the browser, named for saving, in the report's language. */
export function reportResponse(report: ReportFile, dataVersion: string | null): RestResponse {
  return {
    status: 200,
    contentType: 'application/pdf',
    headers: {
      'content-length': String(report.bytes.length),
      'content-disposition': `inline; filename="${report.fileName}"`,
      'content-language': report.language,
      vary: 'Accept, Accept-Language',
      ...dataVersionHeaders(dataVersion),
    },
    stream: whole(report.bytes),
  }
}

/** What a report prints of the request it answers: its id, the operation and the JSON body as read. */
export function reportRequest(
  asked: ReportAsked,
  request: RequestContext,
  path: string,
  body: unknown,
  method: 'GET' | 'POST' = 'POST',
): ReportRequest {
  return { ...asked, requestId: request.requestId, method, path, body }
}
