import type { NearestSite } from '../db/sites.ts'
import { COVERAGE_REGION, isInCoverage } from '../geo/coverage.ts'
import {
  HORIZONS,
  type Horizon,
  type HorizonPrediction,
  type PlantingMethod,
  type SurvivalModel,
} from '../model/index.ts'
import { resolvePlantingMethod, resolveSpecies } from './catalog.ts'
import { ApiError } from './errors.ts'
import { type ModelInfo, modelInfo } from './health.ts'
import type { Site } from './site.ts'
import type { Species } from './species.ts'
import type { Tier } from './tiers.ts'

export interface Coordinates {
  latitude: number
  longitude: number
}

export interface PredictionRequest extends Coordinates {
  speciesCode: string
  plantingMethod: string
  horizons?: readonly number[] | null
}

export type ComparisonRequest = Omit<PredictionRequest, 'plantingMethod'>

/** The nearest site within the search radius (null when none), for one point or for many at once. */
export interface NearestSiteLookup {
  one(point: Coordinates): Promise<NearestSite | null>
  /** Answers in the order of `points`. */
  many(points: readonly Coordinates[]): Promise<(NearestSite | null)[]>
}

const OUTSIDE_COVERAGE_MESSAGE = 'The coordinates lie outside the coverage region (Oregon and Washington)'
const NO_NEARBY_DATA_MESSAGE =
  'No forest data point lies within the search radius of these coordinates (urban, agricultural or water areas have none)'

function assertInCoverage(point: Coordinates): void {
  if (!isInCoverage(point.latitude, point.longitude)) {
    throw new ApiError('outside_coverage', OUTSIDE_COVERAGE_MESSAGE, {
      suggestion: 'GET /v1/coverage returns the covered area as GeoJSON',
    })
  }
}

function matchedSite(point: Coordinates, nearest: NearestSite | null): MatchedSite {
  if (!nearest) throw new ApiError('no_nearby_data', NO_NEARBY_DATA_MESSAGE)
  return {
    latitude: point.latitude,
    longitude: point.longitude,
    matchedLatitude: nearest.site.latitude,
    matchedLongitude: nearest.site.longitude,
    matchDistanceKm: nearest.distanceKm,
    region: COVERAGE_REGION,
    attributes: nearest.site,
  }
}

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

export type BatchItemResult = { ok: true; prediction: Prediction } | { ok: false; error: ApiError }

function invalidField(field: string, message: string): ApiError {
  return new ApiError('invalid_request', message, { field })
}

export function validateCoordinates({ latitude, longitude }: Coordinates): void {
  if (!Number.isFinite(latitude) || latitude < -90 || latitude > 90) {
    throw invalidField('latitude', 'latitude must be a number from -90 to 90')
  }
  if (!Number.isFinite(longitude) || longitude < -180 || longitude > 180) {
    throw invalidField('longitude', 'longitude must be a number from -180 to 180')
  }
}

/** Requested horizons, de-duplicated and ascending; absent or null means all three. */
export function normalizeHorizons(horizons: readonly number[] | null | undefined): Horizon[] {
  if (horizons === undefined || horizons === null) return [...HORIZONS]
  if (horizons.length === 0) throw invalidField('horizons', 'horizons must hold at least one of 1, 3, 5')
  const invalid = horizons.filter((h) => !(HORIZONS as readonly number[]).includes(h))
  if (invalid.length > 0) {
    throw invalidField('horizons', `horizons may only contain 1, 3 and 5 (got ${invalid.join(', ')})`)
  }
  return HORIZONS.filter((h) => horizons.includes(h))
}

/** The checks that need no data, in the order the API reports them: fields, species, method. */
export function checkPredictionRequest(request: PredictionRequest): {
  horizons: Horizon[]
  species: Species
  plantingMethod: PlantingMethod
} {
  validateCoordinates(request)
  return {
    horizons: normalizeHorizons(request.horizons),
    species: resolveSpecies(request.speciesCode),
    plantingMethod: resolvePlantingMethod(request.plantingMethod),
  }
}

/**
 * The prediction rules of the spec, once, for GraphQL and REST alike. Checks run cheapest first:
 * field values, then species and method, then coverage, then the nearest-site lookup.
 */
