import { z } from 'zod'
import {
  batchOf,
  catalogueCode,
  climate,
  email,
  forestZone,
  graceSeconds,
  horizon,
  horizons,
  keyName,
  latitude,
  longitude,
  speciesGroup,
  speciesSearch,
} from '../domain/input-rules.ts'

/** The /v1 request bodies and query strings: the shared input rules under the spec's snake_case names. Strict: unknown fields are refused. */
export const PredictBody = z.strictObject({
  latitude,
  longitude,
  species_code: catalogueCode,
  planting_method: catalogueCode,
  horizons: horizons.optional(),
  climate: climate.nullish(),
})

export const CompareBody = z.strictObject({
  latitude,
  longitude,
  species_code: catalogueCode,
  horizons: horizons.optional(),
  climate: climate.nullish(),
})

export const RankBody = z.strictObject({
  latitude,
  longitude,
  planting_method: catalogueCode,
  horizon,
  climate: climate.nullish(),
})

export const BatchBody = z.strictObject({ sites: batchOf(PredictBody) })

export const SpeciesQuery = z.strictObject({
  group: speciesGroup.optional(),
  search: speciesSearch.optional(),
  zone: forestZone.optional(),
})

export const SporeKeyBody = z.strictObject({ email, name: keyName.optional() })

export const RotateBody = z.strictObject({ grace_seconds: graceSeconds.optional() })
