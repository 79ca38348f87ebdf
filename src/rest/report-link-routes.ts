import { type Admission, keyExpiryHeaders } from '../access/auth/access-control.ts'
import { rateLimitHeaders } from '../access/quota/quota-guard.ts'
import { invalidField } from '../domain/errors.ts'
import type { SurveyFilter } from '../domain/ports/surveys.ts'
import type { ComparisonRequest, RankingRequest } from '../domain/prediction-types.ts'
import { REPORT_LINK_PATH, type RedeemedLink } from '../domain/reports/report-links.ts'
import type { ReportFile } from '../domain/reports/report-service.ts'
import type { StockingPlanRequest } from '../domain/stocking/stocking-types.ts'
import type { TreatmentsRequest } from '../domain/treatment-values.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { reportRequest, reportResponse } from './report-response.ts'
import type { RestDeps, Route } from './route.ts'

/** The fields that are set, in order: a report prints the body as the API contract spells it, nothing absent. */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  )
}

function treatmentsBody(treatments: TreatmentsRequest | null | undefined) {
  if (!treatments) return undefined
  const body = present({
    vegetation_control: treatments.vegetationControl,
    animal_protection: treatments.animalProtection,
    stock_type: treatments.stockType,
    shade: treatments.shade,
  })
  return Object.keys(body).length > 0 ? body : undefined
}

function climateBody(climate: { period?: string | null; scenario?: string | null } | null | undefined) {
  return climate ? present({ period: climate.period, scenario: climate.scenario }) : undefined
}

/** The POST /v1/predict/compare body that asks for this comparison with this model version. */
export function comparisonBody(request: ComparisonRequest, modelVersion: string) {
  return present({
    latitude: request.latitude,
    longitude: request.longitude,
    species_code: request.speciesCode,
    horizons: request.horizons,
    climate: climateBody(request.climate),
    treatments: treatmentsBody(request.treatments),
    model_version: modelVersion,
  })
}

/** The POST /v1/predict/rank body that asks for this ranking with this model version. */
export function rankingBody(request: RankingRequest, modelVersion: string) {
  return present({
    latitude: request.latitude,
    longitude: request.longitude,
    planting_method: request.plantingMethod,
    horizon: request.horizon,
    climate: climateBody(request.climate),
    treatments: treatmentsBody(request.treatments),
    model_version: modelVersion,
  })
}

/** The POST /v1/plans/stocking body that asks for this plan with this model version. */
export function stockingPlanBody(request: StockingPlanRequest, modelVersion: string) {
  return present({
    latitude: request.latitude,
    longitude: request.longitude,
    stand: request.stand,
    planting_method: request.plantingMethod,
    species_mix: request.speciesMix.map((item) => ({ species_code: item.speciesCode, share: item.share })),
    trees_per_acre: request.treesPerAcre,
    trees_per_hectare: request.treesPerHectare,
    confidence: request.confidence,
    rule_set: request.ruleSet,
    site_class: request.siteClass,
    target_trees_per_acre: request.targetTreesPerAcre,
    climate: climateBody(request.climate),
    treatments: treatmentsBody(request.treatments),
    model_version: modelVersion,
  })
}

/** GET /v1/surveys/report's query, in the order it is printed, that asks for this filter and version. */
export function surveyReportQuery(filter: SurveyFilter, modelVersion: string): Record<string, string> {
  return present({
    species_code: filter.speciesCode,
    planting_method: filter.plantingMethod,
    bbox: filter.bbox?.join(','),
    surveyed_from: filter.surveyedFrom,
    surveyed_to: filter.surveyedTo,
    model_version: modelVersion === '' ? undefined : modelVersion,
  }) as Record<string, string>
}

/**
 * The linked answer made again with the model version it was made with, and its report. The report
 * prints the REST request that gives the same answer (the body with `model_version` pinned).
 */
async function linkedReport(
  link: RedeemedLink,
  deps: RestDeps,
  admission: Admission,
  request: RequestContext,
): Promise<{ report: ReportFile; dataVersion: string | null }> {
  const asked = { language: link.language, paper: link.paper }
  // What the account keeps is read as it is now, as its owner: another account's job is not_found.
  if (link.operation === 'job') {
    const { caller } = admission
    const owner = { accountId: caller.accountId, keyId: caller.keyId, tier: caller.tier }
    const { job, summary } = await deps.jobs.resultsSummary(owner, link.request.jobId)
    const path = `/v1/jobs/${job.id}/report.pdf?paper=${link.paper}`
    const report = await deps.reports.job(job, summary, reportRequest(asked, request, path, null, 'GET'))
    return { report, dataVersion: null }
  }
  if (link.operation === 'survey') {
    const query = surveyReportQuery(link.request.filter, link.modelVersion)
    const version = link.modelVersion === '' ? undefined : link.modelVersion
    const surveys = await deps.surveys.report(link.holder.accountId, link.request.filter, version)
    const path = `/v1/surveys/report?${new URLSearchParams({ ...query, paper: link.paper })}`
    const report = await deps.reports.survey(surveys, {
      ...reportRequest(asked, request, path, query, 'GET'),
      body: query,
    })
    return { report, dataVersion: null }
  }
  const model = await deps.models.resolve(link.holder.accountId, link.modelVersion)
  switch (link.operation) {
    case 'comparison': {
      const comparison = await deps.predictions.compare(link.request, model)
      const body = comparisonBody(link.request, link.modelVersion)
      const report = await deps.reports.comparison(
        comparison,
        reportRequest(asked, request, '/v1/predict/compare', body),
      )
      return { report, dataVersion: comparison.site.dataVersion }
    }
    case 'ranking': {
      const ranking = await deps.predictions.rank(link.request, model)
      const body = rankingBody(link.request, link.modelVersion)
      const report = await deps.reports.ranking(
        ranking,
        reportRequest(asked, request, '/v1/predict/rank', body),
      )
      return { report, dataVersion: ranking.site.dataVersion }
    }
    case 'stocking-plan': {
      const plan = await deps.plans.plan(link.request, model)
      const body = stockingPlanBody(link.request, link.modelVersion)
      const report = await deps.reports.stockingPlan(
        plan,
        link.request.stand ?? null,
        reportRequest(asked, request, '/v1/plans/stocking', body),
      )
      return { report, dataVersion: plan.dataVersion }
    }
  }
}

/**
 * GET /v1/reports/{token}.pdf: the report a GraphQL `reportLink` handed out, with no key. The token
 * is checked first (signature, then expiry), then its key (as a key is), then one request is counted
 * on the key's account, and the answer is made again and reported (docs/reports.md → GraphQL).
 */
export const REPORT_LINK_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: `${REPORT_LINK_PATH}/{token}.pdf`,
    authenticated: false,
    async handle(_req, url, deps, params, request) {
      if (url.search !== '')
        throw invalidField(
          'query string',
          'takes no parameters: the link holds the report’s language and paper',
        )
      const link = deps.reportLinks.redeem(params.token ?? '')
      const admission = await deps.access.admitKeyId(link.holder.keyId, link.holder.accountId, request)
      const admitted = {
        'cache-control': 'no-store',
        ...rateLimitHeaders(admission.quota),
        ...keyExpiryHeaders(admission.caller, admission.at),
      }
      const { report, dataVersion } = await linkedReport(link, deps, admission, request)
      // One representation whatever the request's headers: the link chose the language and paper.
      const response = reportResponse(report, dataVersion)
      const { vary: _negotiated, ...headers } = response.headers ?? {}
      return { ...response, headers: { ...admitted, ...headers } }
    },
  },
]