export class PredictionService {
  constructor(
    private readonly model: SurvivalModel,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get modelInfo(): ModelInfo {
    return modelInfo(this.model)
  }

  get factors(): SurvivalModel['factors'] {
    return this.model.factors
  }

  /** Coverage, then the nearest site; coordinates are validated by the callers first. */
  private async locate(point: Coordinates, lookup: NearestSiteLookup): Promise<MatchedSite> {
    assertInCoverage(point)
    return matchedSite(point, await lookup.one(point))
  }

  private prediction(
    site: MatchedSite,
    checked: ReturnType<typeof checkPredictionRequest>,
    model: ModelInfo,
    generatedAt: Date,
  ): Prediction {
    const { horizons, species, plantingMethod } = checked
    return {
      site,
      species,
      plantingMethod,
      predictions: this.model.predict(site.attributes, species, plantingMethod, horizons),
      model,
      generatedAt,
    }
  }

  async predict(request: PredictionRequest, lookup: NearestSiteLookup): Promise<Prediction> {
    const checked = checkPredictionRequest(request)
    const site = await this.locate(request, lookup)
    return this.prediction(site, checked, this.modelInfo, this.now())
  }

  async compare(request: ComparisonRequest, lookup: NearestSiteLookup): Promise<Comparison> {
    validateCoordinates(request)
    const horizons = normalizeHorizons(request.horizons)
    const species = resolveSpecies(request.speciesCode)
    const site = await this.locate(request, lookup)
    const manual = this.model.predict(site.attributes, species, 'manual', horizons)
    const droneSeeded = this.model.predict(site.attributes, species, 'drone_seeded', horizons)
    return {
      site,
      species,
      manual,
      droneSeeded,
      methodDifferential: manual.map((m, index) => {
        const drone = (droneSeeded[index] as HorizonPrediction).survivalProbability
        return {
          horizonYears: m.horizonYears,
          manual: m.survivalProbability,
          droneSeeded: drone,
          difference: m.survivalProbability - drone,
        }
      }),
      model: this.modelInfo,
      generatedAt: this.now(),
    }
  }

  /**
   * Checks the tier's batch size, then predicts every item with the same checks, in the same order, as
   * `predict`; one item's error does not fail the rest. All located items share one lookup.
   */
  batch(
    requests: readonly PredictionRequest[],
    tier: Tier,
    lookup: NearestSiteLookup,
  ): Promise<BatchItemResult[]> {
    return this.batchEach(requests, tier, lookup, (result) => result)
  }

  /**
   * `batch`, handing each item's result to `present` as soon as it is computed, so a caller that
   * serialises items one by one never holds 500 predictions' worth of objects at once.
   */
  async batchEach<T>(
    requests: readonly PredictionRequest[],
    tier: Tier,
    lookup: NearestSiteLookup,
    present: (result: BatchItemResult, index: number) => T,
  ): Promise<T[]> {
    if (requests.length === 0) throw invalidField('sites', 'a batch must hold at least one site')
    assertBatchSize(requests.length, tier)
    const checked = requests.map((request) => {
      try {
        const item = checkPredictionRequest(request)
        assertInCoverage(request)
        return item
      } catch (error) {
        if (error instanceof ApiError) return error
        throw error
      }
    })
    const located = requests.filter((_, index) => !(checked[index] instanceof ApiError))
    const nearest = located.length > 0 ? await lookup.many(located) : []
    const model = this.modelInfo
    const generatedAt = this.now()
    let next = 0
    return requests.map((request, index) => {
      const item = checked[index] as ApiError | ReturnType<typeof checkPredictionRequest>
      if (item instanceof ApiError) return present({ ok: false, error: item }, index)
      let result: BatchItemResult
      try {
        const site = matchedSite(request, nearest[next++] ?? null)
        result = { ok: true, prediction: this.prediction(site, item, model, generatedAt) }
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        result = { ok: false, error }
      }
      return present(result, index)
    })
  }
}

export function assertBatchSize(submitted: number, tier: Tier): void {
  if (submitted > tier.batchSizeLimit) {
    throw new ApiError(
      'batch_too_large',
      `This batch has ${submitted} sites; the ${tier.name} tier allows up to ${tier.batchSizeLimit} per call`,
      { submitted, tier_limit: tier.batchSizeLimit, tier: tier.name },
    )
  }
}
