import { stateAt } from '../../geo/coverage.ts'
import { sigmoid } from '../../stats/logistic.ts'
import {
  HORIZONS,
  type Horizon,
  type ModelInfo,
  type NearestSiteLookup,
  type PlantingMethod,
  type Site,
  type SitesInArea,
  type Species,
  type SurvivalModel,
  type UsState,
} from '../../types.ts'
import { modelInfo, resolvePlantingMethod, resolveSpecies } from '../catalogue.ts'
import { CLIMATE_DATA_NOTE, CLIMATE_FUTURES, type ClimateFuture } from '../climate.ts'
import { invalidField } from '../errors.ts'
import {
  CONFIDENCE_MAX,
  CONFIDENCE_MIN,
  SPECIES_MIX_MAX,
  TREES_PER_HECTARE_PER_ACRE,
} from '../input-rules.ts'
import { SITE_CLASSES, type SiteClass, siteClassOf } from '../site-class.ts'
import { assertInCoverage, matchedSite } from '../site-matching.ts'
import { checkedStand, type Stand } from './stand.ts'
import { RULE_SET_IDS, type RuleSetId, STOCKING_STANDARDS, type StockingRule } from './standards.ts'
import {
  MAX_REQUIRED_TREES_PER_ACRE,
  type MixMember,
  meetsProbability,
  requiredDensity,
  type SurvivalDistribution,
  survivalDistribution,
  survivorsInterval,
} from './stocking-math.ts'
import type {
  HorizonOutcome,
  PlanPointSite,
  PlanStand,
  StockingPlan,
  StockingPlanRequest,
} from './stocking-types.ts'

export const DEFAULT_CONFIDENCE = 0.9
/** The interval a carbon project states (Verra VM0047): 90 %. */
const CARBON_INTERVAL_LEVEL = 0.9
/** Shares of a mix may miss 1 by this much (0.333 + 0.333 + 0.334 is a mix of thirds). */
const SHARE_SUM_TOLERANCE = 0.001
/** A stand lists at most this many of its sites; `sites_inside` counts them all. */
const STAND_SITES_LISTED = 100

const NOTE_SURVIVAL_ONLY =
  'Survival only: whether the trees will be free to grow (ahead of competing vegetation) is not assessed, and the rules count only free-to-grow trees'
const NOTE_ASSUMPTIONS =
  'The interval and the probability come from stated assumptions (a planting-year and a site effect on the logit scale, and clumped plot counts), not fitted values: see the model card'

type Location = { kind: 'point'; latitude: number; longitude: number } | { kind: 'stand'; stand: Stand }

interface PlanSites {
  sites: Site[]
  where: PlanPointSite | PlanStand
}

/**
 * Stocking plans: how likely a planted density of a species mix is to meet a reforestation standard,
 * and the density that would at a stated confidence. The same rules for GraphQL and REST.
 */
export class StockingPlanService {
  readonly model: ModelInfo

  constructor(
    private readonly survivalModel: SurvivalModel,
    private readonly nearestSite: NearestSiteLookup,
    private readonly sitesInArea: SitesInArea,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.model = modelInfo(survivalModel)
  }

