import type { CoverageInfo, PlantingMethodInfo } from '../domain/catalogue.ts'
import {
  CLIMATE_DATA_NOTE,
  type ClimateCatalogueView,
  type ClimateDeltas,
  type ClimateProjection,
} from '../domain/climate.ts'
import { errorEnvelope } from '../domain/errors.ts'
import type { KeyUsage } from '../domain/key-service.ts'
import type {
  BatchItemResult,
  Comparison,
  MatchedSite,
  Prediction,
  SpeciesRanking,
} from '../domain/prediction-types.ts'
import { type EncodedJson, JsonEncoder } from '../http-io/json.ts'
import type { FactorContribution, HorizonPrediction, IssuedKey, ModelInfo, Species } from '../types.ts'

/**
 * Domain results → the spec's /v1 JSON (snake_case). Field sets are exactly the spec's; where the spec
 * is silent the layout is documented in docs/api.md and schema/openapi.yaml.
 */

/** The spec's top 3 risk factors per prediction, ranked by magnitude. */
const RISK_FACTORS_SHOWN = 3

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

function riskFactorJson(f: FactorContribution) {
  return { factor: f.factor, impact: f.impact, magnitude: f.magnitude }
}

function horizonJson(horizon: HorizonPrediction) {
  return {
    horizon_years: horizon.horizonYears,
    survival_probability: horizon.survivalProbability,
    risk_factors: horizon.topContributions(RISK_FACTORS_SHOWN).map(riskFactorJson),
  }
}

export function modelJson(model: ModelInfo) {
  return { version: model.version, codename: model.codename, series: model.series }
}

function deltasJson(d: ClimateDeltas) {
  return {
    mean_annual_temperature_c: d.meanAnnualTemperatureC,
    summer_max_temperature_c: d.summerMaxTemperatureC,
    annual_precipitation_pct: d.annualPrecipitationPct,
    summer_precipitation_pct: d.summerPrecipitationPct,
    water_deficit_mm: d.waterDeficitMm,
  }
}

/** What a future climate did to the site: deltas applied there and the attributes the model evaluated. */
export function climateProjectionJson(c: ClimateProjection) {
  return {
    period: c.period,
    scenario: c.scenario,
    data_version: c.dataVersion,
    note: CLIMATE_DATA_NOTE,
    deltas: deltasJson(c.deltas),
    projected: {
      annual_precip_mm: c.projected.annualPrecipMm,
      summer_water_deficit_mm: c.projected.summerWaterDeficitMm,
      growing_season_frost_days: c.projected.growingSeasonFrostDays,
      thermal_elevation_m: c.projected.thermalElevationM,
    },
  }
}

/** GET /v1/climate: the periods, scenarios and deltas by zone, the data's version and its sources. */
export function climateCatalogueJson(view: ClimateCatalogueView) {
  return {
    baseline_period: view.baselinePeriod,
    periods: view.periods,
    scenarios: view.scenarios,
    deltas: view.deltas.map((row) => ({
      period: row.period,
      scenario: row.scenario,
      zone: row.zone,
      ...deltasJson(row),
    })),
    data: {
      version: view.dataVersion,
      synthesis: true,
      note: CLIMATE_DATA_NOTE,
      description: view.description,
      method: view.method,
      sources: view.sources,
    },
  }
}

/** The /v1/predict answer as objects: the shape, spelled out; predictionText below writes the same bytes. */
export function predictionJson(p: Prediction) {
  return {
    site: siteJson(p.site),
    species_code: p.species.code,
    species_common_name: p.species.commonName,
    planting_method: p.plantingMethod,
    predictions: p.predictions.map(horizonJson),
    ...(p.climate ? { climate: climateProjectionJson(p.climate) } : {}),
    model: modelJson(p.model),
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
    ...(c.climate ? { climate: climateProjectionJson(c.climate) } : {}),
    model: modelJson(c.model),
    generated_at: c.generatedAt.toISOString(),
  }
}

