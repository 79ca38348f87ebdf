import { z } from 'zod'
import { catalogueCode, inputError, latitude, longitude } from '../input-rules.ts'
import { treatmentsObject, treatmentsOfFields } from '../treatment-fields.ts'
import {
  plantedOn,
  plotAreaM2,
  plotId,
  protocol,
  surveyedOn,
  treesAlive,
  treesPlanted,
} from './survey-input-rules.ts'
import { invalidPlot, type SurveyPlotInput } from './survey-plot.ts'

/** One plot under the API contract's names: the shape every adapter reads a plot as. Strict. */
const SurveyPlotFields = z.strictObject({
  plot_id: plotId,
  latitude,
  longitude,
  species_code: catalogueCode,
  planting_method: catalogueCode,
  planted_on: plantedOn,
  surveyed_on: surveyedOn,
  planted: treesPlanted,
  alive: treesAlive,
  plot_area_m2: plotAreaM2.nullish(),
  protocol: protocol.nullish(),
  treatments: treatmentsObject.nullish(),
})

/** The plot at `index`, or invalid_request naming its index and the field under its contract name. */
export function readSurveyPlot(raw: unknown, index: number): SurveyPlotInput {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalidPlot(index, '(plot)', 'must be a JSON object')
  const parsed = SurveyPlotFields.safeParse(raw, { reportInput: true })
  if (!parsed.success) {
    const { details } = inputError(parsed.error, `plots[${index}]`)
    const { field, reason } = details as { field: string; reason: string }
    throw invalidPlot(index, field, reason)
  }
  const plot = parsed.data
  return {
    plotId: plot.plot_id,
    latitude: plot.latitude,
    longitude: plot.longitude,
    speciesCode: plot.species_code,
    plantingMethod: plot.planting_method,
    plantedOn: plot.planted_on,
    surveyedOn: plot.surveyed_on,
    planted: plot.planted,
    alive: plot.alive,
    plotAreaM2: plot.plot_area_m2 ?? null,
    protocol: plot.protocol ?? null,
    treatments: treatmentsOfFields(plot.treatments) ?? null,
  }
}
