import { z } from 'zod'
import {
  catalogueCode,
  confidence,
  latitude,
  longitude,
  ruleSetId,
  SPECIES_MIX_MAX,
  siteClassName,
  speciesShare,
  stand,
  treesPerAcre,
  treesPerHectare,
} from '../../domain/input-rules.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum } from './catalogue.ts'
import { ClimateInput } from './climate.ts'
import { COSTS_ARG, CostsInput } from './costs.ts'
import { MODEL_VERSION_ARG, modelVersionRule } from './models.ts'
import { TREATMENTS_ARG, TreatmentsInput } from './treatments.ts'

export const SpeciesShareInput = builder.inputType('SpeciesShareInput', {
  description: 'One species of a planting mix and its share of the planted trees',
  fields: (t) => ({
    speciesCode: t.string({
      required: true,
      description: 'Four-letter species code, e.g. PSME',
      validate: { schema: catalogueCode },
    }),
    share: t.float({
      required: true,
      description: 'Share of the planted trees, above 0 and at most 1; the shares of a mix sum to 1',
      validate: { schema: speciesShare },
    }),
  }),
})

export const StockingPlanInput = builder.inputType('StockingPlanInput', {
  description:
    'A stocking plan: exactly one of latitude + longitude or stand; exactly one of treesPerAcre or treesPerHectare',
  fields: (t) => ({
    latitude: t.float({
      required: false,
      description: 'Latitude of a point to plan for, decimal degrees',
      validate: { schema: latitude },
    }),
    longitude: t.float({
      required: false,
      description: 'Longitude of a point to plan for, decimal degrees',
      validate: { schema: longitude },
    }),
    stand: t.field({
      type: 'JSON',
      required: false,
      description:
        'A stand: a GeoJSON Polygon or MultiPolygon geometry, or a Feature holding one (RFC 7946, [longitude, latitude]); at most 20,000 ha and 10,000 positions',
      validate: { schema: stand },
    }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      required: true,
      description: 'How the trees are established',
    }),
    speciesMix: t.field({
      type: [SpeciesShareInput],
      required: true,
      description: `The species planted and their shares (1 to ${SPECIES_MIX_MAX}; one species is a one-item mix)`,
      validate: {
        schema: z
          .array(z.any())
          .min(1, 'must hold at least one species')
          .max(SPECIES_MIX_MAX, `may hold at most ${SPECIES_MIX_MAX} species`),
      },
    }),
    treesPerAcre: t.float({
      required: false,
      description: 'Planted density, trees per acre',
      validate: { schema: treesPerAcre },
    }),
    treesPerHectare: t.float({
      required: false,
      description: 'Planted density, trees per hectare',
      validate: { schema: treesPerHectare },
    }),
    confidence: t.float({
      required: false,
      description: 'The confidence the plan is judged at, 0.5–0.99; default 0.9',
      validate: { schema: confidence },
    }),
    ruleSet: t.string({
      required: false,
      description: 'or_fpa, wa_fpa_west or wa_fpa_east; default from the location',
      validate: { schema: ruleSetId },
    }),
    siteClass: t.string({
      required: false,
      description: 'Oregon site class (I-III, IV-V, VI); default the modelled class',
      validate: { schema: siteClassName },
    }),
    targetTreesPerAcre: t.float({
      required: false,
      description: 'A custom target instead of the rule’s minimum, trees per acre',
      validate: { schema: treesPerAcre },
    }),
    climate: t.field({
      type: ClimateInput,
      required: false,
      description: 'The climate to plan for; absent: today’s',
    }),
    treatments: t.field({ type: TreatmentsInput, required: false, description: TREATMENTS_ARG }),
    costs: t.field({ type: CostsInput, required: false, description: COSTS_ARG }),
    modelVersion: t.string({ required: false, description: MODEL_VERSION_ARG, validate: modelVersionRule }),
  }),
})
