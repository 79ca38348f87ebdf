import type { SurveyPlotInput } from '../../domain/surveys/survey-plot.ts'
import { readSurveyPlot } from '../../domain/surveys/survey-plot-reader.ts'
import { builder } from './builder.ts'
import { plotTreatmentsFields } from './survey-treatments.ts'
import { TreatmentsInput } from './treatments.ts'

/* One surveyed plot as storeSurveys takes it, read by the rule REST's POST /v1/surveys reads it by. */

/** The API contract's (snake_case) name of each plot field: a plot is read, and its errors named, as REST's. */
const CONTRACT_NAME: Readonly<Record<keyof SurveyPlotInput, string>> = {
  plotId: 'plot_id',
  latitude: 'latitude',
  longitude: 'longitude',
  speciesCode: 'species_code',
  plantingMethod: 'planting_method',
  plantedOn: 'planted_on',
  surveyedOn: 'surveyed_on',
  planted: 'planted',
  alive: 'alive',
  plotAreaM2: 'plot_area_m2',
  protocol: 'protocol',
  treatments: 'treatments',
}

/** A plot under the contract's names, read by the one rule both adapters use (readSurveyPlot). */
export function checkedPlot(plot: SurveyPlotInput, index: number): SurveyPlotInput {
  const named = Object.fromEntries(
    Object.entries(plot).map(([name, value]) => [
      CONTRACT_NAME[name as keyof SurveyPlotInput] ?? name,
      name === 'treatments' ? plotTreatmentsFields(plot.treatments) : value,
    ]),
  )
  return readSurveyPlot(named, index)
}

export const SurveyPlotInputRef = builder.inputType('SurveyPlotInput', {
  description:
    'One plot on one survey date, as POST /v1/surveys takes it. A plot is (account, plotId, surveyedOn): sending it again replaces it',
  fields: (t) => ({
    plotId: t.string({
      required: true,
      description:
        'Your id of the plot, 1–64 characters, no control characters; "report", "uploads", "." and ".." are refused',
    }),
    latitude: t.float({ required: true, description: 'Latitude of the plot, decimal degrees (WGS84)' }),
    longitude: t.float({ required: true, description: 'Longitude of the plot, decimal degrees (WGS84)' }),
    speciesCode: t.string({ required: true, description: 'Four-letter species code, e.g. PSME' }),
    plantingMethod: t.string({
      required: true,
      description:
        'manual or drone_seeded (a string, so that an unknown method is invalid_method naming its plot)',
    }),
    plantedOn: t.string({
      required: true,
      description: 'When it was planted: YYYY-MM-DD, or a bare year YYYY (taken as 1 March)',
    }),
    surveyedOn: t.string({
      required: true,
      description: 'When it was surveyed: YYYY-MM-DD, not in the future, 0.25 to 10 years after plantedOn',
    }),
    planted: t.int({
      required: true,
      description: 'Trees planted (for drone_seeded, seed pods dropped), 1 to 10,000',
    }),
    alive: t.int({ required: true, description: 'Trees (or pods with a live tree) alive, 0 to planted' }),
    plotAreaM2: t.float({ required: false, description: 'The plot’s area, m², above 0' }),
    protocol: t.string({
      required: false,
      description: 'The survey protocol, 1–64 characters, e.g. or_fpa_stocking or vm0047',
    }),
    treatments: t.field({
      type: TreatmentsInput,
      required: false,
      description:
        'The establishment treatments the plot had, as a prediction takes them; its prediction is then the treated one, and a calibration can learn the effects from such plots (docs/treatments.md)',
    }),
  }),
})
