import type { PlantingMethod } from '../../types.ts'
import type { ApiError } from '../errors.ts'
import type { PredictionService } from '../prediction-service.ts'
import type { CheckedSurveyPlot, SurveyPlot } from './survey-plot.ts'
import { survivalAtAge } from './survival-at-age.ts'

/** The field a prediction's refusal of a plot is about. */
const FIELD_OF_CODE: Readonly<Record<string, string>> = {
  invalid_species: 'species_code',
  invalid_method: 'planting_method',
  outside_coverage: 'latitude',
  no_nearby_data: 'latitude',
}

/** The plot field a prediction's refusal names. */
export function fieldOfRefusal(error: ApiError): string {
  return FIELD_OF_CODE[error.code] ?? 'latitude'
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
        predicted: openUnit(survivalAtAge({ 1: at(1), 3: at(3), 5: at(5) }, plot.ageYears)),
        modelVersion: prediction.model.version,
        dataVersion: prediction.site.dataVersion,
        updatedAt,
      },
    })
  }
  return outcomes
}
