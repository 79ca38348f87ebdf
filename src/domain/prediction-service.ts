import { type SurvivalInterval, survivalInterval } from '../stats/survival-interval.ts'
import {
  HORIZONS,
  type Horizon,
  type HorizonPrediction,
  type ModelInfo,
  type PlantingMethod,
  type Site,
  type Species,
  type SurvivalModel,
  type Tier,
} from '../types.ts'
import { assertBatchSize } from './batch-limits.ts'
import { modelInfo, resolvePlantingMethod, resolveSpecies } from './catalogue.ts'
import {
  CLIMATE_FUTURES,
  type ClimateCatalogueView,
  type ClimateFuture,
  type ClimateProjection,
} from './climate.ts'
import { ApiError, invalidField } from './errors.ts'
import { CONFIDENCE_MAX, CONFIDENCE_MIN } from './input-rules.ts'
import type { NearestSiteLookup } from './ports/sites.ts'
import type {
  BatchItemResult,
  Comparison,
  ComparisonRequest,
  HorizonChange,
  MatchedSite,
  Prediction,
  PredictionRequest,
  RankingRequest,
  SpeciesRanking,
} from './prediction-types.ts'
import { assertInCoverage, matchedSite } from './site-matching.ts'
import { SPECIES } from './species.ts'
import { rankSpecies } from './species-ranking.ts'
import { asAppliedBy } from './treatment-shares.ts'
import type { AppliedTreatments } from './treatment-types.ts'
import { TREATMENTS } from './treatments.ts'

/** Requested horizons, de-duplicated and ascending; absent or null means all three. */
function requestedHorizons(horizons: readonly Horizon[] | null | undefined): readonly Horizon[] {
  return horizons ? HORIZONS.filter((h) => horizons.includes(h)) : HORIZONS
}

interface CheckedRequest {
  horizons: readonly Horizon[]
  species: Species
  plantingMethod: PlantingMethod
  /** null: today's climate. */
  climate: ClimateFuture | null
  /** null: untreated (none asked for, or only `none`). */
  treatments: AppliedTreatments | null
}

/**
 * The checks that need no data, in the order the API reports them: species, method, climate, then
 * treatments (which need the method).
 */
function checkRequest(request: PredictionRequest): CheckedRequest {
  const horizons = requestedHorizons(request.horizons)
  const species = resolveSpecies(request.speciesCode)
  const plantingMethod = resolvePlantingMethod(request.plantingMethod)
  const climate = CLIMATE_FUTURES.resolve(request.climate)
  const treatments = TREATMENTS.resolve(request.treatments, plantingMethod)
  return { horizons, species, plantingMethod, climate, treatments }
}

/**
 * The site the model evaluates: the matched site as it is under today's climate, or projected into a
 * future one (and how, for the answer to say).
 */
function underClimate(
  site: MatchedSite,
  climate: ClimateFuture | null,
): { attributes: Site; projection?: ClimateProjection } {
  if (!climate) return { attributes: site.attributes }
  const projected = CLIMATE_FUTURES.project(site.attributes, climate)
  return { attributes: projected.site, projection: projected.projection }
}

/**
 * The prediction rules of the API contract, once, for GraphQL and REST alike. Requests arrive with their fields
 * checked by the input rules; then species and method, then coverage, then the nearest-site lookup.
 */
export class PredictionService {
  readonly model: ModelInfo

  constructor(
    private readonly survivalModel: SurvivalModel,
    private readonly nearestSite: NearestSiteLookup,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.model = modelInfo(survivalModel)
  }

  /**
   * Every method takes the model version to answer with (ModelRegistry.resolve: the one the request
   * pinned, or the default); without one, the service's own.
   */
  async predict(request: PredictionRequest, model = this.survivalModel): Promise<Prediction> {
    const checked = checkRequest(request)
    assertInCoverage(request)
    const site = matchedSite(request, await this.nearestSite.one(request))
    return this.prediction(site, checked, this.now(), model)
  }

