import type { PlantingMethodInfo } from '../../domain/catalogue.ts'
import { forestZone, speciesSearch } from '../../domain/input-rules.ts'
import type { FactorDescription, Species } from '../../types.ts'
import { builder } from './builder.ts'

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

const SpeciesGroupEnum = builder.enumType('SpeciesGroup', {
  description: 'Broad botanical group of a species',
  values: {
    CONIFER: { value: 'conifer', description: 'Cone-bearing, mostly evergreen softwoods (16 species)' },
    HARDWOOD: { value: 'hardwood', description: 'Broadleaved trees (4 species)' },
  } as const,
})

const ToleranceEnum = builder.enumType('Tolerance', {
  description: 'How well a species bears a stress (drought or growing-season frost)',
  values: {
    LOW: { value: 'low', description: 'Suffers under the stress; plant where it is mild' },
    MODERATE: { value: 'moderate', description: 'Bears moderate levels of the stress' },
    HIGH: { value: 'high', description: 'Bears the stress well' },
  } as const,
})

const ShadeToleranceEnum = builder.enumType('ShadeTolerance', {
  description: 'How well a species establishes and grows in shade, on the usual five-step forestry scale',
  values: {
    VERY_LOW: { value: 'very_low', description: 'Needs full sun' },
    LOW: { value: 'low', description: 'Needs mostly open conditions' },
    MODERATE: { value: 'moderate', description: 'Grows in partial shade' },
    HIGH: { value: 'high', description: 'Grows in considerable shade' },
    VERY_HIGH: { value: 'very_high', description: 'Establishes under a closed canopy' },
  } as const,
})

export const SpeciesRef = builder.objectRef<Species>('Species').implement({
  description:
    'A tree species the model covers (20: 16 conifers, 4 hardwoods native to Oregon and Washington)',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Four-letter uppercase code, e.g. PSME' }),
    commonName: t.exposeString('commonName', { description: 'Common English name, e.g. Douglas-fir' }),
    scientificName: t.exposeString('scientificName', {
      description: 'Latin binomial, e.g. Pseudotsuga menziesii',
    }),
    group: t.field({
      type: SpeciesGroupEnum,
      description: 'Conifer or hardwood',
      resolve: (s) => s.group,
    }),
    elevationMinM: t.exposeInt('elevMinM', {
      description: 'Typical lower elevation of the species in Oregon and Washington, metres',
    }),
    elevationMaxM: t.exposeInt('elevMaxM', {
      description: 'Typical upper elevation of the species in Oregon and Washington, metres',
    }),
    precipitationMinMm: t.exposeInt('precipMinMm', {
      description: 'Typical lower mean annual precipitation where the species grows, mm',
    }),
    precipitationMaxMm: t.exposeInt('precipMaxMm', {
      description: 'Typical upper mean annual precipitation where the species grows, mm',
    }),
    droughtTolerance: t.field({
      type: ToleranceEnum,
      description: 'How well it survives summer drought',
      resolve: (s) => s.droughtTolerance,
    }),
    shadeTolerance: t.field({
      type: ShadeToleranceEnum,
      description: 'How well it establishes in shade',
      resolve: (s) => s.shadeTolerance,
    }),
    frostTolerance: t.field({
      type: ToleranceEnum,
      description: 'How well it survives growing-season frost',
      resolve: (s) => s.frostTolerance,
    }),
    rangeZones: t.exposeStringList('rangeZones', {
      description:
        'Ecological zones of its native range in Oregon and Washington (coast, westside_lowland, westside_cascades, subalpine, eastside_cascades, klamath, blue_mountains, okanogan_selkirk)',
    }),
    rangeStates: t.exposeStringList('rangeStates', {
      description:
        'States of its native range (OR, WA). A zone can reach into a state where the species does not grow (incense-cedar: Oregon only): a site is in the native range when its zone is in rangeZones and its state in rangeStates',
    }),
    notes: t.exposeString('notes', { description: 'Short silvicultural notes on planting it' }),
  }),
})

const PlantingMethodInfoRef = builder.objectRef<PlantingMethodInfo>('PlantingMethodInfo').implement({
  description: 'A planting method the model predicts for',
  fields: (t) => ({
    id: t.field({
      type: PlantingMethodEnum,
      description: 'The value to pass as plantingMethod',
      resolve: (m) => m.id,
    }),
    name: t.exposeString('name', { description: 'Display name, e.g. Hand planting' }),
    description: t.exposeString('description', { description: 'What the method involves' }),
  }),
})

const ModelFactorRef = builder.objectRef<FactorDescription>('ModelFactor').implement({
  description: 'An environmental factor the model explains its predictions with',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Stable machine-readable factor id, as in RiskFactor.key' }),
    name: t.exposeString('name', { description: 'Human-readable factor name, as in RiskFactor.factor' }),
    description: t.exposeString('description', {
      description: 'What the factor measures and how it affects survival',
    }),
  }),
})

builder.queryFields((t) => ({
  species: t.field({
    type: [SpeciesRef],
    description: 'Species the model covers, optionally filtered; all filters given must match',
    args: {
      group: t.arg({
        type: SpeciesGroupEnum,
        required: false,
        description: 'Only conifers or only hardwoods',
      }),
      search: t.arg.string({
        required: false,
        description:
          'Case-insensitive substring of the code, common or scientific name (at most 100 characters)',
        validate: { schema: speciesSearch },
      }),
      zone: t.arg.string({
        required: false,
        description: 'Only species native to this ecological zone, e.g. coast',
        validate: { schema: forestZone },
      }),
    },
    resolve: (_root, args, ctx) => ctx.catalogue.species(args),
  }),
  plantingMethods: t.field({
    type: [PlantingMethodInfoRef],
    description: 'The planting methods the model predicts for',
    resolve: (_root, _args, ctx) => [...ctx.catalogue.plantingMethods()],
  }),
  modelFactors: t.field({
    type: [ModelFactorRef],
    description: 'Every environmental factor the model explains predictions with',
    resolve: (_root, _args, ctx) => [...ctx.catalogue.modelFactors()],
  }),
}))
