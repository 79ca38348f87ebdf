import { z } from 'zod'
import type {
  Comparison,
  HorizonDifferential,
  MatchedSite,
  Prediction,
  PredictionRequest,
} from '../../domain/predictions.ts'
import type { FactorContribution, HorizonPrediction } from '../../model/index.ts'
import { builder } from '../builder.ts'
import { ModelRef, PlantingMethodEnum, SpeciesRef } from './catalog.ts'

const ImpactEnum = builder.enumType('Impact', {
  values: {
    NEGATIVE: { value: 'negative', description: 'Reduces survival' },
    POSITIVE: { value: 'positive', description: 'Supports survival' },
  } as const,
})

const RiskFactorRef = builder.objectRef<FactorContribution>('RiskFactor').implement({
  description: 'One environmental factor behind a prediction, relative to the model reference site',
  fields: (t) => ({
    factor: t.exposeString('factor', { description: 'Human-readable factor name' }),
    key: t.exposeString('key', { description: 'Stable machine-readable factor id' }),
    impact: t.field({ type: ImpactEnum, resolve: (f) => f.impact }),
    magnitude: t.exposeFloat('magnitude', { description: 'Size of the effect: |contribution|, log-odds' }),
    contribution: t.exposeFloat('contribution', { description: 'Signed effect on the log-odds of survival' }),
  }),
})

const HorizonPredictionRef = builder.objectRef<HorizonPrediction>('HorizonPrediction').implement({
  fields: (t) => ({
    horizonYears: t.exposeInt('horizonYears', { description: '1, 3 or 5' }),
    survivalProbability: t.exposeFloat('survivalProbability', { description: '0 (certain mortality) to 1' }),
    riskFactors: t.field({
      type: [RiskFactorRef],
      description: 'The top factors by magnitude (3 unless `limit` says otherwise)',
      args: {
        limit: t.arg.int({ required: false, defaultValue: 3, validate: { int: true, min: 1, max: 50 } }),
      },
      resolve: (p, args) => p.contributions.slice(0, args.limit ?? 3),
    }),
    allFactors: t.field({
      type: [RiskFactorRef],
      description:
        'Every factor contribution, ranked by magnitude: baselineLogOdds + Σ contribution = logOdds',
      resolve: (p) => p.contributions,
    }),
    baselineLogOdds: t.exposeFloat('baselineLogOdds', {
      description: 'Log-odds at the model reference site',
    }),
    logOdds: t.exposeFloat('logOdds'),
  }),
})

const SiteRef = builder.objectRef<MatchedSite>('Site').implement({
  description: 'The requested point and the nearest data point that answered it',
  fields: (t) => ({
    latitude: t.exposeFloat('latitude', { description: 'Requested latitude' }),
    longitude: t.exposeFloat('longitude', { description: 'Requested longitude' }),
    matchedLatitude: t.exposeFloat('matchedLatitude'),
    matchedLongitude: t.exposeFloat('matchedLongitude'),
    matchDistanceKm: t.exposeFloat('matchDistanceKm', {
      description: 'Great-circle distance to the matched point',
    }),
    region: t.exposeString('region'),
    siteId: t.int({ resolve: (s) => s.attributes.id }),
    forestRegion: t.string({ resolve: (s) => s.attributes.regionId }),
    zone: t.string({
      resolve: (s) => s.attributes.zone,
      description: 'Ecological zone (species range zones)',
    }),
    elevationM: t.int({ resolve: (s) => s.attributes.elevationM }),
    slopeDeg: t.float({ resolve: (s) => s.attributes.slopeDeg }),
    aspectDeg: t.float({ resolve: (s) => s.attributes.aspectDeg }),
    heatLoadIndex: t.float({ resolve: (s) => s.attributes.heatLoadIndex }),
    soilDepthCm: t.int({ resolve: (s) => s.attributes.soilDepthCm }),
    rockFractionPct: t.float({ resolve: (s) => s.attributes.rockFractionPct }),
    vegetationCoverPct: t.float({ resolve: (s) => s.attributes.vegetationCoverPct }),
    annualPrecipMm: t.int({ resolve: (s) => s.attributes.annualPrecipMm }),
    summerWaterDeficitMm: t.int({ resolve: (s) => s.attributes.summerWaterDeficitMm }),
    growingSeasonFrostDays: t.int({ resolve: (s) => s.attributes.growingSeasonFrostDays }),
    browsePressureIndex: t.float({ resolve: (s) => s.attributes.browsePressureIndex }),
  }),
})

const PredictionRef = builder.objectRef<Prediction>('Prediction').implement({
  fields: (t) => ({
    site: t.field({ type: SiteRef, resolve: (p) => p.site }),
    species: t.field({ type: SpeciesRef, resolve: (p) => p.species }),
    speciesCode: t.string({ resolve: (p) => p.species.code }),
    speciesCommonName: t.string({ resolve: (p) => p.species.commonName }),
    plantingMethod: t.field({ type: PlantingMethodEnum, resolve: (p) => p.plantingMethod }),
    predictions: t.field({ type: [HorizonPredictionRef], resolve: (p) => p.predictions }),
    model: t.field({ type: ModelRef, resolve: (p) => p.model }),
    generatedAt: t.field({ type: 'DateTime', resolve: (p) => p.generatedAt }),
  }),
})

