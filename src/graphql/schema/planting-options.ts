import { z } from 'zod'
import { confidence, latitude, longitude, stand, TREES_PER_ACRE_MAX } from '../../domain/input-rules.ts'
import { OPTIONS_MIXES_MAX, type PlantingOptionsRequest } from '../../domain/stocking/options-request.ts'
import type {
  FailingOption,
  PlantingOption,
  PlantingOptions,
} from '../../domain/stocking/planting-options.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum } from './catalogue.ts'
import { ClimateInput } from './climate.ts'
import { COSTS_ARG, CostStatusEnum, CostsInput, PlanCostRef } from './costs.ts'
import { MODEL_VERSION_ARG, ModelRef, modelVersionRule, pinnedModel } from './models.ts'
import { withGraphQLFieldNames } from './plan-input-errors.ts'
import { SpeciesShareInput } from './stocking-plan-input.ts'
import { PlanSiteRef, PlanStandRef, StockingRuleRef } from './stocking-plan-types.ts'
import {
  AnimalProtectionEnum,
  EvidenceStatusEnum,
  ShadeEnum,
  StockTypeEnum,
  VegetationControlEnum,
} from './treatments.ts'

/** plantingOptions: the GraphQL face of POST /v1/plans/options (same service, same rules; docs/costs.md#options). */

const list = (max: number) => ({
  schema: z.array(z.any()).min(1, 'must hold at least one value').max(max, `may hold at most ${max} values`),
})

const TreatmentChoicesInput = builder.inputType('TreatmentChoicesInput', {
  description:
    'The treatment values an options search weighs, each a list (absent: every value, but no stock type named). Drone seeding takes only the vegetation control of each combination',
  fields: (t) => ({
    vegetationControl: t.field({
      type: [VegetationControlEnum],
      required: false,
      description: 'Vegetation control values to weigh',
      validate: list(6),
    }),
    animalProtection: t.field({
      type: [AnimalProtectionEnum],
      required: false,
      description: 'Animal protection values to weigh',
      validate: list(2),
    }),
    stockType: t.field({
      type: [StockTypeEnum],
      required: false,
      description: 'Stock types to weigh (absent: none named)',
      validate: list(2),
    }),
    shade: t.field({
      type: [ShadeEnum],
      required: false,
      description: 'Shade values to weigh',
      validate: list(2),
    }),
  }),
})

const CandidateMixInput = builder.inputType('CandidateMixInput', {
  description: 'One candidate mix of an options search',
  fields: (t) => ({
    speciesMix: t.field({
      type: [SpeciesShareInput],
      required: true,
      description: 'The species and their shares (1 to 20, shares summing to 1)',
    }),
  }),
})

const PlantingOptionsInput = builder.inputType('PlantingOptionsInput', {
  description:
    'An options search: exactly one of latitude + longitude or stand; exactly one of speciesMix or speciesMixes',
  fields: (t) => ({
    latitude: t.float({
      required: false,
      description: 'Latitude of a point',
      validate: { schema: latitude },
    }),
    longitude: t.float({
      required: false,
      description: 'Longitude of a point',
      validate: { schema: longitude },
    }),
    stand: t.field({
      type: 'JSON',
      required: false,
      description:
        'A stand: a GeoJSON Polygon or MultiPolygon geometry, or a Feature holding one, as in stockingPlan',
      validate: { schema: stand },
    }),
    speciesMix: t.field({
      type: [SpeciesShareInput],
      required: false,
      description: 'One species mix',
    }),
    speciesMixes: t.field({
      type: [CandidateMixInput],
      required: false,
      description: `Candidate mixes (1 to ${OPTIONS_MIXES_MAX}); an option names its mix by its index here`,
      validate: {
        schema: z
          .array(z.any())
          .min(1, 'must hold at least one mix')
          .max(OPTIONS_MIXES_MAX, `may hold at most ${OPTIONS_MIXES_MAX} mixes`),
      },
    }),
    confidence: t.float({
      required: false,
      description: 'The confidence to meet the standard at, 0.5–0.99; default 0.9',
      validate: { schema: confidence },
    }),
    methods: t.field({
      type: [PlantingMethodEnum],
      required: false,
      description: 'The methods weighed; absent: both',
      validate: list(2),
    }),
    treatments: t.field({
      type: TreatmentChoicesInput,
      required: false,
      description: 'The treatment values weighed; absent: every combination (no stock type named)',
    }),
    costs: t.field({ type: CostsInput, required: false, description: COSTS_ARG }),
    maxTreesPerAcre: t.int({
      required: false,
      description: `The densest planting an option may ask for, trees (drone: pods) per acre, 1 to ${TREES_PER_ACRE_MAX}; default ${TREES_PER_ACRE_MAX}`,
      validate: {
        schema: z
          .number()
          .int()
          .min(1, `must be a whole number from 1 to ${TREES_PER_ACRE_MAX}`)
          .max(TREES_PER_ACRE_MAX, `must be a whole number from 1 to ${TREES_PER_ACRE_MAX}`),
      },
    }),
    climate: t.field({
      type: ClimateInput,
      required: false,
      description: 'The climate to plan for; absent: today’s',
    }),
    modelVersion: t.string({ required: false, description: MODEL_VERSION_ARG, validate: modelVersionRule }),
  }),
})