/** The /v1/predict/rank answer: every species at the site, best survival first (array order is the rank). */
export function rankingJson(r: SpeciesRanking) {
  return {
    site: siteJson(r.site),
    planting_method: r.plantingMethod,
    horizon_years: r.horizonYears,
    ranking: r.ranking.map((entry) => ({
      species_code: entry.species.code,
      species_common_name: entry.species.commonName,
      survival_probability: entry.survivalProbability,
      native_range: entry.nativeRange,
      top_factor: riskFactorJson(entry.topFactor),
    })),
    ...(r.climate ? { climate: climateProjectionJson(r.climate) } : {}),
    model: modelJson(r.model),
    generated_at: r.generatedAt.toISOString(),
  }
}

/*
 * The prediction JSON written straight to text, byte for byte what JSON.stringify(predictionJson(p))
 * gives (a property test holds the two equal): no tree of objects per prediction to build and collect,
 * and the strings that repeat (species, factors, model, the batch's timestamp) quoted once.
 */
const quotedStrings = new Map<string, string>()

function quote(value: string): string {
  let text = quotedStrings.get(value)
  if (text === undefined) {
    text = JSON.stringify(value)
    if (quotedStrings.size < 10_000) quotedStrings.set(value, text)
  }
  return text
}

/** A number as JSON.stringify writes it (non-finite ones as null). */
function numberText(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null'
}

let lastModel: { model: ModelInfo; text: string } | undefined
let lastTimestamp: { at: number; text: string } | undefined

function modelText(model: ModelInfo): string {
  if (lastModel?.model !== model) {
    lastModel = {
      model,
      text: `{"version":${quote(model.version)},"codename":${quote(model.codename)},"series":${quote(model.series)}}`,
    }
  }
  return lastModel.text
}

function timestampText(at: Date): string {
  if (lastTimestamp?.at !== at.getTime()) lastTimestamp = { at: at.getTime(), text: quote(at.toISOString()) }
  return lastTimestamp.text
}

/**
 * The doubles of one answer, printed as JSON.stringify prints them (non-finite ones as null) in one call:
 * String(x) per double costs a runtime call and a number-string cache entry each, several times this.
 */
const pending: number[] = []

function printPending(): string[] {
  const texts = JSON.stringify(pending).slice(1, -1).split(',')
  pending.length = 0
  return texts
}

/** Everything of a climate block but the projected attributes, per future and zone (whose deltas object it is). */
const climatePrefixes = new WeakMap<ClimateDeltas, string>()

function climatePrefix(c: ClimateProjection): string {
  let prefix = climatePrefixes.get(c.deltas)
  if (prefix === undefined) {
    const { projected: _projected, ...fixed } = climateProjectionJson(c)
    prefix = `${JSON.stringify(fixed).slice(0, -1)},"projected":`
    climatePrefixes.set(c.deltas, prefix)
  }
  return prefix
}

export function predictionText(p: Prediction): string {
  const s = p.site
  pending.push(s.latitude, s.longitude, s.matchedLatitude, s.matchedLongitude, s.matchDistanceKm)
  const shown: FactorContribution[][] = new Array(p.predictions.length)
  for (let h = 0; h < p.predictions.length; h++) {
    const horizon = p.predictions[h] as HorizonPrediction
    const factors = horizon.topContributions(RISK_FACTORS_SHOWN)
    shown[h] = factors
    pending.push(horizon.survivalProbability)
    for (let i = 0; i < factors.length; i++) pending.push((factors[i] as FactorContribution).magnitude)
  }
  const c = p.climate?.projected
  if (c) pending.push(c.annualPrecipMm, c.summerWaterDeficitMm, c.growingSeasonFrostDays, c.thermalElevationM)
  const n = printPending()
  let k = 5
  let predictions = ''
  for (let h = 0; h < shown.length; h++) {
    const factors = shown[h] as FactorContribution[]
    const probability = n[k++]
    let factorsText = ''
    for (let i = 0; i < factors.length; i++) {
      const f = factors[i] as FactorContribution
      factorsText += `${i ? ',' : ''}{"factor":${quote(f.factor)},"impact":${quote(f.impact)},"magnitude":${n[k++]}}`
    }
    predictions +=
      `${h ? ',' : ''}{"horizon_years":${numberText((p.predictions[h] as HorizonPrediction).horizonYears)},` +
      `"survival_probability":${probability},"risk_factors":[${factorsText}]}`
  }
  const climate = p.climate
    ? `"climate":${climatePrefix(p.climate)}{"annual_precip_mm":${n[k]},"summer_water_deficit_mm":${n[k + 1]},` +
      `"growing_season_frost_days":${n[k + 2]},"thermal_elevation_m":${n[k + 3]}}},`
    : ''
  return (
    `{"site":{"latitude":${n[0]},"longitude":${n[1]},` +
    `"matched_latitude":${n[2]},"matched_longitude":${n[3]},` +
    `"match_distance_km":${n[4]},"region":${quote(s.region)}},` +
    `"species_code":${quote(p.species.code)},"species_common_name":${quote(p.species.commonName)},` +
    `"planting_method":${quote(p.plantingMethod)},"predictions":[${predictions}],` +
    climate +
    `"model":${modelText(p.model)},"generated_at":${timestampText(p.generatedAt)}}`
  )
}