  async compare(request: ComparisonRequest, model = this.survivalModel): Promise<Comparison> {
    const horizons = requestedHorizons(request.horizons)
    const species = resolveSpecies(request.speciesCode)
    const climate = CLIMATE_FUTURES.resolve(request.climate)
    const manualTreatments = TREATMENTS.resolve(request.treatments, 'manual')
    const droneTreatments = TREATMENTS.resolve(request.treatments, 'drone_seeded', true)
    assertInCoverage(request)
    const site = matchedSite(request, await this.nearestSite.one(request))
    const { attributes, projection } = underClimate(site, climate)
    const manual = model.predict(attributes, species, 'manual', horizons, manualTreatments?.modelEffects)
    const droneSeeded = model.predict(
      attributes,
      species,
      'drone_seeded',
      horizons,
      droneTreatments?.modelEffects,
    )
    return {
      ...(projection ? { climate: projection } : {}),
      ...(manualTreatments && droneTreatments
        ? {
            treatments: {
              manual: asAppliedBy(model, manualTreatments),
              droneSeeded: asAppliedBy(model, droneTreatments),
            },
          }
        : {}),
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
      model: modelInfo(model),
      generatedAt: this.now(),
    }
  }

  /**
   * Which species survives best at a point: the checks of `predict` (method, coverage, nearest site
   * within the radius), one nearest-site lookup, then every species of the catalogue evaluated there.
   */
  async rank(request: RankingRequest, model = this.survivalModel): Promise<SpeciesRanking> {
    const plantingMethod = resolvePlantingMethod(request.plantingMethod)
    const climate = CLIMATE_FUTURES.resolve(request.climate)
    const treatments = TREATMENTS.resolve(request.treatments, plantingMethod)
    assertInCoverage(request)
    const site = matchedSite(request, await this.nearestSite.one(request))
    const { attributes, projection } = underClimate(site, climate)
    return {
      ...(projection ? { climate: projection } : {}),
      ...(treatments ? { treatments: asAppliedBy(model, treatments) } : {}),
      site,
      plantingMethod,
      horizonYears: request.horizon,
      ranking: rankSpecies(
        model,
        attributes,
        plantingMethod,
        request.horizon,
        SPECIES,
        treatments?.modelEffects,
      ),
      model: modelInfo(model),
      generatedAt: this.now(),
    }
  }

  /**
   * Checks the tier's batch size, then every item with the same checks, in the same order, as
   * `predict`; one item's error does not fail the rest. All located items share one lookup. The
   * results come lazily, in request order, so a caller that writes each one out as it comes never
   * holds a whole batch of predictions at once.
   */
  async batch(
    requests: readonly PredictionRequest[],
    tier: Tier,
    model = this.survivalModel,
  ): Promise<Iterable<BatchItemResult>> {
    if (requests.length === 0) throw new RangeError('a batch holds at least one site (input rules)')
    assertBatchSize(requests.length, tier)
    return this.scoreRows(requests, model)
  }

  /**
   * A batch without the tier's size check: a job's chunk, whose cost was charged when the job was
   * accepted. Empty in, empty out.
   */
  async scoreRows(
    requests: readonly PredictionRequest[],
    model = this.survivalModel,
  ): Promise<Iterable<BatchItemResult>> {
    const checked = requests.map((request): CheckedRequest | ApiError => {
      try {
        const item = checkRequest(request)
        assertInCoverage(request)
        return item
      } catch (error) {
        if (error instanceof ApiError) return error
        throw error
      }
    })
    const located = requests.filter((_, index) => !(checked[index] instanceof ApiError))
    const nearest = located.length > 0 ? await this.nearestSite.many(located) : []
    return this.batchResults(requests, checked, nearest, this.now(), model)
  }

  private *batchResults(
    requests: readonly PredictionRequest[],
    checked: readonly (CheckedRequest | ApiError)[],
    nearest: Awaited<ReturnType<NearestSiteLookup['many']>>,
    generatedAt: Date,
    model: SurvivalModel,
  ): Generator<BatchItemResult> {
    let next = 0
    for (let index = 0; index < requests.length; index++) {
      const item = checked[index] as CheckedRequest | ApiError
      if (item instanceof ApiError) {
        yield { index, ok: false, error: item }
        continue
      }
      try {
        const site = matchedSite(requests[index] as PredictionRequest, nearest[next++] ?? null)
        yield { index, ok: true, prediction: this.prediction(site, item, generatedAt, model) }
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        yield { index, ok: false, error }
      }
    }
  }