const OptionSpeciesRef = builder.objectRef<PlantingOption['mix'][number]>('OptionSpeciesShare').implement({
  description: 'One species of an option’s mix',
  fields: (t) => ({
    speciesCode: t.string({ description: 'Species code', resolve: (s) => s.species.code }),
    share: t.exposeFloat('share', { description: 'Share of the planted trees' }),
  }),
})

const OptionTreatmentEffectRef = builder
  .objectRef<PlantingOption['treatmentEffects'][number]>('OptionTreatmentEffect')
  .implement({
    description: 'A treatment of an option with an effect, and that effect’s status',
    fields: (t) => ({
      treatment: t.exposeString('treatment', { description: 'The treatment' }),
      value: t.exposeString('value', { description: 'Its value' }),
      effectId: t.exposeString('effectId', { description: 'The effect’s id in data/treatments.json' }),
      shareFrom: t.exposeString('shareFrom', {
        description:
          'reference, or calibration: the answering version’s surveys informed the share the option used',
      }),
      status: t.field({ type: EvidenceStatusEnum, description: 'Its status', resolve: (e) => e.status }),
    }),
  })

const OPTION_DESCRIPTION =
  'One way to plant (a mix, a method, the treatments) at the smallest density meeting the standard'

const PlantingOptionRef = builder.objectRef<PlantingOption>('PlantingOption')
const FailingOptionRef = builder.objectRef<FailingOption>('FailingPlantingOption')

for (const [ref, description] of [
  [PlantingOptionRef, OPTION_DESCRIPTION],
  [
    FailingOptionRef,
    'The cheapest way weighed that does not meet the standard at the confidence, at the density ceiling',
  ],
] as const) {
  ;(ref as typeof PlantingOptionRef).implement({
    description,
    fields: (t) => ({
      mixIndex: t.exposeInt('mixIndex', {
        description: 'Its mix’s index in speciesMixes (0 for speciesMix)',
      }),
      speciesMix: t.field({ type: [OptionSpeciesRef], description: 'Its mix', resolve: (o) => [...o.mix] }),
      plantingMethod: t.field({
        type: PlantingMethodEnum,
        description: 'Its method',
        resolve: (o) => o.method as 'manual' | 'drone_seeded',
      }),
      vegetationControl: t.string({
        nullable: true,
        description: 'Its vegetation control (null: not named)',
        resolve: (o) => o.treatments.vegetation_control,
      }),
      animalProtection: t.string({
        nullable: true,
        description: 'Its animal protection',
        resolve: (o) => o.treatments.animal_protection,
      }),
      stockType: t.string({
        nullable: true,
        description: 'Its stock type',
        resolve: (o) => o.treatments.stock_type,
      }),
      shade: t.string({ nullable: true, description: 'Its shade', resolve: (o) => o.treatments.shade }),
      treesPerAcre: t.exposeInt('treesPerAcre', {
        description: 'The density: trees (drone seeding: pods) per acre',
      }),
      treesPerHectare: t.exposeInt('treesPerHectare', { description: 'The same per hectare (rounded up)' }),
      probability: t.exposeFloat('probability', { description: 'Probability of meeting the standard at it' }),
      meetsConfidence: t.exposeBoolean('meetsConfidence', { description: 'probability ≥ the confidence' }),
      survivalProbability: t.exposeFloat('survivalProbability', {
        description: 'The mix’s survival at the rule’s horizon',
      }),
      expectedTreesPerAcre: t.exposeFloat('expectedTreesPerAcre', {
        description: 'Expected survivors per acre',
      }),
      lower: t.exposeFloat('lower', {
        description: 'Lower end of the survivors’ interval at the confidence',
      }),
      upper: t.exposeFloat('upper', { description: 'Upper end' }),
      cost: t.field({ type: PlanCostRef, description: 'Its cost', resolve: (o) => o.cost }),
      treatmentEffects: t.field({
        type: [OptionTreatmentEffectRef],
        description: 'Its treatments with an effect, and their statuses',
        resolve: (o) => o.treatmentEffects,
      }),
      leastCertainStatus: t.field({
        type: CostStatusEnum,
        description: 'The least certain status behind it: its costs, its treatments’ effects, the standard',
        resolve: (o) => o.leastCertainStatus,
      }),
      shortfall: t.float({
        nullable: true,
        description: 'The confidence minus its probability (a failing option); null for a meeting one',
        resolve: (o) => ('shortfall' in o ? (o as FailingOption).shortfall : null),
      }),
    }),
  })
}

