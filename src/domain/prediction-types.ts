import type {
  Coordinates,
  Horizon,
  HorizonPrediction,
  ModelInfo,
  PlantingMethod,
  Site,
  Species,
} from '../types.ts'
import type { ApiError } from './errors.ts'

/** A prediction asked for, its fields already checked against the input rules (input-rules.ts). */
export interface PredictionRequest extends Coordinates {
  speciesCode: string
  plantingMethod: string
  /** Any of 1, 3, 5 in any order, repeats allowed; absent or null means all three. */
  horizons?: readonly Horizon[] | null
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
}

export interface Prediction {
  site: MatchedSite
  species: Species
  plantingMethod: PlantingMethod
  predictions: HorizonPrediction[]
  model: ModelInfo
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
  model: ModelInfo
  generatedAt: Date
}

/** One batch item's outcome: a prediction, or the error that item alone hit. */
export type BatchItemResult =
  | { index: number; ok: true; prediction: Prediction }
  | { index: number; ok: false; error: ApiError }