  async plan(request: StockingPlanRequest): Promise<StockingPlan> {
    const location = locationOf(request)
    const mix = checkedMix(request.speciesMix)
    const plantingMethod = resolvePlantingMethod(request.plantingMethod)
    const climate = CLIMATE_FUTURES.resolve(request.climate)
    const planted = plantedDensity(request)
    const confidence = request.confidence ?? DEFAULT_CONFIDENCE
    if (!(confidence >= CONFIDENCE_MIN && confidence <= CONFIDENCE_MAX))
      throw invalidField('confidence', `must be from ${CONFIDENCE_MIN} to ${CONFIDENCE_MAX}`)
    const askedRuleSet = checkedRuleSet(request.ruleSet)
    const askedSiteClass = checkedSiteClass(request.siteClass, askedRuleSet)

    const { sites, where } =
      location.kind === 'point' ? await this.pointSites(location) : await this.standSites(location.stand)

    // A stand takes the rule most of its sites would (ties: the more demanding, first in RULE_SET_IDS).
    const ruleSet =
      askedRuleSet ??
      majority(
        sites.map((site) => STOCKING_STANDARDS.defaultRuleSet(stateOfSite(site), site)),
        RULE_SET_IDS,
      )
    if (askedSiteClass && !STOCKING_STANDARDS.hasSiteClasses(ruleSet))
      throw invalidField('site_class', `applies only to Oregon's rule (or_fpa); ${ruleSet} has one standard`)
    const rule = STOCKING_STANDARDS.rule(ruleSet, askedSiteClass ?? where.siteClass)
    const target = request.targetTreesPerAcre ?? rule.minimumTreesPerAcre
    const cap = rule.hardwoodShareCap === null ? null : rule.hardwoodShareCap * target

    const evaluated = climate ? sites.map((site) => CLIMATE_FUTURES.projectSite(site, climate)) : sites
    const distributions = this.distributions(evaluated, mix, plantingMethod, rule)
    const horizons = HORIZONS.map((horizon) =>
      horizonOutcome(horizon, distributions[horizon], mix, planted, confidence),
    )
    const atRule = distributions[rule.horizonYears].distribution
    const probability = meetsProbability(atRule, planted, target, cap)
    const requiredTpa = requiredDensity(atRule, target, cap, confidence)
    const ruleHorizon = horizons.find((h) => h.horizonYears === rule.horizonYears) as HorizonOutcome
    // The carbon note's 90 % interval is the rule horizon's own when the plan asks for 90 % (the default).
    const ninety =
      confidence === CARBON_INTERVAL_LEVEL
        ? ruleHorizon
        : survivorsInterval(atRule, planted, CARBON_INTERVAL_LEVEL)
    const halfWidthShare =
      ruleHorizon.expectedTreesPerAcre > 0
        ? (ninety.upper - ninety.lower) / 2 / ruleHorizon.expectedTreesPerAcre
        : null

    return {
      rule: { ...rule, targetTreesPerAcre: target, customTarget: request.targetTreesPerAcre != null },
      planted: {
        treesPerAcre: round(planted, 2),
        treesPerHectare: round(planted * TREES_PER_HECTARE_PER_ACRE, 1),
      },
      confidence,
      horizons,
      meetsStandard: {
        probability,
        atConfidence: probability >= confidence,
        horizonYears: rule.horizonYears,
      },
      required: {
        treesPerAcre: requiredTpa,
        treesPerHectare: requiredTpa === null ? null : Math.ceil(requiredTpa * TREES_PER_HECTARE_PER_ACRE),
        overplantingFactor: requiredTpa === null ? null : round(requiredTpa / target, 3),
      },
      location: where,
      plantingMethod,
      climate: climate ? { ...climate, dataVersion: CLIMATE_FUTURES.dataVersion } : null,
      ninetyPercentHalfWidthShare: halfWidthShare === null ? null : round(halfWidthShare, 4),
      notes: planNotes({ rule, mix, cap, climate, where, requiredTpa, halfWidthShare, target }),
      model: this.model,
      generatedAt: this.now(),
    }
  }

  private async pointSites(point: { latitude: number; longitude: number }): Promise<PlanSites> {
    assertInCoverage(point)
    const matched = matchedSite(point, await this.nearestSite.one(point))
    const site = matched.attributes
    return {
      sites: [site],
      where: {
        kind: 'point',
        latitude: point.latitude,
        longitude: point.longitude,
        siteId: site.id,
        matchedLatitude: matched.matchedLatitude,
        matchedLongitude: matched.matchedLongitude,
        matchDistanceKm: matched.matchDistanceKm,
        zone: site.zone,
        state: stateOfSite(site),
        siteClass: siteClassOf(site),
      },
    }
  }

  private async standSites(stand: Stand): Promise<PlanSites> {
    const [west, south, east, north] = stand.bbox
    const inside = (await this.sitesInArea.within({ west, south, east, north })).filter((site) =>
      stand.contains(site),
    )
    let sites = inside
    let nearestDistance: number | null = null
    if (inside.length === 0) {
      assertInCoverage(stand.centroid)
      const matched = matchedSite(stand.centroid, await this.nearestSite.one(stand.centroid))
      sites = [matched.attributes]
      nearestDistance = matched.matchDistanceKm
    }
    const classes = sites.map(siteClassOf)
    return {
      sites,
      where: {
        kind: 'stand',
        areaHa: round(stand.areaHa, 2),
        centroid: {
          latitude: round(stand.centroid.latitude, 6),
          longitude: round(stand.centroid.longitude, 6),
        },
        sitesInside: inside.length,
        nearestSiteUsed: inside.length === 0,
        nearestSiteDistanceKm: nearestDistance === null ? null : round(nearestDistance, 3),
        sites: sites.slice(0, STAND_SITES_LISTED).map((site, i) => ({
          siteId: site.id,
          latitude: site.latitude,
          longitude: site.longitude,
          zone: site.zone,
          siteClass: classes[i] as SiteClass,
        })),
        state: majority(sites.map(stateOfSite), ['OR', 'WA']),
        siteClass: majority(classes, SITE_CLASSES),
      },
    }
  }

