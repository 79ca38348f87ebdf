import type { Horizon, ModelInfo, Species, UsState } from '../../types.ts'
import type { ClimateRequest, EmissionScenario, FuturePeriod } from '../climate.ts'
import type { StandInput } from '../input-rules.ts'
import type { SiteClass } from '../site-class.ts'
import type { AppliedTreatments } from '../treatment-types.ts'
import type { TreatmentsRequest } from '../treatment-values.ts'
import type { CostsRequest, PlanCost } from './costs.ts'
import type { StockingRule } from './standards.ts'

/**
 * A plan as asked for, its fields checked for type and range by the input rules; the adapters map the
 * API contract's names onto these.
 */
export interface StockingPlanRequest {
  latitude?: number | null
  longitude?: number | null
  stand?: StandInput | null
  plantingMethod: string
  speciesMix: readonly { speciesCode: string; share: number }[]
  treesPerAcre?: number | null
  treesPerHectare?: number | null
  confidence?: number | null
  ruleSet?: string | null
  siteClass?: string | null
  targetTreesPerAcre?: number | null
  climate?: ClimateRequest | null
  /** Establishment treatments (docs/treatments.md); absent, null or all `none`: untreated. */
  treatments?: TreatmentsRequest | null
  /** Cost figures replacing the defaults of data/costs.json (docs/costs.md); absent: the defaults. */
  costs?: CostsRequest | null
}

export interface SpeciesOutcome {
  species: Species
  share: number
  plantedTreesPerAcre: number
  survivalProbability: number
  expectedTreesPerAcre: number
  /** false: counts toward the standard only up to the rule's hardwood cap. */
  countsInFull: boolean
}

export interface HorizonOutcome {
  horizonYears: Horizon
  /** The model's own answer for the mix here (the share-weighted mean over the sites evaluated). */
  survivalProbability: number
  expectedTreesPerAcre: number
  /** The central interval at the plan's confidence, trees per acre. */
  lower: number
  upper: number
  bySpecies: SpeciesOutcome[]
}

/** Where the plan was evaluated: a point's matched site. */
export interface PlanPointSite {
  kind: 'point'
  latitude: number
  longitude: number
  siteId: number
  matchedLatitude: number
  matchedLongitude: number
  matchDistanceKm: number
  zone: string
  state: UsState | null
  siteClass: SiteClass
}

/** A stand lists at most this many of its sites; `sitesInside` counts them all. */
export const STAND_SITES_LISTED = 100

/** Where the plan was evaluated: the data sites inside a stand, or the one nearest it. */
export interface PlanStand {
  kind: 'stand'
  areaHa: number
  centroid: { latitude: number; longitude: number }
  sitesInside: number
  /** true: no data site lies inside, so the one nearest the stand's centre stands for it. */
  nearestSiteUsed: boolean
  /** Km from the stand's centre to that site; null when sites lie inside. */
  nearestSiteDistanceKm: number | null
  sites: { siteId: number; latitude: number; longitude: number; zone: string; siteClass: SiteClass }[]
  state: UsState | null
  /** The class most of its sites have (ties: the more demanding standard). */
  siteClass: SiteClass
}

export interface StockingPlan {
  rule: StockingRule & { targetTreesPerAcre: number; customTarget: boolean }
  planted: { treesPerAcre: number; treesPerHectare: number }
  confidence: number
  horizons: HorizonOutcome[]
  meetsStandard: { probability: number; atConfidence: boolean; horizonYears: Horizon }
  /** null values: not even the densest plan considered meets the standard at the confidence. */
  required: { treesPerAcre: number | null; treesPerHectare: number | null; overplantingFactor: number | null }
  location: PlanPointSite | PlanStand
  /** The site data version the plan's sites came from (docs/site-data.md); null before any is active. */
  dataVersion: string | null
  plantingMethod: string
  climate: { period: FuturePeriod; scenario: EmissionScenario; dataVersion: string } | null
  /** The treatments planned with; absent when untreated. */
  treatments?: AppliedTreatments
  /** What the plan costs, per acre and per established tree (docs/costs.md). */
  cost: PlanCost
  /**
   * true when the request gave `costs` (even `{}`): REST then answers the cost block, as it does
   * for a treated plan; an untreated plan without `costs` keeps its answer of before costs.
   */
  costAsked: boolean
  /** For carbon use: half the 90 % interval of survivors at the rule's horizon, as a share of the expected. */
  ninetyPercentHalfWidthShare: number | null
  notes: string[]
  model: ModelInfo
  generatedAt: Date
}
