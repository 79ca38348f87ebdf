import type {
  CalibrationShift,
  Coordinates,
  FactorContribution,
  Horizon,
  HorizonPrediction,
  ModelInfo,
  PlantingMethod,
  Site,
  Species,
  SurvivalModel,
} from '../types.ts'
import type { ClimateFuture, ClimateProjection, ClimateRequest } from './climate.ts'
import type { ApiError } from './errors.ts'
import type { AppliedTreatments } from './treatment-types.ts'
import type { TreatmentsRequest } from './treatment-values.ts'

/** A prediction asked for, its fields already checked against the input rules (input-rules.ts). */
export interface PredictionRequest extends Coordinates {
  speciesCode: string
  plantingMethod: string
  /** Any of 1, 3, 5 in any order, repeats allowed; absent or null means all three. */
  horizons?: readonly Horizon[] | null
  /** A future climate to predict for; absent, null or the baseline period alone: today's. */
  climate?: ClimateRequest | null
  /** Establishment treatments (docs/treatments.md); absent, null, empty or all `none`: untreated. */
  treatments?: TreatmentsRequest | null
}

export type ComparisonRequest = Omit<PredictionRequest, 'plantingMethod'>

/** The requested point and the data point that answered it. */
export interface MatchedSite {
  latitude: number
  longitude: number
  matchedLatitude: number
  matchedLongitude: number
  matchDistanceKm: number
  region: string
  attributes: Site
  /** The site data version the matched site came from (docs/site-data.md); null before any is active. */
  dataVersion: string | null
}

export interface Prediction {
  site: MatchedSite
  species: Species
  plantingMethod: PlantingMethod
  predictions: HorizonPrediction[]
  /** Under a future climate: what it did to the site; absent for today's climate. */
  climate?: ClimateProjection
  /** The treatments applied; absent for an untreated prediction. */
  treatments?: AppliedTreatments
  model: ModelInfo
  /** The model version that made it (for what is derived from it, e.g. the change from today). */
  madeWith: SurvivalModel
  generatedAt: Date
}

export interface HorizonDifferential {
  horizonYears: Horizon
  manual: number
  droneSeeded: number
  /** manual − drone_seeded survival probability: positive when hand planting survives better. */
  difference: number
}

export interface Comparison {
  site: MatchedSite
  species: Species
  manual: HorizonPrediction[]
  droneSeeded: HorizonPrediction[]
  methodDifferential: HorizonDifferential[]
  /** Under a future climate: what it did to the site; absent for today's climate. */
  climate?: ClimateProjection
  /** The treatments applied to each method; absent when untreated. */
  treatments?: { manual: AppliedTreatments; droneSeeded: AppliedTreatments }
  model: ModelInfo
  generatedAt: Date
}

/** One factor of a prediction under a future climate, against the same factor under today's. */
export interface FactorChange {
  key: string
  factor: string
  /** Log-odds contribution under the future climate. */
  contribution: number
  todayContribution: number
  /** contribution − todayContribution: negative when the future costs survival through this factor. */
  change: number
}

/** One horizon of a prediction under a future climate, against today's climate at the same site. */
export interface HorizonChange {
  horizonYears: Horizon
  survivalProbability: number
  todaySurvivalProbability: number
  /** survivalProbability − todaySurvivalProbability. */
  change: number
  /** Every factor, by |change| descending, ties by key. */
  factors: FactorChange[]
}

/** One batch item's outcome: a prediction, or the error that item alone hit. */
export type BatchItemResult =
  | { index: number; ok: true; prediction: Prediction }
  | { index: number; ok: false; error: ApiError }

/** "Which species survives best here?": one point, one method, one horizon, every species. */
export interface RankingRequest extends Coordinates {
  plantingMethod: string
  horizon: Horizon
  /** A future climate to rank for; absent, null or the baseline period alone: today's. */
  climate?: ClimateRequest | null
  /** Treatments applied to every species; absent, null or all `none`: untreated. */
  treatments?: TreatmentsRequest | null
}

export interface RankedSpecies {
  /** 1 = best survival. */
  rank: number
  species: Species
  survivalProbability: number
  /** The matched site's zone is one of the species' range zones (the model's native_range rule). */
  nativeRange: boolean
  /** The factor with the largest effect on this prediction (largest magnitude; ties by factor key). */
  topFactor: FactorContribution
  /** A calibrated version's shift for this species; absent for a base version. */
  calibration?: CalibrationShift
  /** With treatments: its survival without them; absent when untreated. */
  untreatedSurvivalProbability?: number
}

export interface SpeciesRanking {
  site: MatchedSite
  plantingMethod: PlantingMethod
  horizonYears: Horizon
  /** Every species, by survival probability descending, ties by species code. */
  ranking: RankedSpecies[]
  /** Under a future climate: what it did to the site; absent for today's climate. */
  climate?: ClimateProjection
  /** The treatments applied to every species; absent when untreated. */
  treatments?: AppliedTreatments
  model: ModelInfo
  generatedAt: Date
}

/** "Where does this species survive best?": every site, aggregated into hexagonal cells. */
export interface SurvivalMapRequest {
  speciesCode: string
  plantingMethod: string
  horizon: Horizon
  /** Wanted cell size, km (input rules: 10 to 200). */
  cellKm: number
  /** A future climate to map; absent, null or the baseline period alone: today's. */
  climate?: ClimateRequest | null
  /** Establishment treatments at every site; absent, null or all `none`: untreated. */
  treatments?: TreatmentsRequest | null
}

export interface SurvivalCell {
  /** H3 index of the cell. */
  h3Index: string
  /** Cell centre, decimal degrees. */
  latitude: number
  longitude: number
  /** Closed GeoJSON ring of [longitude, latitude] pairs (first pair repeated last). */
  boundary: [number, number][]
  meanSurvival: number
  minSurvival: number
  maxSurvival: number
  /** Sites in the cell (at least 1). */
  sites: number
  /** Under a future climate (cellsWithChange): mean survival of the cell minus its mean today; else null. */
  changeFromToday: number | null
}

export interface SurvivalMap {
  /** The future climate mapped, with the climate data's version; absent for today's. */
  climate?: ClimateFuture & { dataVersion: string }
  /**
   * Under a future climate: the same cells with `changeFromToday` filled in (today's map is worked
   * out for it, so it is computed only when asked for); `cells` then carry null there.
   */
  cellsWithChange?: () => Promise<readonly SurvivalCell[]>
  /** The treatments applied at every site; absent when untreated. */
  treatments?: AppliedTreatments
  species: Species
  plantingMethod: PlantingMethod
  horizonYears: Horizon
  cellKm: number
  h3Resolution: number
  /** Sites evaluated: every site of the data set. */
  siteCount: number
  /** The site data version mapped (null before any is active). */
  siteDataVersion: string | null
  /** Cells holding at least one site, by H3 index. */
  cells: readonly SurvivalCell[]
  model: ModelInfo
  generatedAt: Date
}
export type { SurvivalInterval } from '../stats/survival-interval.ts'