  /** Each horizon's distribution of the mix's survival over the sites, and each species' own answer. */
  private distributions(
    sites: readonly Site[],
    mix: readonly CheckedShare[],
    method: PlantingMethod,
    rule: StockingRule,
  ): Record<Horizon, HorizonDistribution> {
    const logOdds = { 1: [] as Float64Array[], 3: [] as Float64Array[], 5: [] as Float64Array[] }
    for (const { species } of mix) {
      const bySite = {
        1: new Float64Array(sites.length),
        3: new Float64Array(sites.length),
        5: new Float64Array(sites.length),
      }
      sites.forEach((site, j) => {
        for (const prediction of this.survivalModel.predict(site, species, method)) {
          bySite[prediction.horizonYears][j] = prediction.logOdds
        }
      })
      for (const horizon of HORIZONS) logOdds[horizon].push(bySite[horizon])
    }
    const result = {} as Record<Horizon, HorizonDistribution>
    for (const horizon of HORIZONS) {
      const members: MixMember[] = mix.map((item, k) => ({
        share: item.share,
        countsInFull: rule.hardwoodShareCap === null || item.species.group !== 'hardwood',
        logOddsBySite: logOdds[horizon][k] as Float64Array,
      }))
      result[horizon] = {
        distribution: survivalDistribution(members, this.survivalModel.uncertainty),
        speciesSurvival: members.map((member) => meanSurvival(member.logOddsBySite)),
        countsInFull: members.map((member) => member.countsInFull),
      }
    }
    return result
  }
}

interface HorizonDistribution {
  distribution: SurvivalDistribution
  /** Each species' own survival (mean over the sites), in mix order. */
  speciesSurvival: number[]
  countsInFull: boolean[]
}

function meanSurvival(logOddsBySite: ArrayLike<number>): number {
  let sum = 0
  for (let j = 0; j < logOddsBySite.length; j++) sum += sigmoid(logOddsBySite[j] as number)
  return sum / logOddsBySite.length
}

interface CheckedShare {
  species: Species
  share: number
}

function locationOf(request: StockingPlanRequest): Location {
  const hasPoint = request.latitude != null || request.longitude != null
  if (request.stand != null) {
    if (hasPoint) throw invalidField('stand', 'is given with latitude and longitude; send one or the other')
    return { kind: 'stand', stand: checkedStand(request.stand) }
  }
  if (request.latitude == null) throw invalidField('latitude', 'is required (or send a stand)')
  if (request.longitude == null) throw invalidField('longitude', 'is required (or send a stand)')
  return { kind: 'point', latitude: request.latitude, longitude: request.longitude }
}

function checkedMix(mix: StockingPlanRequest['speciesMix']): CheckedShare[] {
  if (mix.length === 0) throw invalidField('species_mix', 'must hold at least one species')
  if (mix.length > SPECIES_MIX_MAX)
    throw invalidField('species_mix', `may hold at most ${SPECIES_MIX_MAX} species`)
  const checked = mix.map((item) => ({ species: resolveSpecies(item.speciesCode), share: item.share }))
  const seen = new Set<string>()
  checked.forEach(({ species }, i) => {
    if (seen.has(species.code))
      throw invalidField(`species_mix[${i}].species_code`, `repeats ${species.code}; list each species once`)
    seen.add(species.code)
  })
  const total = checked.reduce((sum, item) => sum + item.share, 0)
  if (Math.abs(total - 1) > SHARE_SUM_TOLERANCE)
    throw invalidField('species_mix', `shares must sum to 1; they sum to ${round(total, 6)}`)
  // Shares within the tolerance are scaled to sum to exactly 1.
  return checked.map((item) => ({ species: item.species, share: item.share / total }))
}

function plantedDensity(request: StockingPlanRequest): number {
  const perAcre = request.treesPerAcre
  const perHectare = request.treesPerHectare
  if (perAcre != null && perHectare != null)
    throw invalidField('trees_per_hectare', 'is given with trees_per_acre; send one or the other')
  if (perAcre != null) return perAcre
  if (perHectare != null) return perHectare / TREES_PER_HECTARE_PER_ACRE
  throw invalidField('trees_per_acre', 'is required (or send trees_per_hectare)')
}

