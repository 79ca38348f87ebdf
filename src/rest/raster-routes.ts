import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import { type Admission, keyExpiryHeaders } from '../access/auth/access-control.ts'
import { rateLimitHeaders } from '../access/quota/quota-guard.ts'
import { ApiError, apiError, invalidField } from '../domain/errors.ts'
import { catalogueCode, modelVersion, parseInput } from '../domain/input-rules.ts'
import type { RasterRead } from '../domain/rasters/raster-reads.ts'
import {
  RASTER_RESOLUTION_DEFAULT,
  RASTER_RESOLUTION_MAX,
  RASTER_RESOLUTION_MIN,
  type RasterOrder,
  type SurvivalRaster,
  type SurvivalRasterService,
} from '../domain/rasters/survival-raster-service.ts'
import { TREATMENT_FIELDS, treatmentsOfFields } from '../domain/treatment-fields.ts'
import type { RequestContext } from '../observability/request-context.ts'
import type { Horizon } from '../types.ts'
import { dataVersionHeaders } from './data-version-header.ts'
import { byteRange } from './job-routes.ts'
import { type KeyedRoute, keyed, type RestDeps, type RestResponse } from './route.ts'

export const RASTER_PATH = '/v1/rasters/survival.tif'

const CONTENT_TYPE = 'image/tiff; application=geotiff; profile=cloud-optimized'

const RESOLUTION_RULE = `must be a number of degrees from ${RASTER_RESOLUTION_MIN} to ${RASTER_RESOLUTION_MAX}, with at most 4 decimals`

/** GET /v1/rasters/survival.tif: what to draw, as POST /v1/predict names it, and how fine. */
const RasterQuery = z.strictObject({
  species: catalogueCode,
  method: catalogueCode,
  horizon: z
    .enum(['1', '3', '5'], { error: 'must be 1, 3 or 5' })
    .transform((value) => Number(value) as Horizon),
  period: z.string().max(40, 'is too long').optional(),
  scenario: z.string().max(40, 'is too long').optional(),
  model_version: modelVersion.optional(),
  resolution: z
    .string()
    // A few decimals: each resolution asked for is a grid of its own to work out and hold.
    .regex(/^\d{1,3}(\.\d{1,4})?$/, RESOLUTION_RULE)
    .transform(Number)
    .pipe(z.number().min(RASTER_RESOLUTION_MIN, RESOLUTION_RULE).max(RASTER_RESOLUTION_MAX, RESOLUTION_RULE))
    .optional(),
  ...TREATMENT_FIELDS,
})

/** The query string's parameters; one given twice is refused rather than read one way or the other. */
function queryOf(url: URL): Record<string, string> {
  const seen = new Set<string>()
  for (const name of url.searchParams.keys()) {
    if (seen.has(name)) throw invalidField(name, 'must be given once', 'query string')
    seen.add(name)
  }
  return Object.fromEntries(url.searchParams)
}

/** The single range a GET is served, by RFC 9110: none for HEAD, for several ranges or a stale If-Range. */
function servedRange(req: IncomingMessage, length: number, etag: string | undefined) {
  if (req.method === 'HEAD') return undefined
  const ifRange = req.headers['if-range']
  if (ifRange !== undefined && ifRange !== etag) return undefined
  return byteRange(req.headers.range, length)
}

/** How this request reads the raster, as the counting rule sees it (RasterReadCounter). */
function readOf(req: IncomingMessage, ready: SurvivalRaster | undefined): RasterRead {
  if (req.method === 'HEAD') return { method: 'HEAD' }
  // Before the raster is made its length is unknown: a suffix range then starts past byte 0, as it will.
  const range = servedRange(req, ready?.bytes.length ?? Number.MAX_SAFE_INTEGER, ready?.etag)
  if (range === undefined) return { method: 'GET', firstByte: null }
  return { method: 'GET', firstByte: range === 'unsatisfiable' ? Number.MAX_SAFE_INTEGER : range.start }
}

/** If-None-Match names this ETag (weakly compared, as RFC 9110 says for it), or is `*`. */
function notModified(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag)
}

async function* single(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes
}

