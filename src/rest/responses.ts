import type { AuditPage } from '../domain/audit-service.ts'
import type { CoverageInfo, PlantingMethodInfo } from '../domain/catalogue.ts'
import {
  CLIMATE_DATA_NOTE,
  type ClimateCatalogueView,
  type ClimateDeltas,
  type ClimateProjection,
} from '../domain/climate.ts'
import type { KeyUsage } from '../domain/key-service.ts'
import type { Comparison, MatchedSite, Prediction, SpeciesRanking } from '../domain/prediction-types.ts'
import type {
  CalibrationShift,
  FactorContribution,
  HorizonPrediction,
  IssuedKey,
  ModelInfo,
  Species,
} from '../types.ts'
import { appliedTreatmentsJson, predictionTreatmentsJson } from './treatments-json.ts'

/**
 * Domain results → the API contract's /v1 JSON (snake_case). Field sets are exactly the contract's; where the contract
 * is silent the layout is documented in docs/api.md and schema/openapi.yaml.
 */

/** The API contract's top 3 risk factors per prediction, ranked by magnitude. */
export const RISK_FACTORS_SHOWN = 3

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

/** A calibrated version's shift of one species × method (docs/models.md); the same at every horizon. */
export function calibrationJson(shift: CalibrationShift) {
  return {
    offset: shift.offset,
    interval: [shift.interval[0], shift.interval[1]],
    interval_level: shift.level,
    plots: shift.plots,
    trees: shift.trees,
  }
}

/** `{calibration}` when a calibrated version made the horizons, else nothing. */
function calibrationOf(horizons: readonly HorizonPrediction[]) {
  const shift = horizons[0]?.calibration
  return shift ? { calibration: calibrationJson(shift) } : {}
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

/** The /v1/predict answer as objects: the shape, spelled out; prediction-writer.ts writes the same bytes. */
export function predictionJson(p: Prediction) {
  return {
    site: siteJson(p.site),
    species_code: p.species.code,
    species_common_name: p.species.commonName,
    planting_method: p.plantingMethod,
    predictions: p.predictions.map(horizonJson),
    ...(p.climate ? { climate: climateProjectionJson(p.climate) } : {}),
    ...calibrationOf(p.predictions),
    ...(p.treatments ? { treatments: predictionTreatmentsJson(p.treatments, p.predictions) } : {}),
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
    ...(c.manual[0]?.calibration && c.droneSeeded[0]?.calibration
      ? {
          calibration: {
            manual: calibrationJson(c.manual[0].calibration),
            drone_seeded: calibrationJson(c.droneSeeded[0].calibration),
          },
        }
      : {}),
    ...(c.treatments
      ? {
          treatments: {
            manual: predictionTreatmentsJson(c.treatments.manual, c.manual),
            drone_seeded: predictionTreatmentsJson(c.treatments.droneSeeded, c.droneSeeded),
          },
        }
      : {}),
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
      ...(entry.calibration ? { calibration: calibrationJson(entry.calibration) } : {}),
      ...(entry.untreatedSurvivalProbability !== undefined
        ? { untreated_survival_probability: entry.untreatedSurvivalProbability }
        : {}),
    })),
    ...(r.climate ? { climate: climateProjectionJson(r.climate) } : {}),
    ...(r.treatments ? { treatments: appliedTreatmentsJson(r.treatments) } : {}),
    model: modelJson(r.model),
    generated_at: r.generatedAt.toISOString(),
  }
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

/** RFC 7946 FeatureCollection with the API contract's foreign members, also in each feature's properties. */
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

/** `GET /v1/audit`: a page of the account's events, newest first, and where the next one starts. */
export function auditPageJson(page: AuditPage) {
  return {
    events: page.events.map((event) => ({
      id: event.id,
      kind: event.kind,
      at: event.at.toISOString(),
      actor: event.actor,
      key_id: event.keyId,
      address_tag: event.addressTag,
      details: { ...event.details },
    })),
    next_cursor: page.nextCursor,
  }
}
