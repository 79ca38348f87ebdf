import { DataVersionSeen } from '../domain/data-version-seen.ts'
import { apiError } from '../domain/errors.ts'
import { parseInput } from '../domain/input-rules.ts'
import type { PredictionRequest } from '../domain/prediction-types.ts'
import { SerializedJson } from '../http-body/json.ts'
import { API_VERSION } from '../version.ts'
import { dataVersionHeaders } from './data-version-header.ts'
import { JOB_ROUTES } from './job-routes.ts'
import { readJsonBody, readOptionalJsonBody } from './json-body.ts'
import { MODEL_ROUTES } from './model-routes.ts'
import { openapiDocument } from './openapi.ts'
import { PLAN_ROUTES } from './plan-routes.ts'
import { batchResultsJson, predictionText } from './prediction-writer.ts'
import { RASTER_ROUTES } from './raster-routes.ts'
import { REPORT_LINK_ROUTES } from './report-link-routes.ts'
import { reportAsked } from './report-negotiation.ts'
import { reportRequest, reportResponse } from './report-response.ts'
import {
  AuditQuery,
  BatchBody,
  CompareBody,
  PredictBody,
  RankBody,
  RotateBody,
  SpeciesQuery,
  SporeKeyBody,
  treatmentsRequest,
} from './request-schemas.ts'
import {
  auditPageJson,
  climateCatalogueJson,
  comparisonJson,
  coverageJson,
  methodJson,
  rankingJson,
  rotationJson,
  speciesJson,
  usageJson,
} from './responses.ts'
import { keyed, type RestResponse, type Route } from './route.ts'
import { SURVEY_ROUTES } from './survey-routes.ts'
import { SURVEY_UPLOAD_ROUTES } from './survey-upload-routes.ts'
import { treatmentCatalogueJson } from './treatments-json.ts'

const ok = (body: unknown, dataVersion?: string | null): RestResponse => ({
  status: 200,
  body,
  headers: dataVersionHeaders(dataVersion),
})

/** POST /keys answers this, and only this, to every request it takes. */
const CHECK_YOUR_EMAIL = new SerializedJson('{"status":"check_your_email"}')

function predictionRequest(
  body: Omit<ReturnType<typeof PredictBody.parse>, 'model_version'>,
): PredictionRequest {
  return {
    latitude: body.latitude,
    longitude: body.longitude,
    speciesCode: body.species_code,
    plantingMethod: body.planting_method,
    horizons: body.horizons,
    climate: body.climate,
    treatments: treatmentsRequest(body.treatments),
  }
}

