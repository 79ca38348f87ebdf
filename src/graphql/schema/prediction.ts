import { parseInput, riskFactorLimit } from '../../domain/input-rules.ts'
import type { Prediction, PredictionRequest, SurvivalInterval } from '../../domain/prediction-types.ts'
import type { FactorContribution, HorizonPrediction } from '../../types.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum, SpeciesRef } from './catalogue.ts'
import { ClimateProjectionRef, HorizonChangeRef } from './climate.ts'
import { PredictionInput } from './inputs.ts'
import { ModelRef, pinnedModel } from './models.ts'
import { SiteRef } from './site.ts'
import { AppliedTreatmentsRef, HorizonTreatmentRef } from './treatments.ts'

const RISK_FACTORS_SHOWN = 3

function checkedRiskFactorLimit(limit: number): number {
  if (Number.isInteger(limit) && limit >= 1 && limit <= 50) return limit
  return parseInput(riskFactorLimit, { limit }, 'arguments').limit
}

const ImpactEnum = builder.enumType('Impact', {
  description: 'Which way a factor moves survival, relative to the model reference site',
  values: {
    NEGATIVE: { value: 'negative', description: 'Reduces survival' },
    POSITIVE: { value: 'positive', description: 'Supports survival (or has no effect)' },
  } as const,
})

export const RiskFactorRef = builder.objectRef<FactorContribution>('RiskFactor').implement({
  description: 'One environmental factor behind a prediction, relative to the model reference site',
  fields: (t) => ({
    factor: t.exposeString('factor', { description: 'Human-readable factor name, e.g. Summer drought' }),
    key: t.exposeString('key', { description: 'Stable machine-readable factor id (see modelFactors)' }),
    impact: t.field({
      type: ImpactEnum,
      description: 'Whether the factor lowers or raises survival here',
      resolve: (f) => f.impact,
    }),
    magnitude: t.exposeFloat('magnitude', { description: 'Size of the effect: |contribution|, log-odds' }),
    contribution: t.exposeFloat('contribution', {
      description: 'Signed effect on the log-odds of survival (negative lowers survival)',
    }),
    untreatedContribution: t.float({
      nullable: true,
      description:
        'With treatments, on a factor they changed: its contribution without them; null otherwise (see HorizonPrediction.treatment)',
      resolve: (f) => f.untreatedContribution ?? null,
    }),
  }),
})

interface HorizonInterval extends SurvivalInterval {
  horizonYears: number
}

const SurvivalIntervalRef = builder.objectRef<HorizonInterval>('SurvivalInterval').implement({
  description:
    'A central interval of survival at a level: how far survival can stray from the prediction for a planting at a site like this one (a planting-year and a site effect on the logit scale, stated assumptions: see the model card). The prediction’s own probability is its median',
  fields: (t) => ({
    horizonYears: t.exposeInt('horizonYears', { description: 'Years after planting: 1, 3 or 5' }),
    lower: t.exposeFloat('lower', { description: 'Lower end, probability 0–1' }),
    upper: t.exposeFloat('upper', { description: 'Upper end, probability 0–1' }),
    level: t.exposeFloat('level', { description: 'Share of outcomes the interval holds, 0.5–0.99' }),
  }),
})

const LEVEL = 'Share of outcomes the interval holds, 0.5–0.99; default 0.9'

