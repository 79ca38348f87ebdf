import type { Comparison, ComparisonRequest, HorizonDifferential } from '../../domain/prediction-types.ts'
import { builder } from './builder.ts'
import { SpeciesRef } from './catalogue.ts'
import { ClimateProjectionRef } from './climate.ts'
import { ComparisonInput } from './inputs.ts'
import { ModelRef, pinnedModel } from './models.ts'
import { HorizonPredictionRef } from './prediction.ts'
import { linkable, reportLinkField } from './report-links.ts'
import { SiteRef } from './site.ts'
import { MethodTreatmentsRef } from './treatments.ts'

const MethodDifferentialRef = builder.objectRef<HorizonDifferential>('MethodDifferential').implement({
  description: 'Survival gap between the methods at one horizon: manual − droneSeeded',
  fields: (t) => ({
    horizonYears: t.exposeInt('horizonYears', { description: 'Years after planting: 1, 3 or 5' }),
    manual: t.exposeFloat('manual', { description: 'Survival probability with hand planting, 0 to 1' }),
    droneSeeded: t.exposeFloat('droneSeeded', {
      description: 'Survival probability with drone seeding, 0 to 1',
    }),
    difference: t.exposeFloat('difference', {
      description: 'manual − droneSeeded, −1 to 1: positive when hand planting survives better',
    }),
  }),
})

const MethodComparisonRef = builder.objectRef<Comparison>('MethodComparison').implement({
  description: 'One species at one site under both planting methods',
  fields: (t) => ({
    site: t.field({ type: SiteRef, description: 'The site that answered', resolve: (c) => c.site }),
    species: t.field({ type: SpeciesRef, description: 'The species predicted', resolve: (c) => c.species }),
    manual: t.field({
      type: [HorizonPredictionRef],
      description: 'Survival with hand planting, one entry per requested horizon',
      resolve: (c) => c.manual,
    }),
    droneSeeded: t.field({
      type: [HorizonPredictionRef],
      description: 'Survival with drone seeding, one entry per requested horizon',
      resolve: (c) => c.droneSeeded,
    }),
    methodDifferential: t.field({
      type: [MethodDifferentialRef],
      description: 'The gap between the methods at each requested horizon',
      resolve: (c) => c.methodDifferential,
    }),
    climate: t.field({
      type: ClimateProjectionRef,
      nullable: true,
      description:
        'Under a future climate (input.climate): what it did to the site; null for today’s climate',
      resolve: (c) => c.climate ?? null,
    }),
    treatments: t.field({
      type: MethodTreatmentsRef,
      nullable: true,
      description: 'The treatments applied to each method (input.treatments); null when untreated',
      resolve: (c) => c.treatments ?? null,
    }),
    model: t.field({ type: ModelRef, description: 'The model that answered', resolve: (c) => c.model }),
    generatedAt: t.field({
      type: 'DateTime',
      description: 'When the comparison was made',
      resolve: (c) => c.generatedAt,
    }),
    reportLink: reportLinkField(t, 'comparison'),
  }),
})

builder.queryFields((t) => ({
  compareMethods: t.field({
    type: MethodComparisonRef,
    nullable: true,
    description: 'Both planting methods for one site and species, with the per-horizon differential',
    args: { input: t.arg({ type: ComparisonInput, required: true, description: 'What to compare' }) },
    resolve: async (_root, { input }, ctx) =>
      linkable(
        await ctx.predictions.compare(input as ComparisonRequest, await pinnedModel(ctx, input.modelVersion)),
        { operation: 'comparison', request: input as ComparisonRequest },
      ),
  }),
}))
