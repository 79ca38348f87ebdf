import { stateAt } from '../../geo/coverage.ts'
import {
  HORIZONS,
  type Horizon,
  type ModelInfo,
  type Site,
  type SurvivalModel,
  type UsState,
} from '../../types.ts'
import { modelInfo } from '../catalogue.ts'
import { CLIMATE_FUTURES } from '../climate.ts'
import { TREES_PER_HECTARE_PER_ACRE } from '../input-rules.ts'
import type { NearestSiteLookup, SitesInArea } from '../ports/sites.ts'
import { SITE_CLASSES, type SiteClass, siteClassOf } from '../site-class.ts'
import { assertInCoverage, matchedSite } from '../site-matching.ts'
import { asAppliedBy } from '../treatment-shares.ts'
import { TREATMENTS } from '../treatments.ts'
import { COSTS } from './costs.ts'
import { type HorizonDistribution, mixDistributions, predictionsAt } from './mix-survival.ts'
import { checkedOptionsRequest, type PlantingOptionsRequest } from './options-request.ts'
import { planNotes } from './plan-notes.ts'
import { type CheckedShare, checkedPlanRequest, checkSiteClassApplies } from './plan-request.ts'
import { planCost } from './planting-cost.ts'
import { type PlantingOptions, plantingOptions } from './planting-options.ts'
import type { Stand } from './stand.ts'
import { RULE_SET_IDS, STOCKING_STANDARDS } from './standards.ts'
import { meetsProbability, requiredDensity, round, survivorsInterval } from './stocking-math.ts'
import {
  type HorizonOutcome,
  type PlanPointSite,
  type PlanStand,
  STAND_SITES_LISTED,
  type StockingPlan,
  type StockingPlanRequest,
} from './stocking-types.ts'

/** The interval a carbon project states (Verra VM0047): 90 %. */
const CARBON_INTERVAL_LEVEL = 0.9

interface PlanSites {
  sites: Site[]
  where: PlanPointSite | PlanStand
  dataVersion: string | null
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

  /** `model`: the version to plan with (ModelRegistry.resolve); without one, the service's own. */
  async plan(request: StockingPlanRequest, model = this.survivalModel): Promise<StockingPlan> {
    const asked = checkedPlanRequest(request)
    const { location, mix, plantingMethod, climate, treatments, planted, confidence } = asked

    const { sites, where, dataVersion } =
      location.kind === 'point' ? await this.pointSites(location) : await this.standSites(location.stand)

    // A stand takes the rule most of its sites would (ties: the more demanding, first in RULE_SET_IDS).
    const ruleSet =
      asked.ruleSet ??
      majority(
        sites.map((site) => STOCKING_STANDARDS.defaultRuleSet(stateOfSite(site), site)),
        RULE_SET_IDS,
      )
    checkSiteClassApplies(asked.siteClass, ruleSet)
    const rule = STOCKING_STANDARDS.rule(ruleSet, asked.siteClass ?? where.siteClass)
    const target = asked.targetTreesPerAcre ?? rule.minimumTreesPerAcre
    const cap = rule.hardwoodShareCap === null ? null : rule.hardwoodShareCap * target

    const evaluated = climate ? sites.map((site) => CLIMATE_FUTURES.projectSite(site, climate)) : sites
    const distributions = mixDistributions(
      evaluated.length,
      mix,
      rule,
      model,
      HORIZONS,
      predictionsAt(evaluated, plantingMethod, model, HORIZONS, treatments?.modelEffects),
    )
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
      rule: { ...rule, targetTreesPerAcre: target, customTarget: asked.targetTreesPerAcre !== null },
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
      dataVersion,
      plantingMethod,
      climate: climate ? { ...climate, dataVersion: CLIMATE_FUTURES.dataVersion } : null,
      ...(treatments ? { treatments: asAppliedBy(model, treatments) } : {}),
      cost: planCost(
        { mix, method: plantingMethod, treatments: treatments?.values ?? null, planted },
        asked.costs,
        {
          horizonYears: rule.horizonYears,
          survival: atRule.pointSurvival,
          lower: ruleHorizon.lower,
          upper: ruleHorizon.upper,
          level: confidence,
        },
        COSTS.dataVersion,
      ),
      costAsked: asked.costs.asked,
      ninetyPercentHalfWidthShare: halfWidthShare === null ? null : round(halfWidthShare, 4),
      notes: planNotes({ rule, mix, cap, climate, treatments, where, requiredTpa, halfWidthShare, target }),
      model: modelInfo(model),
      generatedAt: this.now(),
    }
  }

  /**
   * The cheapest ways to meet the standard here (docs/costs.md#options): every candidate mix × method
   * × treatments at its smallest density meeting the location's standard at the confidence, ranked
   * by cost per acre, and the cheapest candidate that falls short. One lookup of the sites for all.
   */
  async options(request: PlantingOptionsRequest, model = this.survivalModel): Promise<PlantingOptions> {
    const asked = checkedOptionsRequest(request)
    const { location, climate } = asked
    const { sites, where, dataVersion } =
      location.kind === 'point' ? await this.pointSites(location) : await this.standSites(location.stand)
    const ruleSet = majority(
      sites.map((site) => STOCKING_STANDARDS.defaultRuleSet(stateOfSite(site), site)),
      RULE_SET_IDS,
    )
    const rule = STOCKING_STANDARDS.rule(ruleSet, where.siteClass)
    return plantingOptions({
      asked,
      sites: climate ? sites.map((site) => CLIMATE_FUTURES.projectSite(site, climate)) : sites,
      location: where,
      dataVersion,
      rule,
      model,
      treatmentsDataVersion: TREATMENTS.dataVersion,
      now: this.now(),
    })
  }

  private async pointSites(point: { latitude: number; longitude: number }): Promise<PlanSites> {
    assertInCoverage(point)
    const matched = matchedSite(point, await this.nearestSite.one(point))
    const site = matched.attributes
    return {
      sites: [site],
      dataVersion: matched.dataVersion,
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
    const inBox = await this.sitesInArea.within({ west, south, east, north })
    const inside = inBox.sites.filter((site) => stand.contains(site))
    let sites = inside
    let dataVersion = inBox.dataVersion
    let nearestDistance: number | null = null
    if (inside.length === 0) {
      assertInCoverage(stand.centroid)
      const matched = matchedSite(stand.centroid, await this.nearestSite.one(stand.centroid))
      sites = [matched.attributes]
      dataVersion = matched.dataVersion
      nearestDistance = matched.matchDistanceKm
    }
    const classes = sites.map(siteClassOf)
    return {
      sites,
      dataVersion,
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
