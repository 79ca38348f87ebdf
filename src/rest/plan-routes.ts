import { parseInput } from '../domain/input-rules.ts'
import { readJsonBody } from './json-body.ts'
import { stockingPlanJson } from './plan-responses.ts'
import { StockingPlanBody } from './request-schemas.ts'
import type { Route } from './route.ts'

/** The planning endpoints: a plan counts as one request, like a prediction. */
export const PLAN_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/plans/stocking',
    authenticated: true,
    alongside: true,
    async handle(req, _url, deps) {
      const body = parseInput(StockingPlanBody, await readJsonBody(req))
      const plan = await deps.plans.plan({
        latitude: body.latitude,
        longitude: body.longitude,
        stand: body.stand,
        plantingMethod: body.planting_method,
        speciesMix: body.species_mix.map((item) => ({ speciesCode: item.species_code, share: item.share })),
        treesPerAcre: body.trees_per_acre,
        treesPerHectare: body.trees_per_hectare,
        confidence: body.confidence,
        ruleSet: body.rule_set,
        siteClass: body.site_class,
        targetTreesPerAcre: body.target_trees_per_acre,
        climate: body.climate,
      })
      return { status: 200, body: stockingPlanJson(plan) }
    },
  },
]