function checkedRuleSet(value: string | null | undefined): RuleSetId | null {
  if (value == null) return null
  if (!(RULE_SET_IDS as readonly string[]).includes(value))
    throw invalidField('rule_set', `must be one of ${RULE_SET_IDS.join(', ')}`)
  return value as RuleSetId
}

function checkedSiteClass(value: string | null | undefined, ruleSet: RuleSetId | null): SiteClass | null {
  if (value == null) return null
  if (!(SITE_CLASSES as readonly string[]).includes(value))
    throw invalidField('site_class', `must be one of ${SITE_CLASSES.join(', ')}`)
  if (ruleSet !== null && !STOCKING_STANDARDS.hasSiteClasses(ruleSet))
    throw invalidField('site_class', `applies only to Oregon's rule (or_fpa); ${ruleSet} has one standard`)
  return value as SiteClass
}

function stateOfSite(site: Site): UsState {
  // Every seeded site records its state; the land shapes, then the Columbia's latitude, stand in otherwise.
  return site.state ?? stateAt(site.latitude, site.longitude) ?? (site.latitude < 46 ? 'OR' : 'WA')
}

/** The most common value; ties go to the value listed first in `order`. */
function majority<T>(values: readonly T[], order: readonly T[]): T {
  const counts = new Map<T, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  let best = order[0] as T
  let bestCount = -1
  for (const value of order) {
    const count = counts.get(value) ?? 0
    if (count > bestCount) {
      best = value
      bestCount = count
    }
  }
  return best
}

function horizonOutcome(
  horizon: Horizon,
  at: HorizonDistribution,
  mix: readonly CheckedShare[],
  planted: number,
  confidence: number,
): HorizonOutcome {
  const { lower, upper } = survivorsInterval(at.distribution, planted, confidence)
  return {
    horizonYears: horizon,
    survivalProbability: at.distribution.pointSurvival,
    expectedTreesPerAcre: round(planted * at.distribution.pointSurvival, 1),
    lower,
    upper,
    bySpecies: mix.map((item, k) => {
      const survival = at.speciesSurvival[k] as number
      return {
        species: item.species,
        share: item.share,
        plantedTreesPerAcre: round(planted * item.share, 2),
        survivalProbability: survival,
        expectedTreesPerAcre: round(planted * item.share * survival, 1),
        countsInFull: at.countsInFull[k] as boolean,
      }
    }),
  }
}

function planNotes(plan: {
  rule: StockingRule
  mix: readonly CheckedShare[]
  cap: number | null
  climate: ClimateFuture | null
  where: PlanPointSite | PlanStand
  requiredTpa: number | null
  halfWidthShare: number | null
  target: number
}): string[] {
  const notes = [STOCKING_STANDARDS.description, NOTE_SURVIVAL_ONLY, NOTE_ASSUMPTIONS]
  if (plan.rule.verify)
    notes.push(
      `The minimum of ${plan.rule.minimumTreesPerAcre} trees per acre for site class ${plan.rule.siteClass} came from secondary summaries: verify it against ${plan.rule.citation} before relying on it`,
    )
  if (plan.cap !== null && plan.mix.some((item) => item.species.group === 'hardwood'))
    notes.push(
      `Hardwoods count toward the standard for at most ${Math.round((plan.rule.hardwoodShareCap ?? 0) * 100)} % of it (${round(plan.cap, 1)} trees per acre): a conservative reading of OAR 629-610-0050`,
    )
  if (plan.where.kind === 'stand' && plan.where.nearestSiteUsed)
    notes.push(
      `No data site lies inside the stand: the nearest one, ${plan.where.nearestSiteDistanceKm} km from its centre, stands for it`,
    )
  if (plan.where.kind === 'stand' && plan.where.sitesInside > STAND_SITES_LISTED)
    notes.push(
      `The stand holds ${plan.where.sitesInside} data sites; the first ${STAND_SITES_LISTED} by id are listed`,
    )
  if (plan.climate) notes.push(CLIMATE_DATA_NOTE)
  if (plan.requiredTpa === null)
    notes.push(
      `No density up to ${MAX_REQUIRED_TREES_PER_ACRE} trees per acre meets ${plan.target} per acre at this confidence here: choose other species or another method`,
    )
  if (plan.halfWidthShare !== null)
    notes.push(
      `For carbon use: the 90 % interval's half-width is ${round(plan.halfWidthShare * 100, 1)} % of the expected survivors at ${plan.rule.horizonYears} year(s) (Verra VM0047 issues no credits above 100 %)`,
    )
  return notes
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals
  return Math.round(value * factor) / factor
}
