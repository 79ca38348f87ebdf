import type { IncomingMessage } from 'node:http'
import type { Admission } from '../access/auth/access-control.ts'
import { rateLimitHeaders } from '../access/quota/quota-guard.ts'
import { apiError } from '../domain/errors.ts'
import { parseInput } from '../domain/input-rules.ts'
import type { JobOwner, JobView, ResultsPlan } from '../domain/jobs/job-service.ts'
import type { JobFormat } from '../types.ts'
import { reportLocale } from './report-negotiation.ts'
import { reportRequest, reportResponse } from './report-response.ts'
import { JobModelQuery, JobReportQuery } from './request-schemas.ts'
import type { KeyedRoute, RestDeps, RestResponse } from './route.ts'
import { streamedUpload } from './streamed-upload.ts'
import { takeTreatments } from './treatment-query.ts'

const CONTENT_TYPES: Record<JobFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  geojson: 'application/geo+json; charset=utf-8',
}
const EXTENSIONS: Record<JobFormat, string> = { csv: 'csv', ndjson: 'ndjson', geojson: 'geojson' }

function owner(admission: Admission): JobOwner {
  const { caller } = admission
  return { accountId: caller.accountId, keyId: caller.keyId, tier: caller.tier }
}

function links(id: string) {
  return { self: `/v1/jobs/${id}`, results: `/v1/jobs/${id}/results` }
}

export function jobJson(job: JobView) {
  return {
    id: job.id,
    status: job.status,
    format: job.format,
    model_version: job.modelVersion,
    rows_total: job.rowsTotal,
    rows_done: job.rowsDone,
    rows_failed: job.rowsFailed,
    errors_by_code: job.errorsByCode,
    data_versions: job.dataVersions,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    expires_at: job.expiresAt.toISOString(),
    eta_seconds: job.etaSeconds,
    ...(job.failure ? { failure: job.failure } : {}),
    links: links(job.id),
  }
}

/**
 * The format the client prefers in Accept (by q, then order) among those the job has (GeoJSON: GeoJSON
 * jobs only); the job's own when it names none of them.
 */
export function resultFormat(accept: string | undefined, own: JobFormat): JobFormat {
  const offers: { format: JobFormat; q: number; order: number }[] = []
  for (const [order, entry] of (accept ?? '').toLowerCase().split(',').entries()) {
    const [type = '', ...params] = entry.split(';').map((part) => part.trim())
    const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? 1)
    const format =
      type === 'text/csv'
        ? 'csv'
        : type === 'application/x-ndjson'
          ? 'ndjson'
          : type === 'application/geo+json' && own === 'geojson'
            ? 'geojson'
            : undefined
    if (format && Number.isFinite(q) && q > 0) offers.push({ format, q, order })
  }
  offers.sort((a, b) => b.q - a.q || a.order - b.order)
  return offers[0]?.format ?? own
}

/** One `bytes=start-[end]` range within `length` bytes; undefined for none, a malformed or multiple range. */
export function byteRange(
  header: string | undefined,
  length: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const found = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '')
  if (!found) return undefined
  const [, first = '', last = ''] = found
  if (first === '' && last === '') return undefined
  if (first === '') {
    // A suffix: the last N bytes.
    const suffix = Number(last)
    if (suffix === 0 || length === 0) return 'unsatisfiable'
    return { start: Math.max(0, length - suffix), end: length - 1 }
  }
  const start = Number(first)
  const end = last === '' ? length - 1 : Math.min(Number(last), length - 1)
  if (start >= length) return 'unsatisfiable'
  if (end < start) return undefined
  return { start, end }
}

/** The plan's bytes from `start` to `end` (inclusive), reading only the chunks that hold them. */
async function* slice(deps: RestDeps, plan: ResultsPlan, start: number, end: number): AsyncGenerator<Buffer> {
  let offset = 0
  const header = Buffer.from(plan.header)
  const emit = (piece: Buffer) => {
    const from = Math.max(0, start - offset)
    const to = Math.min(piece.length, end + 1 - offset)
    offset += piece.length
    return from < to ? piece.subarray(from, to) : undefined
  }
  const head = emit(header)
  if (head) yield head
  let firstChunk = 0
  while (firstChunk < plan.chunkBytes.length && offset + (plan.chunkBytes[firstChunk] ?? 0) <= start) {
    offset += plan.chunkBytes[firstChunk] ?? 0
    firstChunk += 1
  }
  for await (const text of deps.jobs.resultChunks(plan, firstChunk)) {
    if (offset > end) return
    const piece = emit(Buffer.from(text))
    if (piece) yield piece
  }
  const tail = emit(Buffer.from(plan.trailer))
  if (tail) yield tail
}

