import type { ApiError } from '../domain/errors.ts'
import type { BatchItemResult, Comparison, MatchedSite, Prediction } from '../domain/predictions.ts'
import type { HorizonPrediction } from '../model/index.ts'
import type { RestMethodsQuery, RestSpeciesQuery } from './generated/operations.ts'
import { errorBody, SerializedJson } from './http-io.ts'

/**
 * Results → the spec's /v1 JSON (snake_case, lower-case values). Field sets are exactly the spec's;
 * where the spec is silent the layout is documented in README and schema/openapi.yaml.
 */

/** The spec's top 3 risk factors per prediction, ranked by magnitude. */
const RISK_FACTORS_SHOWN = 3

type GqlSpecies = RestSpeciesQuery['species'][number]
type GqlMethod = RestMethodsQuery['plantingMethods'][number]

const enumValue = (value: string) => value.toLowerCase()

function siteJson(site: MatchedSite) {
  return {
    latitude: site.latitude,
    longitude: site.longitude,
    matched_latitude: site.matchedLatitude,
    matched_longitude: site.matchedLongitude,
    match_distance_km: site.matchDistanceKm,
    region: site.region,
  }
}

function horizonJson(horizon: HorizonPrediction) {
  return {
    horizon_years: horizon.horizonYears,
    survival_probability: horizon.survivalProbability,
    risk_factors: horizon.contributions
      .slice(0, RISK_FACTORS_SHOWN)
      .map((f) => ({ factor: f.factor, impact: f.impact, magnitude: f.magnitude })),
  }
}

export function predictionJson(p: Prediction) {
  return {
    site: siteJson(p.site),
    species_code: p.species.code,
    species_common_name: p.species.commonName,
    planting_method: p.plantingMethod,
    predictions: p.predictions.map(horizonJson),
    model: { version: p.model.version, codename: p.model.codename, series: p.model.series },
    generated_at: p.generatedAt.toISOString(),
  }
}

export function comparisonJson(c: Comparison) {
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
    model: { version: c.model.version, codename: c.model.codename, series: c.model.series },
    generated_at: c.generatedAt.toISOString(),
  }
}

export function batchItemJson(item: BatchItemResult, index: number) {
  return item.ok
    ? { index, prediction: predictionJson(item.prediction) }
    : { index, error: errorBody(item.error as ApiError).error }
}

/** `{"results":[…]}` around items serialised one by one, built as one flat string (no rope to flatten). */
export function batchResultsJson(serializedItems: string[]): SerializedJson {
  if (serializedItems.length === 0) return new SerializedJson('{"results":[]}')
  const items = [...serializedItems]
  items[0] = `{"results":[${items[0]}`
  items[items.length - 1] = `${items[items.length - 1]}]}`
  return new SerializedJson(items.join(','))
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
