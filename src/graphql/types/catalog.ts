import { PLANTING_METHOD_INFO } from '../../domain/catalog.ts'
import { SPECIES, type Species } from '../../domain/species.ts'
import { builder } from '../builder.ts'

export const PlantingMethodEnum = builder.enumType('PlantingMethod', {
  description: 'How the trees are established',
  values: {
    MANUAL: { value: 'manual', description: 'Hand-planted seedlings installed by field crews' },
    DRONE_SEEDED: {
      value: 'drone_seeded',
      description: 'Aerial dispersal of seed pods or seedling capsules by drone',
    },
  } as const,
})

export const SpeciesGroupEnum = builder.enumType('SpeciesGroup', {
  values: { CONIFER: { value: 'conifer' }, HARDWOOD: { value: 'hardwood' } } as const,
})

const ToleranceEnum = builder.enumType('Tolerance', {
  values: { LOW: { value: 'low' }, MODERATE: { value: 'moderate' }, HIGH: { value: 'high' } } as const,
})

const ShadeToleranceEnum = builder.enumType('ShadeTolerance', {
  values: {
    VERY_LOW: { value: 'very_low' },
    LOW: { value: 'low' },
    MODERATE: { value: 'moderate' },
    HIGH: { value: 'high' },
    VERY_HIGH: { value: 'very_high' },
  } as const,
})

export const SpeciesRef = builder.objectRef<Species>('Species').implement({
  description: 'A tree species the model covers',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Four-letter uppercase code, e.g. PSME' }),
    commonName: t.exposeString('commonName'),
    scientificName: t.exposeString('scientificName'),
    group: t.field({ type: SpeciesGroupEnum, resolve: (s) => s.group }),
    elevationMinM: t.exposeInt('elevMinM', { description: 'Typical lower elevation in OR/WA, metres' }),
    elevationMaxM: t.exposeInt('elevMaxM', { description: 'Typical upper elevation in OR/WA, metres' }),
    precipitationMinMm: t.exposeInt('precipMinMm', { description: 'Typical lower annual precipitation, mm' }),
    precipitationMaxMm: t.exposeInt('precipMaxMm', { description: 'Typical upper annual precipitation, mm' }),
    droughtTolerance: t.field({ type: ToleranceEnum, resolve: (s) => s.droughtTolerance }),
    shadeTolerance: t.field({ type: ShadeToleranceEnum, resolve: (s) => s.shadeTolerance }),
    frostTolerance: t.field({ type: ToleranceEnum, resolve: (s) => s.frostTolerance }),
    rangeZones: t.exposeStringList('rangeZones', {
      description: 'Ecological zones of its native OR/WA range',
    }),
    notes: t.exposeString('notes'),
  }),
})

const PlantingMethodInfoRef = builder
  .objectRef<(typeof PLANTING_METHOD_INFO)[number]>('PlantingMethodInfo')
  .implement({
    fields: (t) => ({
      id: t.field({ type: PlantingMethodEnum, resolve: (m) => m.id }),
      name: t.exposeString('name'),
      description: t.exposeString('description'),
    }),
  })

const ModelFactorRef = builder
  .objectRef<{ key: string; name: string; description: string }>('ModelFactor')
  .implement({
    fields: (t) => ({
      key: t.exposeString('key'),
      name: t.exposeString('name', { description: 'Human-readable factor name, as in RiskFactor.factor' }),
      description: t.exposeString('description'),
    }),
  })

export const ModelRef = builder
  .objectRef<{ version: string; codename: string; series: string }>('Model')
  .implement({
    description: 'The survival model answering predictions',
    fields: (t) => ({
      version: t.exposeString('version'),
      codename: t.exposeString('codename'),
      series: t.exposeString('series'),
    }),
  })

builder.queryFields((t) => ({
  species: t.field({
    type: [SpeciesRef],
    description: 'Species the model covers, optionally filtered',
    args: {
      group: t.arg({ type: SpeciesGroupEnum, required: false }),
      search: t.arg.string({
        required: false,
        description: 'Case-insensitive match on code, common or scientific name',
        validate: { maxLength: 100 },
      }),
      zone: t.arg.string({ required: false, description: 'Only species native to this zone, e.g. coast' }),
    },
    resolve: (_root, args) => {
      const needle = args.search?.trim().toLowerCase()
      return SPECIES.filter(
        (s) =>
          (!args.group || s.group === args.group) &&
          (!args.zone || (s.rangeZones as string[]).includes(args.zone)) &&
          (!needle ||
            s.code.toLowerCase().includes(needle) ||
            s.commonName.toLowerCase().includes(needle) ||
            s.scientificName.toLowerCase().includes(needle)),
      )
    },
  }),
  plantingMethods: t.field({
    type: [PlantingMethodInfoRef],
    resolve: () => [...PLANTING_METHOD_INFO],
  }),
  model: t.field({
    type: ModelRef,
    description: 'The current survival model (public, like health)',
    resolve: (_root, _args, ctx) => ctx.predictions.modelInfo,
  }),
  modelFactors: t.field({
    type: [ModelFactorRef],
    description: 'Every environmental factor the model explains predictions with',
    resolve: (_root, _args, ctx) => [...ctx.predictions.factors],
  }),
}))