async function results(
  req: IncomingMessage,
  deps: RestDeps,
  admission: Admission,
  id: string,
): Promise<RestResponse> {
  const job = await deps.jobs.status(owner(admission), id)
  const format = resultFormat(req.headers.accept, job.format)
  const plan = await deps.jobs.results(owner(admission), id, format)
  const etag = `"${plan.job.id}-${format}-${plan.job.finishedAt?.getTime() ?? 0}"`
  const ifRange = req.headers['if-range']
  const range = ifRange && ifRange !== etag ? undefined : byteRange(req.headers.range, plan.totalBytes)
  const headers = {
    etag,
    'accept-ranges': 'bytes',
    'content-disposition': `attachment; filename="${plan.job.id}.${EXTENSIONS[format]}"`,
  }
  if (range === 'unsatisfiable')
    throw apiError(
      'range_not_satisfiable',
      { length: plan.totalBytes },
      { headers: { 'content-range': `bytes */${plan.totalBytes}` } },
    )
  const { start, end } = range ?? { start: 0, end: plan.totalBytes - 1 }
  return {
    status: range ? 206 : 200,
    contentType: CONTENT_TYPES[format],
    headers: {
      ...headers,
      'content-length': String(Math.max(0, end - start + 1)),
      ...(range ? { 'content-range': `bytes ${start}-${end}/${plan.totalBytes}` } : {}),
    },
    stream: slice(deps, plan, start, end),
  }
}

/** The jobs API: the REST translation of JobService, nothing more. */
export const JOB_ROUTES: readonly KeyedRoute[] = [
  {
    method: 'POST',
    path: '/v1/jobs',
    authenticated: true,
    streamedBody: true,
    async handle(req, url, deps, admission) {
      let charged = admission
      // model_version chooses the job's model, the treatments are every row's defaults (any format); the
      // other parameters are a GeoJSON upload's defaults.
      const defaults = new URLSearchParams(url.searchParams)
      const version = defaults.get('model_version')
      defaults.delete('model_version')
      const treatments = takeTreatments(defaults)
      const modelVersion =
        version === null
          ? undefined
          : parseInput(JobModelQuery, { model_version: version }, 'query string').model_version
      const job = await deps.jobs.create(
        owner(admission),
        streamedUpload(req, defaults),
        async (cost) => {
          // The upload's own call counted one request already.
          if (cost > 1) charged = await deps.access.charge(admission, cost - 1)
        },
        modelVersion,
        treatments,
      )
      return {
        status: 202,
        body: { id: job.id, status: job.status, rows: job.rowsTotal, links: links(job.id) },
        // Where the caller stands once the whole job is paid for.
        headers: { ...rateLimitHeaders(charged.quota), location: `/v1/jobs/${job.id}` },
      }
    },
  },
  {
    method: 'GET',
    path: '/v1/jobs/{id}',
    authenticated: true,
    counted: false,
    async handle(_req, _url, deps, admission, params) {
      return { status: 200, body: jobJson(await deps.jobs.status(owner(admission), params.id ?? '')) }
    },
  },
  {
    method: 'DELETE',
    path: '/v1/jobs/{id}',
    authenticated: true,
    counted: false,
    async handle(_req, _url, deps, admission, params) {
      const outcome = await deps.jobs.cancel(owner(admission), params.id ?? '')
      return 'cancelled' in outcome ? { status: 200, body: jobJson(outcome.cancelled) } : { status: 204 }
    },
  },
  {
    method: 'GET',
    path: '/v1/jobs/{id}/results',
    authenticated: true,
    counted: false,
    handle: (req, _url, deps, admission, params) => results(req, deps, admission, params.id ?? ''),
  },
  {
    // A finished job's report (docs/reports.md → A finished job): a new answer made from the results, so counted.
    method: 'GET',
    path: '/v1/jobs/{id}/report.pdf',
    authenticated: true,
    async handle(req, url, deps, admission, params, request) {
      const asked = reportLocale(req, url)
      parseInput(JobReportQuery, Object.fromEntries(url.searchParams), 'query string')
      const { job, summary } = await deps.jobs.resultsSummary(owner(admission), params.id ?? '')
      const report = await deps.reports.job(
        job,
        summary,
        reportRequest(asked, request, `${url.pathname}${url.search}`, null, 'GET'),
      )
      // A job may span site data versions: the report lists them, and no one header names them all.
      return reportResponse(report, null)
    },
  },
]
