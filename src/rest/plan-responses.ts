import { perHectare } from '../domain/stocking/stocking-math.ts'
import type { StockingPlan } from '../domain/stocking/stocking-types.ts'
import { modelJson } from './responses.ts'
import { appliedTreatmentsJson } from './treatments-json.ts'

/** The POST /v1/plans/stocking answer (docs/stocking-plans.md; schema/openapi.yaml StockingPlan). */
export function stockingPlanJson(plan: StockingPlan) {
  const { rule, location } = plan
  return {
    rule: {
      id: rule.id,
      name: rule.name,
      citation: rule.citation,
      minimum_trees_per_acre: rule.minimumTreesPerAcre,
      target_trees_per_acre: rule.targetTreesPerAcre,
      custom_target: rule.customTarget,
      horizon_years: rule.horizonYears,
      site_class: rule.siteClass,
      hardwood_share_cap: rule.hardwoodShareCap,
      verify: rule.verify,
      status: rule.status,
      sources: rule.sources,
    },
    planting_method: plan.plantingMethod,
    planted: { trees_per_acre: plan.planted.treesPerAcre, trees_per_hectare: plan.planted.treesPerHectare },
    confidence: plan.confidence,
    horizons: plan.horizons.map((h) => ({
      horizon_years: h.horizonYears,
      survival_probability: h.survivalProbability,
      expected_trees_per_acre: h.expectedTreesPerAcre,
      lower: h.lower,
      upper: h.upper,
      expected_trees_per_hectare: perHectare(h.expectedTreesPerAcre),
      lower_per_hectare: perHectare(h.lower),
      upper_per_hectare: perHectare(h.upper),
      by_species: h.bySpecies.map((s) => ({
        species_code: s.species.code,
        species_common_name: s.species.commonName,
        group: s.species.group,
        share: s.share,
        planted_trees_per_acre: s.plantedTreesPerAcre,
        survival_probability: s.survivalProbability,
        expected_trees_per_acre: s.expectedTreesPerAcre,
        counts_in_full: s.countsInFull,
      })),
    })),
    meets_standard: {
      probability: plan.meetsStandard.probability,
      at_confidence: plan.meetsStandard.atConfidence,
      horizon_years: plan.meetsStandard.horizonYears,
    },
    required: {
      trees_per_acre: plan.required.treesPerAcre,
      trees_per_hectare: plan.required.treesPerHectare,
      overplanting_factor: plan.required.overplantingFactor,
    },
    ...(location.kind === 'point'
      ? {
          site: {
            latitude: location.latitude,
            longitude: location.longitude,
            site_id: location.siteId,
            matched_latitude: location.matchedLatitude,
            matched_longitude: location.matchedLongitude,
            match_distance_km: location.matchDistanceKm,
            zone: location.zone,
            state: location.state,
            site_class: location.siteClass,
          },
        }
      : {
          stand: {
            area_ha: location.areaHa,
            centroid: location.centroid,
            sites_inside: location.sitesInside,
            nearest_site_used: location.nearestSiteUsed,
            nearest_site_distance_km: location.nearestSiteDistanceKm,
            state: location.state,
            site_class: location.siteClass,
            sites: location.sites.map((s) => ({
              site_id: s.siteId,
              latitude: s.latitude,
              longitude: s.longitude,
              zone: s.zone,
              site_class: s.siteClass,
            })),
          },
        }),
    climate: plan.climate
      ? {
          period: plan.climate.period,
          scenario: plan.climate.scenario,
          data_version: plan.climate.dataVersion,
        }
      : null,
    ...(plan.treatments ? { treatments: appliedTreatmentsJson(plan.treatments) } : {}),
    carbon: { ninety_percent_half_width_share: plan.ninetyPercentHalfWidthShare },
    notes: plan.notes,
    model: modelJson(plan.model),
    generated_at: plan.generatedAt.toISOString(),
  }
}
