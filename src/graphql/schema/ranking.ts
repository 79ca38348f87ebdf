import { horizon, latitude, longitude } from '../../domain/input-rules.ts'
import type { RankedSpecies, RankingRequest, SpeciesRanking } from '../../domain/prediction-types.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum, SpeciesRef } from './catalogue.ts'
import { ClimateInput, ClimateProjectionRef } from './climate.ts'
import { MODEL_VERSION_ARG, ModelRef, modelVersionRule, pinnedModel } from './models.ts'
import { RiskFactorRef } from './prediction.ts'
import { linkable, reportLinkField } from './report-links.ts'
import { SiteRef } from './site.ts'
import { AppliedTreatmentsRef, TREATMENTS_ARG, TreatmentsInput } from './treatments.ts'

const RankedSpeciesRef = builder.objectRef<RankedSpecies>('RankedSpecies').implement({
  description: 'One species in a ranking: its survival at the site and what drives it',
  fields: (t) => ({
    rank: t.exposeInt('rank', {
      description: '1 = best survival; by survivalProbability descending, ties by species code',
    }),
    species: t.field({ type: SpeciesRef, description: 'The species', resolve: (r) => r.species }),
    survivalProbability: t.exposeFloat('survivalProbability', {
      description: 'Probability that a planted tree is alive after horizonYears, 0 to 1',
    }),
    nativeRange: t.exposeBoolean('nativeRange', {
      description:
        'Whether the matched site lies in the species’ native range: the site’s ecological zone (Site.zone, set by its forest region and elevation) is one of the species’ rangeZones and its state (Site.state) one of its rangeStates. The model’s native_range factor applies the same rule',
    }),
    topFactor: t.field({
      type: RiskFactorRef,
      description:
        'The factor with the largest effect on this prediction (largest magnitude, ties by key): the first of Prediction.riskFactors',
      resolve: (r) => r.topFactor,
    }),
    untreatedSurvivalProbability: t.float({
      nullable: true,
      description: 'With treatments: its survival without them; null when untreated',
      resolve: (r) => r.untreatedSurvivalProbability ?? null,
    }),
  }),
})

const SpeciesRankingRef = builder.objectRef<SpeciesRanking>('SpeciesRanking').implement({
  description: 'Every species at one site, planted one way, ranked by survival at one horizon',
  fields: (t) => ({
    site: t.field({ type: SiteRef, description: 'The site that answered', resolve: (r) => r.site }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      description: 'How the trees are established',
      resolve: (r) => r.plantingMethod,
    }),
    horizonYears: t.exposeInt('horizonYears', { description: 'Years after planting: 1, 3 or 5' }),
    ranking: t.field({
      type: [RankedSpeciesRef],
      description: 'All 20 species, best survival first (ties by species code); rank starts at 1',
      resolve: (r) => r.ranking,
    }),
    climate: t.field({
      type: ClimateProjectionRef,
      nullable: true,
      description:
        'Under a future climate (the climate argument): what it did to the site; null for today’s climate',
      resolve: (r) => r.climate ?? null,
    }),
    treatments: t.field({
      type: AppliedTreatmentsRef,
      nullable: true,
      description: 'The treatments applied to every species (the treatments argument); null when untreated',
      resolve: (r) => r.treatments ?? null,
    }),
    model: t.field({ type: ModelRef, description: 'The model that answered', resolve: (r) => r.model }),
    generatedAt: t.field({
      type: 'DateTime',
      description: 'When the ranking was made',
      resolve: (r) => r.generatedAt,
    }),
    reportLink: reportLinkField(t, 'ranking'),
  }),
})

builder.queryFields((t) => ({
  speciesRanking: t.field({
    type: SpeciesRankingRef,
    nullable: true,
    description:
      'Which species survives best here? Every species at the data point nearest the coordinates, for one planting method and horizon. The same checks and errors as predict (outside_coverage, no_nearby_data); counts as one request and as one site prediction against the batch size',
    args: {
      latitude: t.arg.float({
        required: true,
        description: 'Latitude of the planting site, decimal degrees (WGS84), −90 to 90',
        validate: { schema: latitude },
      }),
      longitude: t.arg.float({
        required: true,
        description: 'Longitude of the planting site, decimal degrees (WGS84), −180 to 180',
        validate: { schema: longitude },
      }),
      plantingMethod: t.arg({
        type: PlantingMethodEnum,
        required: true,
        description: 'How the trees are established',
      }),
      horizon: t.arg.int({
        required: true,
        description: 'Years after planting to rank by: 1, 3 or 5',
        validate: { schema: horizon },
      }),
      climate: t.arg({
        type: ClimateInput,
        required: false,
        description: 'The climate to rank for; absent or null: today’s (see ClimateInput)',
      }),
      treatments: t.arg({ type: TreatmentsInput, required: false, description: TREATMENTS_ARG }),
      modelVersion: t.arg.string({
        required: false,
        description: MODEL_VERSION_ARG,
        validate: modelVersionRule,
      }),
    },
    resolve: async (_root, args, ctx) =>
      linkable(
        await ctx.predictions.rank(args as RankingRequest, await pinnedModel(ctx, args.modelVersion)),
        { operation: 'ranking', request: args as RankingRequest },
      ),
  }),
}))
