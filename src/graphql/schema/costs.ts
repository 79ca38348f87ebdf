import { z } from 'zod'
import { catalogueCode, SPECIES_MIX_MAX } from '../../domain/input-rules.ts'
import { COST_INPUT_RULES, type CostPart, type PlanCost } from '../../domain/stocking/costs.ts'
import { builder } from './builder.ts'
import { TreatmentSourceRef } from './treatments.ts'

/** Costs (docs/costs.md): the input replacing the defaults, and the cost block of plans and options. */

const SeedlingCostInput = builder.inputType('SeedlingCostInput', {
  description: 'A seedling price for one species',
  fields: (t) => ({
    speciesCode: t.string({
      required: true,
      description: 'Four-letter species code, e.g. PSME',
      validate: { schema: catalogueCode },
    }),
    perTree: t.float({
      required: true,
      description: 'USD per seedling, 0 to 1,000',
      validate: { schema: COST_INPUT_RULES.perTree },
    }),
  }),
})

const perTree = (description: string) => ({
  required: false as const,
  description: `${description}, USD per tree (0 to 1,000)`,
  validate: { schema: COST_INPUT_RULES.perTree },
})
const perAcre = (description: string) => ({
  required: false as const,
  description: `${description}, USD per acre (0 to 100,000)`,
  validate: { schema: COST_INPUT_RULES.perAcre },
})

export const CostsInput = builder.inputType('CostsInput', {
  description:
    'Cost figures replacing the defaults of data/costs.json, each optional (absent or null: the default). Each figure given is used exactly, with status GIVEN. See docs/costs.md',
  fields: (t) => ({
    seedlings: t.field({
      type: [SeedlingCostInput],
      required: false,
      description: `Seedling prices by species (each species once, at most ${SPECIES_MIX_MAX}); others keep theirs`,
      validate: {
        schema: z.array(z.any()).max(SPECIES_MIX_MAX, `may hold at most ${SPECIES_MIX_MAX} species`),
      },
    }),
    plantingPerTree: t.float(perTree('Hand-planting labour')),
    sitePreparationPerAcre: t.float(perAcre('Site preparation')),
    releasePerAcre: t.float(perAcre('One release (two releases cost twice this)')),
    tubesPerTree: t.float(perTree('A tube installed')),
    shadeCardsPerTree: t.float(perTree('A shade card set')),
    droneSeedingPerAcre: t.float(perAcre('The drone flight')),
    seedPodPerPod: t.float({
      required: false,
      description: 'A seed pod, USD per pod (0 to 1,000)',
      validate: { schema: COST_INPUT_RULES.perTree },
    }),
  }),
})

export const COSTS_ARG =
  'Cost figures replacing the defaults (see CostsInput); absent: the defaults. The cost is answered either way'

const CostStatusEnum = builder.enumType('CostStatus', {
  description: 'Where a cost figure stands: the reference’s statuses, or the request’s own figure',
  values: {
    PUBLISHED: { value: 'published', description: 'Taken from its cited source' },
    SYNTHESIS: { value: 'synthesis', description: 'Combined or inferred from several sources' },
    ASSUMPTION: {
      value: 'assumption',
      description: 'A placeholder with no supporting source: not a finding',
    },
    GIVEN: { value: 'given', description: 'The request’s own figure' },
  } as const,
})

const CostPartRef = builder.objectRef<CostPart>('CostPart').implement({
  description: 'One part of a cost per acre',
  fields: (t) => ({
    item: t.exposeString('item', {
      description:
        'seedlings, planting, site_preparation, release, tubes, shade_cards, drone_seeding or seed_pods',
    }),
    speciesCode: t.exposeString('speciesCode', { nullable: true, description: 'Seedlings: the species' }),
    unit: t.exposeString('unit', { description: 'per_tree, per_acre or per_pod' }),
    unitCost: t.exposeFloat('unitCost', { description: 'USD per unit' }),
    quantity: t.exposeFloat('quantity', {
      description: 'Trees or pods per acre, or applications (per_acre: 1, or 2 releases)',
    }),
    perAcre: t.exposeFloat('perAcre', { description: 'USD per acre' }),
    status: t.field({ type: CostStatusEnum, description: 'Its figure’s status', resolve: (p) => p.status }),
    defaultId: t.exposeString('defaultId', {
      nullable: true,
      description: 'The default’s id in data/costs.json; null for a figure given',
    }),
    priceYear: t.exposeInt('priceYear', { nullable: true, description: 'The price’s year where stated' }),
    sources: t.field({
      type: [TreatmentSourceRef],
      description: 'The sources of its figure (none for an assumption or a figure given)',
      resolve: (p) => [...p.sources],
    }),
  }),
})

export const PlanCostRef = builder.objectRef<PlanCost>('PlanCost').implement({
  description:
    'What a planting costs, USD: per acre planted, and per tree established at the rule’s horizon with its interval',
  fields: (t) => ({
    currency: t.exposeString('currency', { description: 'USD (nominal, of each figure’s year)' }),
    perAcre: t.exposeFloat('perAcre', { description: 'Cost per acre planted: the sum of the parts' }),
    horizonYears: t.exposeInt('horizonYears', {
      description: 'The horizon trees are counted established at',
    }),
    establishedTreesPerAcre: t.exposeFloat('establishedTreesPerAcre', {
      description: 'Expected trees alive per acre at that horizon',
    }),
    perEstablishedTree: t.exposeFloat('perEstablishedTree', {
      nullable: true,
      description: 'perAcre ÷ establishedTreesPerAcre; null when none is expected',
    }),
    perEstablishedTreeLower: t.float({
      nullable: true,
      description: 'Lower end of its interval (perAcre over the upper count of survivors)',
      resolve: (c) => c.perEstablishedTreeInterval.lower,
    }),
    perEstablishedTreeUpper: t.float({
      nullable: true,
      description: 'Upper end (perAcre over the lower count); null when that count is 0',
      resolve: (c) => c.perEstablishedTreeInterval.upper,
    }),
    intervalLevel: t.float({
      description: 'The interval’s level: the plan’s confidence',
      resolve: (c) => c.perEstablishedTreeInterval.level,
    }),
    parts: t.field({ type: [CostPartRef], description: 'The parts', resolve: (c) => c.parts }),
    leastCertainStatus: t.field({
      type: CostStatusEnum,
      description: 'The least certain status among the parts',
      resolve: (c) => c.leastCertainStatus,
    }),
    dataVersion: t.exposeString('dataVersion', { description: 'Version of data/costs.json (a hash)' }),
  }),
})

export { CostStatusEnum }
