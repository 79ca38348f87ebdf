import { z } from 'zod'
import { batchOf, catalogueCode, horizons, latitude, longitude } from '../../domain/input-rules.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum } from './catalogue.ts'
import { ClimateInput } from './climate.ts'
import { MODEL_VERSION_ARG, modelVersionRule } from './models.ts'
import { TREATMENTS_ARG, TreatmentsInput } from './treatments.ts'

/** The input types of the prediction fields: the shared input rules (src/domain/input-rules.ts) under camelCase names. */

const LATITUDE = 'Latitude of the planting site, decimal degrees (WGS84), −90 to 90'
const LONGITUDE = 'Longitude of the planting site, decimal degrees (WGS84), −180 to 180'
const SPECIES_CODE = 'Four-letter species code, e.g. PSME (see `species`)'
const HORIZONS = 'Years after planting to predict: any of 1, 3 and 5 (at most 10 entries); default all three'
const CLIMATE = 'The climate to predict for; absent or null: today’s (see ClimateInput)'

export const PredictionInput = builder.inputType('PredictionInput', {
  description: 'One site, species and planting method to predict',
  fields: (t) => ({
    latitude: t.float({ required: true, description: LATITUDE, validate: { schema: latitude } }),
    longitude: t.float({ required: true, description: LONGITUDE, validate: { schema: longitude } }),
    speciesCode: t.string({ required: true, description: SPECIES_CODE, validate: { schema: catalogueCode } }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      required: true,
      description: 'How the trees are established',
    }),
    horizons: t.intList({ required: false, description: HORIZONS, validate: { schema: horizons } }),
    climate: t.field({ type: ClimateInput, required: false, description: CLIMATE }),
    treatments: t.field({ type: TreatmentsInput, required: false, description: TREATMENTS_ARG }),
    modelVersion: t.string({ required: false, description: MODEL_VERSION_ARG, validate: modelVersionRule }),
  }),
})

export const ComparisonInput = builder.inputType('ComparisonInput', {
  description: 'One site and species, to predict with both planting methods',
  fields: (t) => ({
    latitude: t.float({ required: true, description: LATITUDE, validate: { schema: latitude } }),
    longitude: t.float({ required: true, description: LONGITUDE, validate: { schema: longitude } }),
    speciesCode: t.string({ required: true, description: SPECIES_CODE, validate: { schema: catalogueCode } }),
    horizons: t.intList({ required: false, description: HORIZONS, validate: { schema: horizons } }),
    climate: t.field({ type: ClimateInput, required: false, description: CLIMATE }),
    treatments: t.field({
      type: TreatmentsInput,
      required: false,
      description: `${TREATMENTS_ARG}; applied to both methods, so those only hand planting takes are invalid_treatment here`,
    }),
    modelVersion: t.string({ required: false, description: MODEL_VERSION_ARG, validate: modelVersionRule }),
  }),
})

export const BatchSiteInput = builder.inputType('BatchSiteInput', {
  description:
    'One batch item. plantingMethod is a string here (manual or drone_seeded) so that an unknown method fails only its own item, as invalid_method',
  fields: (t) => ({
    latitude: t.float({ required: true, description: LATITUDE, validate: { schema: latitude } }),
    longitude: t.float({ required: true, description: LONGITUDE, validate: { schema: longitude } }),
    speciesCode: t.string({ required: true, description: SPECIES_CODE, validate: { schema: catalogueCode } }),
    plantingMethod: t.string({
      required: true,
      description: 'manual or drone_seeded',
      validate: { schema: catalogueCode },
    }),
    horizons: t.intList({ required: false, description: HORIZONS, validate: { schema: horizons } }),
    climate: t.field({ type: ClimateInput, required: false, description: CLIMATE }),
    treatments: t.field({
      type: TreatmentsInput,
      required: false,
      description: `${TREATMENTS_ARG}; one that does not apply to the method fails only this item`,
    }),
  }),
})

/** The shared rule for a batch list (at least one site); each item's own rules are its fields'. */
export const batchSitesRule = { schema: batchOf(z.any()) }