export const HorizonPredictionRef = builder.objectRef<HorizonPrediction>('HorizonPrediction').implement({
  description: 'Survival at one horizon, with the factors behind it',
  fields: (t) => ({
    horizonYears: t.exposeInt('horizonYears', { description: 'Years after planting: 1, 3 or 5' }),
    survivalProbability: t.exposeFloat('survivalProbability', {
      description: 'Probability that a planted tree is alive after horizonYears, 0 (certain mortality) to 1',
    }),
    riskFactors: t.field({
      type: [RiskFactorRef],
      description: 'The top factors by magnitude (3 unless `limit` says otherwise)',
      args: {
        limit: t.arg.int({
          required: false,
          defaultValue: RISK_FACTORS_SHOWN,
          description: 'How many factors to return, 1 to 50',
        }),
      },
      // Checked here, synchronously, rather than by the zod plugin: this resolver runs for every horizon of
      // every prediction (1,500 times in a 500-site batch), and the plugin's async check cost more than
      // the field.
      resolve: (p, { limit }) => p.topContributions(checkedRiskFactorLimit(limit ?? RISK_FACTORS_SHOWN)),
    }),
    allFactors: t.field({
      type: [RiskFactorRef],
      description:
        'Every factor contribution, ranked by magnitude: baselineLogOdds + Σ contribution = logOdds',
      resolve: (p) => p.contributions,
    }),
    baselineLogOdds: t.exposeFloat('baselineLogOdds', {
      description: 'Log-odds of survival at the model reference site for this species, method and horizon',
    }),
    survivalInterval: t.field({
      type: SurvivalIntervalRef,
      description: 'The central interval of survival at this horizon',
      args: { level: t.arg.float({ required: false, defaultValue: 0.9, description: LEVEL }) },
      resolve: (h, { level }, ctx) => ({
        horizonYears: h.horizonYears,
        ...ctx.predictions.survivalInterval(h, level ?? 0.9),
      }),
    }),
    logOdds: t.exposeFloat('logOdds', {
      description: 'Log-odds of survival at this site: logit(survivalProbability)',
    }),
    treatment: t.field({
      type: HorizonTreatmentRef,
      nullable: true,
      description:
        'With treatments: survival without them, the treated factors’ contributions beside the untreated ones, and the SD the treatments add; null when untreated',
      resolve: (h) => h.treatment ?? null,
    }),
  }),
})

export const PredictionRef = builder.objectRef<Prediction>('Prediction').implement({
  description: 'Survival of one species, planted one way, at one site',
  fields: (t) => ({
    site: t.field({ type: SiteRef, description: 'The site that answered', resolve: (p) => p.site }),
    species: t.field({ type: SpeciesRef, description: 'The species predicted', resolve: (p) => p.species }),
    speciesCode: t.string({
      description: 'Four-letter species code, e.g. PSME',
      resolve: (p) => p.species.code,
    }),
    speciesCommonName: t.string({
      description: 'Common name of the species, e.g. Douglas-fir',
      resolve: (p) => p.species.commonName,
    }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      description: 'How the trees are established',
      resolve: (p) => p.plantingMethod,
    }),
    predictions: t.field({
      type: [HorizonPredictionRef],
      description: 'One entry per requested horizon, ascending',
      resolve: (p) => p.predictions,
    }),
    survivalInterval: t.field({
      type: [SurvivalIntervalRef],
      description:
        'The central interval of survival at each requested horizon, ascending; survivalProbability is each one’s median',
      args: { level: t.arg.float({ required: false, defaultValue: 0.9, description: LEVEL }) },
      resolve: (p, { level }, ctx) =>
        p.predictions.map((h) => ({
          horizonYears: h.horizonYears,
          ...ctx.predictions.survivalInterval(h, level ?? 0.9),
        })),
    }),
    climate: t.field({
      type: ClimateProjectionRef,
      nullable: true,
      description:
        'Under a future climate (input.climate): what it did to the site; null for today’s climate',
      resolve: (p) => p.climate ?? null,
    }),
    treatments: t.field({
      type: AppliedTreatmentsRef,
      nullable: true,
      description:
        'The treatments applied (input.treatments), with their effects’ statuses and sources; null when untreated',
      resolve: (p) => p.treatments ?? null,
    }),
    changeFromToday: t.field({
      type: [HorizonChangeRef],
      nullable: true,
      description:
        'Under a future climate: each horizon and each factor against today’s climate at the same site (the model evaluated once more); null for today’s climate',
      resolve: (p, _args, ctx) => ctx.predictions.changeFromToday(p),
    }),
    model: t.field({ type: ModelRef, description: 'The model that answered', resolve: (p) => p.model }),
    generatedAt: t.field({
      type: 'DateTime',
      description: 'When the prediction was made',
      resolve: (p) => p.generatedAt,
    }),
  }),
})

builder.queryFields((t) => ({
  predict: t.field({
    type: PredictionRef,
    nullable: true,
    description:
      'Survival at 1, 3 and 5 years for one site, species and planting method. Null, with an error, when this site cannot be answered; other aliases still are',
    args: { input: t.arg({ type: PredictionInput, required: true, description: 'What to predict' }) },
    resolve: async (_root, { input }, ctx) =>
      ctx.predictions.predict(input as PredictionRequest, await pinnedModel(ctx, input.modelVersion)),
  }),
}))
