import type { HorizonPrediction, PlantingMethod } from '../../types.ts'
import type { ApiError } from '../errors.ts'
import type { PredictionService } from '../prediction-service.ts'
import type { Prediction } from '../prediction-types.ts'
import { fieldsOfTreatments } from '../treatment-fields.ts'
import type { CheckedSurveyPlot, SurveyPlot } from './survey-plot.ts'
import { type HorizonSurvival, logitSlopeAtAge, survivalAtAge } from './survival-at-age.ts'

/** The field a prediction's refusal of a plot is about. */
const FIELD_OF_CODE: Readonly<Record<string, string>> = {
  invalid_species: 'species_code',
  invalid_method: 'planting_method',
  outside_coverage: 'latitude',
  no_nearby_data: 'latitude',
}

/** The plot field a prediction's refusal names. */
export function fieldOfRefusal(error: ApiError): string {
  if (error.code === 'invalid_treatment') {
    const treatment = (error.details as { treatment?: unknown } | undefined)?.treatment
    return typeof treatment === 'string' ? `treatments.${treatment}` : 'treatments'
  }
  return FIELD_OF_CODE[error.code] ?? 'latitude'
}

/** Each applied effect's ∂logit/∂r at the plot's age, by effect id; null when no effect applied. */
function treatmentSlopes(
  prediction: Prediction,
  survival: HorizonSurvival,
  ageYears: number,
): Record<string, number> | null {
  const applied = prediction.treatments
  if (!applied) return null
  const slopes: Record<string, number> = {}
  const slopeAt = (h: 1 | 3 | 5, k: number) =>
    (prediction.predictions.find((p) => p.horizonYears === h) as HorizonPrediction | undefined)?.treatment
      ?.effectSlopes[k] ?? 0
  applied.effects.forEach((effect, k) => {
    slopes[effect.effectId] = logitSlopeAtAge(
      survival,
      { 1: slopeAt(1, k), 3: slopeAt(3, k), 5: slopeAt(5, k) },
      ageYears,
    )
  })
  return slopes
}

/** A probability the store can keep: the model never reaches 0 or 1, but rounding could. */
function openUnit(p: number): number {
  return Math.min(1 - 1e-12, Math.max(1e-12, p))
}

/** Each plot as kept, or the error the prediction refused it with; `index` is its place in `checked`. */
export type PlotPrediction =
  | { index: number; ok: true; plot: SurveyPlot }
  | { index: number; ok: false; error: ApiError }

/**
 * Matches each plot to its data site as a prediction is, and keeps the model's survival at the plot's
 * age (./survival-at-age.ts) with the version that made it. One batch of predictions for all of them.
 */
export async function predictSurveyPlots(
  predictions: PredictionService,
  checked: readonly CheckedSurveyPlot[],
  updatedAt: Date,
): Promise<PlotPrediction[]> {
  const results = await predictions.scoreRows(
    checked.map((plot) => ({
      latitude: plot.latitude,
      longitude: plot.longitude,
      speciesCode: plot.speciesCode,
      plantingMethod: plot.plantingMethod,
      horizons: [1, 3, 5],
      climate: null,
      treatments: plot.treatments ?? null,
    })),
  )
  const outcomes: PlotPrediction[] = []
  for (const result of results) {
    if (!result.ok) {
      outcomes.push(result)
      continue
    }
    const plot = checked[result.index] as CheckedSurveyPlot
    const { prediction } = result
    const at = (h: 1 | 3 | 5) =>
      prediction.predictions.find((p) => p.horizonYears === h)?.survivalProbability ?? Number.NaN
    const survival = { 1: at(1), 3: at(3), 5: at(5) }
    const named = fieldsOfTreatments(plot.treatments)
    outcomes.push({
      index: result.index,
      ok: true,
      plot: {
        plotId: plot.plotId,
        surveyedOn: plot.surveyedOn,
        plantedOn: plot.plantedOn,
        latitude: plot.latitude,
        longitude: plot.longitude,
        speciesCode: prediction.species.code,
        plantingMethod: prediction.plantingMethod as PlantingMethod,
        planted: plot.planted,
        alive: plot.alive,
        plotAreaM2: plot.plotAreaM2 ?? null,
        protocol: plot.protocol ?? null,
        siteId: prediction.site.attributes.id,
        matchedLatitude: prediction.site.matchedLatitude,
        matchedLongitude: prediction.site.matchedLongitude,
        matchDistanceKm: prediction.site.matchDistanceKm,
        ageYears: plot.ageYears,
        predicted: openUnit(survivalAtAge(survival, plot.ageYears)),
        modelVersion: prediction.model.version,
        dataVersion: prediction.site.dataVersion,
        treatments: Object.keys(named).length > 0 ? named : null,
        treatmentSlopes: treatmentSlopes(prediction, survival, plot.ageYears),
        updatedAt,
      },
    })
  }
  return outcomes
}
