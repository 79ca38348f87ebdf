import type { PlantingMethod, Species } from '../../types.ts'
import { resolvePlantingMethod, resolveSpecies } from '../catalogue.ts'
import { CLIMATE_FUTURES, type ClimateFuture } from '../climate.ts'
import { invalidField } from '../errors.ts'
import {
  CONFIDENCE_MAX,
  CONFIDENCE_MIN,
  SPECIES_MIX_MAX,
  TREES_PER_HECTARE_PER_ACRE,
} from '../input-rules.ts'
import { SITE_CLASSES, type SiteClass } from '../site-class.ts'
import type { AppliedTreatments } from '../treatment-types.ts'
import { TREATMENTS } from '../treatments.ts'
import { COSTS, type ResolvedCosts } from './costs.ts'
import { checkedStand, type Stand } from './stand.ts'
import { RULE_SET_IDS, type RuleSetId, STOCKING_STANDARDS } from './standards.ts'
import { round } from './stocking-math.ts'
import type { StockingPlanRequest } from './stocking-types.ts'

const DEFAULT_CONFIDENCE = 0.9
/** Shares of a mix may miss 1 by this much (0.333 + 0.333 + 0.334 is a mix of thirds). */
const SHARE_SUM_TOLERANCE = 0.001

export type PlanLocation =
  | { kind: 'point'; latitude: number; longitude: number }
  | { kind: 'stand'; stand: Stand }

export interface CheckedShare {
  species: Species
  share: number
}

/** A plan request that passed its checks, its names resolved: what the service plans. */
export interface CheckedPlanRequest {
  location: PlanLocation
  /** Each species once, with the shares scaled to sum to exactly 1. */
  mix: CheckedShare[]
  plantingMethod: PlantingMethod
  climate: ClimateFuture | null
  /** null: untreated. */
  treatments: AppliedTreatments | null
  /** Trees planted per acre. */
  planted: number
  confidence: number
  /** The rule set asked for; null: the location's. */
  ruleSet: RuleSetId | null
  /** The site class asked for; null: the location's. */
  siteClass: SiteClass | null
  /** A target asked for instead of the rule's minimum; null: the minimum. */
  targetTreesPerAcre: number | null
  /** The request's cost figures over the defaults (data/costs.json). */
  costs: ResolvedCosts
}

/**
 * Checks a plan request before anything is looked up, and reports the first field that fails, in this
 * order: the location, the mix, the method, the climate, the treatments, the density, the confidence,
 * the rule set, the site class and the costs. Fields are named as the domain names them (speciesMix[1].speciesCode); the REST,
 * GraphQL and job-file adapters give them their own names.
 */
export function checkedPlanRequest(request: StockingPlanRequest): CheckedPlanRequest {
  const location = locationOf(request)
  const mix = checkedMix(request.speciesMix)
  const plantingMethod = resolvePlantingMethod(request.plantingMethod)
  const climate = CLIMATE_FUTURES.resolve(request.climate)
  const treatments = TREATMENTS.resolve(request.treatments, plantingMethod)
  const planted = plantedDensity(request)
  const confidence = request.confidence ?? DEFAULT_CONFIDENCE
  if (!(confidence >= CONFIDENCE_MIN && confidence <= CONFIDENCE_MAX))
    throw invalidField('confidence', `must be from ${CONFIDENCE_MIN} to ${CONFIDENCE_MAX}`)
  const ruleSet = checkedRuleSet(request.ruleSet)
  const siteClass = checkedSiteClass(request.siteClass, ruleSet)
  const costs = COSTS.resolve(request.costs)
  return {
    location,
    mix,
    plantingMethod,
    climate,
    treatments,
    planted,
    confidence,
    ruleSet,
    siteClass,
    targetTreesPerAcre: request.targetTreesPerAcre ?? null,
    costs,
  }
}

/** A site class asked for applies only under a rule set that has classes (Oregon's). */
export function checkSiteClassApplies(siteClass: SiteClass | null, ruleSet: RuleSetId): void {
  if (siteClass !== null && !STOCKING_STANDARDS.hasSiteClasses(ruleSet))
    throw invalidField('siteClass', `applies only to Oregon's rule (or_fpa); ${ruleSet} has one standard`)
}

/** Where a plan or an options search is asked for: a point or a stand, never both. */
export function locationOf(
  request: Pick<StockingPlanRequest, 'latitude' | 'longitude' | 'stand'>,
): PlanLocation {
  const hasPoint = request.latitude != null || request.longitude != null
  if (request.stand != null) {
    if (hasPoint) throw invalidField('stand', 'is given with latitude and longitude; send one or the other')
    return { kind: 'stand', stand: checkedStand(request.stand) }
  }
  if (request.latitude == null) throw invalidField('latitude', 'is required (or send a stand)')
  if (request.longitude == null) throw invalidField('longitude', 'is required (or send a stand)')
  return { kind: 'point', latitude: request.latitude, longitude: request.longitude }
}

/** A species mix checked (each species once, shares summing to 1) and scaled to sum to exactly 1. */
export function checkedMix(mix: StockingPlanRequest['speciesMix'], field = 'speciesMix'): CheckedShare[] {
  if (mix.length === 0) throw invalidField(field, 'must hold at least one species')
  if (mix.length > SPECIES_MIX_MAX) throw invalidField(field, `may hold at most ${SPECIES_MIX_MAX} species`)
  const checked = mix.map((item) => ({ species: resolveSpecies(item.speciesCode), share: item.share }))
  const seen = new Set<string>()
  checked.forEach(({ species }, i) => {
    if (seen.has(species.code))
      throw invalidField(`${field}[${i}].speciesCode`, `repeats ${species.code}; list each species once`)
    seen.add(species.code)
  })
  const total = checked.reduce((sum, item) => sum + item.share, 0)
  if (Math.abs(total - 1) > SHARE_SUM_TOLERANCE)
    throw invalidField(field, `shares must sum to 1; they sum to ${round(total, 6)}`)
  // Shares within the tolerance are scaled to sum to exactly 1.
  return checked.map((item) => ({ species: item.species, share: item.share / total }))
}

function plantedDensity(request: StockingPlanRequest): number {
  const perAcre = request.treesPerAcre
  const perHectare = request.treesPerHectare
  if (perAcre != null && perHectare != null)
    throw invalidField('treesPerHectare', 'is given with treesPerAcre; send one or the other')
  if (perAcre != null) return perAcre
  if (perHectare != null) return perHectare / TREES_PER_HECTARE_PER_ACRE
  throw invalidField('treesPerAcre', 'is required (or send treesPerHectare)')
}

function checkedRuleSet(value: string | null | undefined): RuleSetId | null {
  if (value == null) return null
  if (!(RULE_SET_IDS as readonly string[]).includes(value))
    throw invalidField('ruleSet', `must be one of ${RULE_SET_IDS.join(', ')}`)
  return value as RuleSetId
}

function checkedSiteClass(value: string | null | undefined, ruleSet: RuleSetId | null): SiteClass | null {
  if (value == null) return null
  if (!(SITE_CLASSES as readonly string[]).includes(value))
    throw invalidField('siteClass', `must be one of ${SITE_CLASSES.join(', ')}`)
  if (ruleSet !== null) checkSiteClassApplies(value as SiteClass, ruleSet)
  return value as SiteClass
}