function batchItemText(item: BatchItemResult): string {
  return item.ok
    ? `{"index":${item.index},"prediction":${predictionText(item.prediction)}}`
    : JSON.stringify({ index: item.index, error: errorEnvelope(item.error).error })
}

/**
 * `{"results":[…]}`, each item serialised as it comes from the domain and encoded at once, so a
 * 500-site batch never holds 500 predictions' worth of objects, nor one string of them all.
 */
export function batchResultsJson(results: Iterable<BatchItemResult>): EncodedJson {
  const out = new JsonEncoder()
  let separator = '{"results":['
  for (const result of results) {
    out.write(separator + batchItemText(result))
    separator = ','
  }
  out.write(separator === ',' ? ']}' : '{"results":[]}')
  return out.finish()
}

export function methodJson(m: PlantingMethodInfo) {
  return { id: m.id, name: m.name, description: m.description }
}

export function speciesJson(s: Species) {
  return {
    code: s.code,
    common_name: s.commonName,
    scientific_name: s.scientificName,
    group: s.group,
    elevation_min_m: s.elevMinM,
    elevation_max_m: s.elevMaxM,
    precipitation_min_mm: s.precipMinMm,
    precipitation_max_mm: s.precipMaxMm,
    drought_tolerance: s.droughtTolerance,
    shade_tolerance: s.shadeTolerance,
    frost_tolerance: s.frostTolerance,
    range_zones: s.rangeZones,
    range_states: s.rangeStates,
    notes: s.notes,
  }
}

/** RFC 7946 FeatureCollection with the spec's foreign members, also in each feature's properties. */
export function coverageJson(coverage: CoverageInfo) {
  const { region, searchRadiusKm, geojson } = coverage
  return {
    ...geojson,
    features: geojson.features.map((feature) => ({
      ...feature,
      properties: { ...feature.properties, search_radius_km: searchRadiusKm },
    })),
    region,
    search_radius_km: searchRadiusKm,
  }
}

const isoOrNull = (at: Date | null) => (at ? at.toISOString() : null)

/** A key shown once, as issued: `{"id","key","tier","status"}` (plus when it expires, if ever). */
export function issuedKeyJson(issued: IssuedKey) {
  return {
    id: issued.id,
    key: issued.key,
    tier: issued.tier,
    status: issued.status,
    ...(issued.expiresAt ? { expires_at: issued.expiresAt.toISOString() } : {}),
  }
}

export function rotationJson(rotation: { issued: IssuedKey; previousExpiresAt: Date }, previousId: string) {
  return {
    ...issuedKeyJson(rotation.issued),
    previous_key: { id: previousId, works_until: rotation.previousExpiresAt.toISOString() },
  }
}

export function usageJson(usage: KeyUsage) {
  return {
    key: {
      id: usage.key.id,
      tier: usage.key.tier,
      status: usage.key.status,
      name: usage.key.name,
      created_at: usage.key.createdAt.toISOString(),
      expires_at: isoOrNull(usage.key.expiresAt),
      last_used_at: isoOrNull(usage.key.lastUsedAt),
    },
    limits: { requests_per_day: usage.limits.requestsPerDay, batch_size: usage.limits.batchSize },
    today: {
      used: usage.today.used,
      remaining: usage.today.remaining,
      resets_at: usage.today.resetsAt.toISOString(),
    },
    history: usage.history.map((d) => ({ date: d.day, requests: d.requests })),
  }
}
