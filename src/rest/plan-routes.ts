import { ApiError, invalidField } from '../domain/errors.ts'
import { parseInput } from '../domain/input-rules.ts'
import { dataVersionHeaders } from './data-version-header.ts'
import { readJsonBody } from './json-body.ts'
import { plantingOptionsJson, stockingPlanJson } from './plan-responses.ts'
import { reportAsked } from './report-negotiation.ts'
import { reportRequest, reportResponse } from './report-response.ts'
import {
  costsRequest,
  PlantingOptionsBody,
  StockingPlanBody,
  treatmentChoices,
  treatmentsRequest,
} from './request-schemas.ts'
import type { Route } from './route.ts'

/** camelCase names (speciesMix, treesPerAcre) as the API contract spells them: species_mix, trees_per_acre. */
function snakeCase(text: string): string {
  return text.replace(/\b[a-z]+(?:[A-Z][a-z\d]*)+\b/g, (name) =>
    name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
  )
}

/**
 * The plan service names its request's fields as the domain does (`speciesMix[1].speciesCode`); the
 * body names them as the API contract does (`species_mix[1].species_code`).
 */
function withBodyFieldNames(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.code !== 'invalid_request') return error
  const { field, reason } = (error.details ?? {}) as { field?: unknown; reason?: unknown }
  if (typeof field !== 'string' || typeof reason !== 'string') return error
  return invalidField(snakeCase(field), snakeCase(reason))
}

/** The planning endpoints: a plan counts as one request, like a prediction. */
export const PLAN_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/plans/stocking',
    authenticated: true,
    alongside: true,
    async handle(req, url, deps, caller, _params, request) {
      const asked = reportAsked(req, url)
      const raw = await readJsonBody(req)
      const body = parseInput(StockingPlanBody, raw)
      const model = await deps.models.resolve(caller.accountId, body.model_version)
      const plan = await deps.plans
        .plan(
          {
            latitude: body.latitude,
            longitude: body.longitude,
            stand: body.stand,
            plantingMethod: body.planting_method,
            speciesMix: mixRequest(body.species_mix) ?? [],
            treesPerAcre: body.trees_per_acre,
            treesPerHectare: body.trees_per_hectare,
            confidence: body.confidence,
            ruleSet: body.rule_set,
            siteClass: body.site_class,
            targetTreesPerAcre: body.target_trees_per_acre,
            climate: body.climate,
            treatments: treatmentsRequest(body.treatments),
            costs: costsRequest(body.costs),
          },
          model,
        )
        .catch((error: unknown) => {
          throw withBodyFieldNames(error)
        })
      if (asked) {
        const report = await deps.reports.stockingPlan(
          plan,
          body.stand ?? null,
          reportRequest(asked, request, '/v1/plans/stocking', raw),
        )
        return reportResponse(report, plan.dataVersion)
      }
      return { status: 200, body: stockingPlanJson(plan), headers: dataVersionHeaders(plan.dataVersion) }
    },
  },
  {
    method: 'POST',
    path: '/v1/plans/options',
    authenticated: true,
    alongside: true,
    async handle(req, _url, deps, caller) {
      const body = parseInput(PlantingOptionsBody, await readJsonBody(req))
      const model = await deps.models.resolve(caller.accountId, body.model_version)
      const options = await deps.plans
        .options(
          {
            latitude: body.latitude,
            longitude: body.longitude,
            stand: body.stand,
            speciesMix: mixRequest(body.species_mix),
            speciesMixes: body.species_mixes?.map((mix) => mixRequest(mix) ?? []),
            confidence: body.confidence,
            methods: body.methods,
            treatments: treatmentChoices(body.treatments),
            costs: costsRequest(body.costs),
            maxTreesPerAcre: body.max_trees_per_acre,
            climate: body.climate,
          },
          model,
        )
        .catch((error: unknown) => {
          throw withBodyFieldNames(error)
        })
      return {
        status: 200,
        body: plantingOptionsJson(options),
        headers: dataVersionHeaders(options.dataVersion),
      }
    },
  },
]

function mixRequest(
  mix: readonly { species_code: string; share: number }[] | null | undefined,
): { speciesCode: string; share: number }[] | null | undefined {
  if (mix == null) return mix
  return mix.map((item) => ({ speciesCode: item.species_code, share: item.share }))
}