export const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/predict',
    authenticated: true,
    alongside: true,
    async handle(req, _url, deps, caller) {
      const body = parseInput(PredictBody, await readJsonBody(req))
      const model = await deps.models.resolve(caller.accountId, body.model_version)
      const prediction = await deps.predictions.predict(predictionRequest(body), model)
      return ok(new SerializedJson(predictionText(prediction)), prediction.site.dataVersion)
    },
  },
  {
    method: 'POST',
    path: '/v1/predict/compare',
    authenticated: true,
    alongside: true,
    async handle(req, url, deps, caller, _params, request) {
      const asked = reportAsked(req, url)
      const raw = await readJsonBody(req)
      const body = parseInput(CompareBody, raw)
      const model = await deps.models.resolve(caller.accountId, body.model_version)
      const comparison = await deps.predictions.compare(
        {
          latitude: body.latitude,
          longitude: body.longitude,
          speciesCode: body.species_code,
          horizons: body.horizons,
          climate: body.climate,
          treatments: treatmentsRequest(body.treatments),
        },
        model,
      )
      if (asked) {
        const report = await deps.reports.comparison(
          comparison,
          reportRequest(asked, request, '/v1/predict/compare', raw),
        )
        return reportResponse(report, comparison.site.dataVersion)
      }
      return ok(comparisonJson(comparison), comparison.site.dataVersion)
    },
  },
  {
    method: 'POST',
    path: '/v1/predict/rank',
    authenticated: true,
    alongside: true,
    async handle(req, url, deps, caller, _params, request) {
      const asked = reportAsked(req, url)
      const raw = await readJsonBody(req)
      const body = parseInput(RankBody, raw)
      const model = await deps.models.resolve(caller.accountId, body.model_version)
      const ranking = await deps.predictions.rank(
        {
          latitude: body.latitude,
          longitude: body.longitude,
          plantingMethod: body.planting_method,
          horizon: body.horizon,
          climate: body.climate,
          treatments: treatmentsRequest(body.treatments),
        },
        model,
      )
      if (asked) {
        const report = await deps.reports.ranking(
          ranking,
          reportRequest(asked, request, '/v1/predict/rank', raw),
        )
        return reportResponse(report, ranking.site.dataVersion)
      }
      return ok(rankingJson(ranking), ranking.site.dataVersion)
    },
  },
  {
    method: 'POST',
    path: '/v1/predict/batch',
    authenticated: true,
    alongside: true,
    async handle(req, _url, deps, caller) {
      const body = parseInput(BatchBody, await readJsonBody(req))
      const model = await deps.models.resolve(caller.accountId, body.model_version)
      const results = await deps.predictions.batch(body.sites.map(predictionRequest), caller.tier, model)
      const seen = new DataVersionSeen()
      const json = batchResultsJson(seen.through(results))
      return ok(json, seen.version)
    },
  },
  {
    method: 'GET',
    path: '/v1/species',
    authenticated: true,
    async handle(_req, url, deps) {
      const filter = parseInput(SpeciesQuery, Object.fromEntries(url.searchParams), 'query string')
      const species = deps.catalogue.species(filter)
      return ok({ species: species.map(speciesJson), count: species.length })
    },
  },
  {
    method: 'GET',
    path: '/v1/methods',
    authenticated: true,
    async handle(_req, _url, deps) {
      return ok({ methods: deps.catalogue.plantingMethods().map(methodJson) })
    },
  },
  {
    method: 'GET',
    path: '/v1/treatments',
    authenticated: true,
    async handle(_req, _url, deps) {
      return ok(treatmentCatalogueJson(deps.catalogue.treatments()))
    },
  },
  {
    method: 'GET',
    path: '/v1/climate',
    authenticated: true,
    async handle(_req, _url, deps) {
      return ok(climateCatalogueJson(deps.predictions.climates()))
    },
  },
  {
    method: 'GET',
    path: '/v1/coverage',
    authenticated: true,
    async handle(_req, _url, deps) {
      return {
        ...ok(coverageJson(deps.catalogue.coverage())),
        contentType: 'application/geo+json; charset=utf-8',
      }
    },
  },
  {
    method: 'GET',
    path: '/v1/usage',
    authenticated: true,
    async handle(_req, _url, deps, { caller, quota }) {
      const usage = await deps.keys.usage({
        keyId: caller.keyId,
        accountId: caller.accountId,
        tier: caller.tier,
        used: quota.used,
        remaining: quota.remaining,
        resetsAt: quota.resetAt,
      })
      return ok(usageJson(usage))
    },
  },
  keyed({
    // The caller's account only: the account is the admitted caller's, never named by the request.
    method: 'GET',
    path: '/v1/audit',
    authenticated: true,
    async handle(_req, url, deps, { caller }) {
      const query = parseInput(AuditQuery, Object.fromEntries(url.searchParams), 'query string')
      const page = await deps.audit.page(caller.accountId, { limit: query.limit, cursor: query.cursor })
      return ok(auditPageJson(page))
    },
  }),
  keyed({
    method: 'POST',
    path: '/v1/keys/rotate',
    authenticated: true,
    async handle(req, _url, deps, { caller }, _params, request) {
      const body = parseInput(RotateBody, await readOptionalJsonBody(req))
      const rotation = await deps.keys.rotate(caller.keyId, body.grace_seconds ?? 0, request.clientAddress)
      return {
        status: 201,
        body: rotationJson(rotation, caller.keyId),
        headers: { 'cache-control': 'no-store' },
      }
    },
  }),
  {
    method: 'POST',
    path: '/keys',
    authenticated: false,
    async handle(req, url, deps, _params, request) {
      if (!deps.keyRequests) throw apiError('not_found', { path: url.pathname })
      const body = parseInput(SporeKeyBody, await readJsonBody(req))
      await deps.keyRequests.request(body, request.clientAddress ?? 'unknown')
      // The same answer for every address, whether or not it holds a key: the mail tells the rest.
      return { status: 202, body: CHECK_YOUR_EMAIL, headers: { 'cache-control': 'no-store' } }
    },
  },
  {
    method: 'GET',
    path: '/v1/openapi.json',
    authenticated: false,
    async handle() {
      return ok(await openapiDocument())
    },
  },
  {
    method: 'GET',
    path: '/v1/health',
    authenticated: false,
    async handle(_req, _url, deps) {
      const report = await deps.health.check()
      return { status: report.status === 'unavailable' ? 503 : 200, body: report }
    },
  },
  {
    // Liveness: the process answers. It asks no dependency, so a database or Redis outage never gets
    // healthy processes restarted; readiness is /v1/health.
    method: 'GET',
    path: '/v1/health/live',
    authenticated: false,
    async handle() {
      return ok({ status: 'alive', version: API_VERSION })
    },
  },
  ...PLAN_ROUTES,
  ...JOB_ROUTES,
  ...SURVEY_UPLOAD_ROUTES,
  ...MODEL_ROUTES,
  ...SURVEY_ROUTES,
  ...RASTER_ROUTES,
  ...REPORT_LINK_ROUTES,
]
