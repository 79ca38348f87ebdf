import type { PlanCost } from '../domain/stocking/costs.ts'
import type { CheckedShare } from '../domain/stocking/plan-request.ts'
import type { PlantingOption, PlantingOptions } from '../domain/stocking/planting-options.ts'
import type { StockingRule } from '../domain/stocking/standards.ts'
import { perHectare } from '../domain/stocking/stocking-math.ts'
import type { PlanPointSite, PlanStand, StockingPlan } from '../domain/stocking/stocking-types.ts'
import { modelJson } from './responses.ts'
import { appliedTreatmentsJson } from './treatments-json.ts'

/** The POST /v1/plans/stocking answer (docs/stocking-plans.md; schema/openapi.yaml StockingPlan). */
export function stockingPlanJson(plan: StockingPlan) {
  const { location } = plan
  return {
    rule: ruleJson(plan.rule),
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
    ...locationJson(location),
    climate: plan.climate
      ? {
          period: plan.climate.period,
          scenario: plan.climate.scenario,
          data_version: plan.climate.dataVersion,
        }
      : null,
    ...(plan.treatments ? { treatments: appliedTreatmentsJson(plan.treatments) } : {}),
    // Only when asked for (costs given) or treated: an untreated plan's answer stays as it was.
    ...(plan.costAsked || plan.treatments ? { cost: costJson(plan.cost) } : {}),
    carbon: { ninety_percent_half_width_share: plan.ninetyPercentHalfWidthShare },
    notes: plan.notes,
    model: modelJson(plan.model),
    generated_at: plan.generatedAt.toISOString(),
  }
}

function ruleJson(rule: StockingRule & { targetTreesPerAcre: number; customTarget: boolean }) {
  return {
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
  }
}

function locationJson(location: PlanPointSite | PlanStand) {
  return location.kind === 'point'
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
      }
}

/** A plan's or an option's `cost` block (docs/costs.md). */
export function costJson(cost: PlanCost) {
  return {
    currency: cost.currency,
    per_acre: cost.perAcre,
    horizon_years: cost.horizonYears,
    established_trees_per_acre: cost.establishedTreesPerAcre,
    per_established_tree: cost.perEstablishedTree,
    per_established_tree_interval: {
      lower: cost.perEstablishedTreeInterval.lower,
      upper: cost.perEstablishedTreeInterval.upper,
      level: cost.perEstablishedTreeInterval.level,
    },
    parts: cost.parts.map((part) => ({
      item: part.item,
      species_code: part.speciesCode,
      unit: part.unit,
      unit_cost: part.unitCost,
      quantity: part.quantity,
      per_acre: part.perAcre,
      status: part.status,
      default_id: part.defaultId,
      price_year: part.priceYear,
      sources: part.sources,
    })),
    least_certain_status: cost.leastCertainStatus,
    data_version: cost.dataVersion,
  }
}

const mixJson = (mix: readonly CheckedShare[]) =>
  mix.map((item) => ({ species_code: item.species.code, share: item.share }))

function optionJson(option: PlantingOption) {
  return {
    mix_index: option.mixIndex,
    species_mix: mixJson(option.mix),
    planting_method: option.method,
    treatments: {
      vegetation_control: option.treatments.vegetation_control,
      animal_protection: option.treatments.animal_protection,
      stock_type: option.treatments.stock_type,
      shade: option.treatments.shade,
    },
    trees_per_acre: option.treesPerAcre,
    trees_per_hectare: option.treesPerHectare,
    probability: option.probability,
    meets_confidence: option.meetsConfidence,
    survival_probability: option.survivalProbability,
    expected_trees_per_acre: option.expectedTreesPerAcre,
    lower: option.lower,
    upper: option.upper,
    cost: costJson(option.cost),
    treatment_effects: option.treatmentEffects.map((e) => ({
      treatment: e.treatment,
      value: e.value,
      effect_id: e.effectId,
      share_from: e.shareFrom,
      status: e.status,
    })),
    least_certain_status: option.leastCertainStatus,
  }
}

/** The POST /v1/plans/options answer (docs/costs.md#options; schema/openapi.yaml PlantingOptions). */
export function plantingOptionsJson(found: PlantingOptions) {
  return {
    rule: ruleJson(found.rule),
    confidence: found.confidence,
    max_trees_per_acre: found.maxTreesPerAcre,
    candidates: found.candidates,
    options: found.options.map(optionJson),
    cheapest_failing: found.cheapestFailing
      ? { ...optionJson(found.cheapestFailing), shortfall: found.cheapestFailing.shortfall }
      : null,
    ...locationJson(found.location),
    data_version: found.dataVersion,
    climate: found.climate
      ? {
          period: found.climate.period,
          scenario: found.climate.scenario,
          data_version: found.climate.dataVersion,
        }
      : null,
    costs_data_version: found.costsDataVersion,
    treatments_data_version: found.treatmentsDataVersion,
    notes: found.notes,
    model: modelJson(found.model),
    generated_at: found.generatedAt.toISOString(),
  }
}
