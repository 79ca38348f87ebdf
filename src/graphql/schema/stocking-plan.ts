import type { StockingPlanRequest } from '../../domain/stocking/stocking-types.ts'
import { builder } from './builder.ts'
import { pinnedModel } from './models.ts'
import { withGraphQLFieldNames } from './plan-input-errors.ts'
import { linkable } from './report-links.ts'
import { StockingPlanInput } from './stocking-plan-input.ts'
import { StockingPlanRef } from './stocking-plan-types.ts'

/* stockingPlan: the GraphQL face of POST /v1/plans/stocking (same service, same rules). */

builder.queryFields((t) => ({
  stockingPlan: t.field({
    type: StockingPlanRef,
    nullable: true,
    description:
      'How many trees to plant: the probability that a planted density of a species mix meets the reforestation standard here, and the density that would at a stated confidence. Counts as one request. Null, with an error, when it cannot be answered',
    args: { input: t.arg({ type: StockingPlanInput, required: true, description: 'What to plan' }) },
    resolve: async (_root, { input }, ctx) => {
      try {
        const request = input as StockingPlanRequest
        return linkable(await ctx.plans.plan(request, await pinnedModel(ctx, input.modelVersion)), {
          operation: 'stocking-plan',
          request,
        })
      } catch (error) {
        throw withGraphQLFieldNames(error)
      }
    },
  }),
}))