const MethodDifferentialRef = builder.objectRef<HorizonDifferential>('MethodDifferential').implement({
  description: 'Survival gap between the methods at one horizon: manual − droneSeeded',
  fields: (t) => ({
    horizonYears: t.exposeInt('horizonYears'),
    manual: t.exposeFloat('manual'),
    droneSeeded: t.exposeFloat('droneSeeded'),
    difference: t.exposeFloat('difference', { description: 'Positive when hand planting survives better' }),
  }),
})

const MethodComparisonRef = builder.objectRef<Comparison>('MethodComparison').implement({
  fields: (t) => ({
    site: t.field({ type: SiteRef, resolve: (c) => c.site }),
    species: t.field({ type: SpeciesRef, resolve: (c) => c.species }),
    manual: t.field({ type: [HorizonPredictionRef], resolve: (c) => c.manual }),
    droneSeeded: t.field({ type: [HorizonPredictionRef], resolve: (c) => c.droneSeeded }),
    methodDifferential: t.field({ type: [MethodDifferentialRef], resolve: (c) => c.methodDifferential }),
    model: t.field({ type: ModelRef, resolve: (c) => c.model }),
    generatedAt: t.field({ type: 'DateTime', resolve: (c) => c.generatedAt }),
  }),
})

interface BatchItem {
  index: number
  prediction: Prediction | null
  error: { code: string; message: string; details: Record<string, unknown> | null } | null
}

const BatchItemErrorRef = builder.objectRef<NonNullable<BatchItem['error']>>('BatchItemError').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    message: t.exposeString('message'),
    details: t.field({ type: 'JSON', nullable: true, resolve: (e) => e.details }),
  }),
})

const BatchItemRef = builder.objectRef<BatchItem>('BatchPredictionResult').implement({
  description: 'One batch item: a prediction, or the error that item alone hit',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position in the submitted list, from 0' }),
    prediction: t.field({ type: PredictionRef, nullable: true, resolve: (b) => b.prediction }),
    error: t.field({ type: BatchItemErrorRef, nullable: true, resolve: (b) => b.error }),
  }),
})

const latitude = { min: -90, max: 90 } as const
const longitude = { min: -180, max: 180 } as const
const horizons = {
  schema: z.array(
    z
      .number()
      .int()
      .refine((h) => h === 1 || h === 3 || h === 5, { message: 'must be 1, 3 or 5' }),
  ),
}

const PredictionInput = builder.inputType('PredictionInput', {
  fields: (t) => ({
    latitude: t.float({ required: true, validate: latitude }),
    longitude: t.float({ required: true, validate: longitude }),
    speciesCode: t.string({ required: true, description: 'Four-letter species code, e.g. PSME' }),
    plantingMethod: t.field({ type: PlantingMethodEnum, required: true }),
    horizons: t.intList({
      required: false,
      description: 'Subset of [1, 3, 5]; default all three',
      validate: horizons,
    }),
  }),
})

const BatchSiteInput = builder.inputType('BatchSiteInput', {
  description:
    'One batch item. plantingMethod is a string here (manual or drone_seeded) so that an unknown method fails only its own item, as invalid_method',
  fields: (t) => ({
    latitude: t.float({ required: true, validate: latitude }),
    longitude: t.float({ required: true, validate: longitude }),
    speciesCode: t.string({ required: true }),
    plantingMethod: t.string({ required: true }),
    horizons: t.intList({ required: false, validate: horizons }),
  }),
})

const ComparisonInput = builder.inputType('ComparisonInput', {
  fields: (t) => ({
    latitude: t.float({ required: true, validate: latitude }),
    longitude: t.float({ required: true, validate: longitude }),
    speciesCode: t.string({ required: true }),
    horizons: t.intList({ required: false, validate: horizons }),
  }),
})

builder.queryFields((t) => ({
  predict: t.field({
    type: PredictionRef,
    nullable: true,
    description:
      'Survival at 1, 3 and 5 years for one site, species and planting method. Null, with an error, when this site cannot be answered; other aliases still are',
    args: { input: t.arg({ type: PredictionInput, required: true }) },
    resolve: (_root, { input }, ctx) => ctx.predictions.predict(input as PredictionRequest, ctx.nearestSite),
  }),
  compareMethods: t.field({
    type: MethodComparisonRef,
    nullable: true,
    description: 'Both planting methods for one site and species, with the per-horizon differential',
    args: { input: t.arg({ type: ComparisonInput, required: true }) },
    resolve: (_root, { input }, ctx) => ctx.predictions.compare(input, ctx.nearestSite),
  }),
  predictBatch: t.field({
    type: [BatchItemRef],
    description: "Predictions for several sites (up to the tier's batch size); counts as one request",
    args: { sites: t.arg({ type: [BatchSiteInput], required: true }) },
    resolve: async (_root, { sites }, ctx) => {
      if (!ctx.caller) throw new Error('predictBatch resolved without an authenticated caller')
      const results = await ctx.predictions.batch(
        sites as PredictionRequest[],
        ctx.caller.tier,
        ctx.nearestSite,
      )
      return results.map((result, index) =>
        result.ok
          ? { index, prediction: result.prediction, error: null }
          : {
              index,
              prediction: null,
              error: {
                code: result.error.code,
                message: result.error.message,
                details: result.error.details ?? null,
              },
            },
      )
    },
  }),
}))