/** The raster, all of it, the range asked for, or 304. */
function answer(req: IncomingMessage, raster: SurvivalRaster): RestResponse {
  const length = raster.bytes.length
  const headers: Record<string, string> = {
    etag: raster.etag,
    'accept-ranges': 'bytes',
    'content-disposition': `attachment; filename="${raster.fileName}"`,
    // The caller's alone (X-API-Key), and worth keeping: the ETag revalidates it for free.
    'cache-control': 'private, no-cache',
    ...dataVersionHeaders(raster.dataVersion),
  }
  if (notModified(req.headers['if-none-match'], raster.etag)) return { status: 304, headers }
  const range = servedRange(req, length, raster.etag)
  if (range === 'unsatisfiable')
    throw apiError(
      'range_not_satisfiable',
      { length },
      { headers: { 'accept-ranges': 'bytes', 'content-range': `bytes */${length}` } },
    )
  const { start, end } = range ?? { start: 0, end: length - 1 }
  return {
    status: range ? 206 : 200,
    contentType: CONTENT_TYPE,
    headers: {
      ...headers,
      'content-length': String(end - start + 1),
      ...(range ? { 'content-range': `bytes ${start}-${end}/${length}` } : {}),
    },
    stream: single(raster.bytes.subarray(start, end + 1)),
  }
}

/** Where the caller stands once this request is counted. */
function quotaHeaders(counted: Admission): Record<string, string> {
  return { ...rateLimitHeaders(counted.quota), ...keyExpiryHeaders(counted.caller, counted.at) }
}

/** The raster the query names, checked as the API checks it (docs/rasters.md). */
async function rasterOrder(
  url: URL,
  deps: RestDeps,
  service: SurvivalRasterService,
  accountId: string,
): Promise<RasterOrder> {
  const query = parseInput(RasterQuery, queryOf(url), 'query string')
  const model = await deps.models.resolve(accountId, query.model_version)
  const climate =
    query.period === undefined && query.scenario === undefined
      ? null
      : { period: query.period, scenario: query.scenario }
  return service.order(
    {
      speciesCode: query.species,
      plantingMethod: query.method,
      horizon: query.horizon,
      climate,
      treatments: treatmentsOfFields(query),
      resolution: query.resolution ?? RASTER_RESOLUTION_DEFAULT,
    },
    model,
  )
}

/**
 * The route is admitted uncounted (the router's `counted: false`) and counts itself once it knows how
 * the request reads the raster (RasterReadCounter). Once counted, its answer, an error included, says
 * where the caller stands after the count.
 */
async function serveRaster(
  req: IncomingMessage,
  url: URL,
  deps: RestDeps,
  admission: Admission,
  request: RequestContext,
): Promise<RestResponse> {
  let counted: Admission | undefined
  const count = async () => {
    const key = req.headers['x-api-key']
    counted ??= await deps.access.admit(Array.isArray(key) ? key[0] : key, request)
  }
  const account = admission.caller.accountId
  try {
    if (!deps.rasters) throw apiError('not_found', { path: url.pathname })
    const { service, reads } = deps.rasters
    let order: RasterOrder
    try {
      order = await rasterOrder(url, deps, service, account)
    } catch (error) {
      // Refused for its query or model version: counted, as any keyed request is.
      await count()
      throw error
    }
    if (reads.counts(account, order.key, readOf(req, order.ready), order.ready !== undefined)) {
      await count()
      reads.readCounted(account, order.key)
    }
    if (req.method === 'HEAD') reads.headCounted(account, order.key)
    const response = answer(req, order.ready ?? (await order.raster()))
    return counted ? { ...response, headers: { ...response.headers, ...quotaHeaders(counted) } } : response
  } catch (error) {
    if (!counted || !(error instanceof ApiError)) throw error
    throw new ApiError(error.code, error.message, error.details, {
      ...error.headers,
      ...quotaHeaders(counted),
    })
  }
}

/** Survival surfaces as Cloud-Optimized GeoTIFFs (docs/rasters.md). */
export const RASTER_ROUTES: readonly KeyedRoute[] = [
  keyed({
    method: 'GET',
    path: RASTER_PATH,
    authenticated: true,
    counted: false,
    handle: (req, url, deps, admission, _params, request) => serveRaster(req, url, deps, admission, request),
  }),
]