const PlantingOptionsRef = builder.objectRef<PlantingOptions>('PlantingOptions').implement({
  description:
    'The cheapest ways to meet the reforestation standard here at a confidence (synthetic data: an illustration, not a quote or a compliance determination)',
  fields: (t) => ({
    rule: t.field({
      type: StockingRuleRef,
      description: 'The standard judged against',
      resolve: (o) => o.rule,
    }),
    confidence: t.exposeFloat('confidence', { description: 'The confidence asked for' }),
    maxTreesPerAcre: t.exposeInt('maxTreesPerAcre', { description: 'The density ceiling' }),
    candidates: t.exposeInt('candidates', {
      description: 'Candidates weighed: mixes × methods × treatments',
    }),
    options: t.field({
      type: [PlantingOptionRef],
      description: 'The candidates meeting the standard at the confidence, cheapest per acre first',
      resolve: (o) => o.options,
    }),
    cheapestFailing: t.field({
      type: FailingOptionRef,
      nullable: true,
      description:
        'The cheapest candidate falling short, and by how much; null when every candidate meets it',
      resolve: (o) => o.cheapestFailing,
    }),
    site: t.field({
      type: PlanSiteRef,
      nullable: true,
      description: 'A point’s site; null for a stand',
      resolve: (o) => (o.location.kind === 'point' ? o.location : null),
    }),
    stand: t.field({
      type: PlanStandRef,
      nullable: true,
      description: 'A stand; null for a point',
      resolve: (o) => (o.location.kind === 'stand' ? o.location : null),
    }),
    dataVersion: t.exposeString('dataVersion', { nullable: true, description: 'The site data version' }),
    costsDataVersion: t.exposeString('costsDataVersion', { description: 'Version of data/costs.json' }),
    treatmentsDataVersion: t.exposeString('treatmentsDataVersion', {
      description: 'Version of data/treatments.json',
    }),
    notes: t.exposeStringList('notes', { description: 'What the answer is and is not' }),
    model: t.field({ type: ModelRef, description: 'The model that answered', resolve: (o) => o.model }),
    generatedAt: t.field({
      type: 'DateTime',
      description: 'When it was made',
      resolve: (o) => o.generatedAt,
    }),
  }),
})

builder.queryFields((t) => ({
  plantingOptions: t.field({
    type: PlantingOptionsRef,
    nullable: true,
    description:
      'The cheapest ways to meet the reforestation standard here: every candidate mix × method × treatments at the smallest density meeting it at the confidence, ranked by cost per acre, and the cheapest that falls short. Counts as one request. Null, with an error, when it cannot be answered',
    args: { input: t.arg({ type: PlantingOptionsInput, required: true, description: 'What to weigh' }) },
    resolve: async (_root, { input }, ctx) => {
      try {
        const request = {
          ...input,
          speciesMixes: input.speciesMixes?.map((candidate) => candidate.speciesMix),
        } as PlantingOptionsRequest
        return await ctx.plans.options(request, await pinnedModel(ctx, input.modelVersion))
      } catch (error) {
        throw withGraphQLFieldNames(error)
      }
    },
  }),
}))