  /**
   * The central interval of survival around one horizon's prediction at `level` (0.5–0.99), from the
   * uncertainty terms of the model version that made it; the prediction's probability is its median.
   */
  survivalInterval(prediction: HorizonPrediction, level: number): SurvivalInterval {
    if (!(level >= CONFIDENCE_MIN && level <= CONFIDENCE_MAX))
      throw invalidField('level', `must be from ${CONFIDENCE_MIN} to ${CONFIDENCE_MAX}`)
    return survivalInterval(prediction.logOdds, prediction.uncertainty, level)
  }

  /** The climates a prediction can be made for (GET /v1/climate, GraphQL climateScenarios). */
  climates(): ClimateCatalogueView {
    return CLIMATE_FUTURES.describe()
  }

  /**
   * A prediction made under a future climate against the same one under today's, per horizon and per
   * factor; null for a prediction of today's climate.
   */
  changeFromToday(prediction: Prediction): HorizonChange[] | null {
    if (!prediction.climate) return null
    const horizons = prediction.predictions.map((p) => p.horizonYears)
    const { site, species, plantingMethod } = prediction
    const today = prediction.madeWith.predict(
      site.attributes,
      species,
      plantingMethod,
      horizons,
      prediction.treatments?.modelEffects,
    )
    return prediction.predictions.map((future, i) => {
      const before = today[i] as HorizonPrediction
      const todayByKey = new Map(before.contributions.map((c) => [c.key, c.contribution]))
      const factors = future.contributions
        .map((c) => {
          const todayContribution = todayByKey.get(c.key) ?? 0
          return {
            key: c.key,
            factor: c.factor,
            contribution: c.contribution,
            todayContribution,
            change: c.contribution - todayContribution,
          }
        })
        .sort(
          (a, b) => Math.abs(b.change) - Math.abs(a.change) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
        )
      return {
        horizonYears: future.horizonYears,
        survivalProbability: future.survivalProbability,
        todaySurvivalProbability: before.survivalProbability,
        change: future.survivalProbability - before.survivalProbability,
        factors,
      }
    })
  }

  private prediction(
    site: MatchedSite,
    checked: CheckedRequest,
    generatedAt: Date,
    model: SurvivalModel,
  ): Prediction {
    const { horizons, species, plantingMethod, climate, treatments } = checked
    if (treatments) return this.treatedPrediction(site, checked, treatments, generatedAt, model)
    if (!climate) {
      return {
        site,
        species,
        plantingMethod,
        predictions: model.predict(site.attributes, species, plantingMethod, horizons),
        model: modelInfo(model),
        madeWith: model,
        generatedAt,
      }
    }
    const { attributes, projection } = underClimate(site, climate)
    return {
      site,
      species,
      plantingMethod,
      predictions: model.predict(attributes, species, plantingMethod, horizons),
      climate: projection,
      model: modelInfo(model),
      madeWith: model,
      generatedAt,
    }
  }

  /** A prediction with treatments: the model applies them to the site (projected, under a future climate). */
  private treatedPrediction(
    site: MatchedSite,
    checked: CheckedRequest,
    treatments: AppliedTreatments,
    generatedAt: Date,
    model: SurvivalModel,
  ): Prediction {
    const { horizons, species, plantingMethod, climate } = checked
    const { attributes, projection } = underClimate(site, climate)
    return {
      site,
      species,
      plantingMethod,
      predictions: model.predict(attributes, species, plantingMethod, horizons, treatments.modelEffects),
      ...(projection ? { climate: projection } : {}),
      treatments: asAppliedBy(model, treatments),
      model: modelInfo(model),
      madeWith: model,
      generatedAt,
    }
  }
}
