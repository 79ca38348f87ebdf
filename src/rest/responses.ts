import type {
  RestBatchQuery,
  RestCompareQuery,
  RestHorizonFragment,
  RestMethodsQuery,
  RestPredictionFragment,
  RestSiteFragment,
  RestSpeciesQuery,
} from './generated/operations.ts'

/**
 * GraphQL results (camelCase, enum names) → the spec's /v1 JSON (snake_case, lower-case values).
 * Field sets are exactly the spec's; where the spec is silent the layout is documented in README.
 */

type GqlSite = RestSiteFragment
type GqlHorizon = RestHorizonFragment
type GqlPrediction = RestPredictionFragment
type GqlComparison = NonNullable<RestCompareQuery['compareMethods']>
type GqlBatchItem = RestBatchQuery['predictBatch'][number]
type GqlSpecies = RestSpeciesQuery['species'][number]
type GqlMethod = RestMethodsQuery['plantingMethods'][number]

const enumValue = (value: string) => value.toLowerCase()

export function siteJson(site: GqlSite) {
  return {
    latitude: site.latitude,
    longitude: site.longitude,
    matched_latitude: site.matchedLatitude,
    matched_longitude: site.matchedLongitude,
    match_distance_km: site.matchDistanceKm,
    region: site.region,
  }
}

function horizonJson(horizon: GqlHorizon) {
  return {
    horizon_years: horizon.horizonYears,
    survival_probability: horizon.survivalProbability,
    risk_factors: horizon.riskFactors.map((f) => ({
      factor: f.factor,
      impact: enumValue(f.impact),
      magnitude: f.magnitude,
    })),
  }
}

export function predictionJson(p: GqlPrediction) {
  return {
    site: siteJson(p.site),
    species_code: p.speciesCode,
    species_common_name: p.speciesCommonName,
    planting_method: enumValue(p.plantingMethod),
    predictions: p.predictions.map(horizonJson),
    model: p.model,
    generated_at: p.generatedAt,
  }
}

export function comparisonJson(c: GqlComparison) {
  return {
    site: siteJson(c.site),
    species_code: c.species.code,
    species_common_name: c.species.commonName,
    predictions: { manual: c.manual.map(horizonJson), drone_seeded: c.droneSeeded.map(horizonJson) },
    method_differential: c.methodDifferential.map((d) => ({
      horizon_years: d.horizonYears,
      manual: d.manual,
      drone_seeded: d.droneSeeded,
      difference: d.difference,
    })),
    model: c.model,
    generated_at: c.generatedAt,
  }
}

export function batchItemJson(item: GqlBatchItem) {
  if (item.prediction) return { index: item.index, prediction: predictionJson(item.prediction) }
  const error = item.error ?? { code: 'internal_error', message: 'Unexpected server failure', details: null }
  return {
    index: item.index,
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  }
}

export function methodJson(m: GqlMethod) {
  return { id: enumValue(m.id), name: m.name, description: m.description }
}

export function speciesJson(s: GqlSpecies) {
  return {
    code: s.code,
    common_name: s.commonName,
    scientific_name: s.scientificName,
    group: enumValue(s.group),
    elevation_min_m: s.elevationMinM,
    elevation_max_m: s.elevationMaxM,
    precipitation_min_mm: s.precipitationMinMm,
    precipitation_max_mm: s.precipitationMaxMm,
    drought_tolerance: enumValue(s.droughtTolerance),
    shade_tolerance: enumValue(s.shadeTolerance),
    frost_tolerance: enumValue(s.frostTolerance),
    range_zones: s.rangeZones,
    notes: s.notes,
  }
}
