import { z } from 'zod'
import { catalogueCode } from '../../domain/input-rules.ts'
import type { SurveyFilter } from '../../domain/ports/surveys.ts'
import { bbox, surveyDateBound } from '../../domain/surveys/survey-input-rules.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum } from './catalogue.ts'

/* Which of an account's plots a list, a report or a calibration covers: the input and as kept. */

export interface FilterArg {
  speciesCode?: string | null
  plantingMethod?: 'manual' | 'drone_seeded' | null
  /** Four numbers once the zod plugin has checked them (bboxList). */
  bbox?: readonly number[] | null
  surveyedFrom?: string | null
  surveyedTo?: string | null
}

export function filterOf(filter: FilterArg | null | undefined): SurveyFilter {
  return {
    speciesCode: filter?.speciesCode ?? undefined,
    plantingMethod: filter?.plantingMethod ?? undefined,
    bbox: (filter?.bbox ?? undefined) as SurveyFilter['bbox'],
    surveyedFrom: filter?.surveyedFrom ?? undefined,
    surveyedTo: filter?.surveyedTo ?? undefined,
  }
}

/** [west, south, east, north] as four numbers, under the rule of REST's `bbox=w,s,e,n`. */
const bboxList = z
  .array(z.number({ error: 'must be a number' }), { error: 'must be [west, south, east, north]' })
  .length(4, 'must be [west, south, east, north] in degrees')
  .transform((corners) => corners.join(','))
  .pipe(bbox)
  .transform((corners) => [...corners])

export const SurveyFilterInput = builder.inputType('SurveyFilterInput', {
  description: 'Which of the account’s plots a list or report covers; every field given narrows it',
  fields: (t) => ({
    speciesCode: t.string({
      required: false,
      description: 'Only this species, e.g. PSME',
      validate: { schema: catalogueCode },
    }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      required: false,
      description: 'Only this planting method',
    }),
    bbox: t.floatList({
      required: false,
      description:
        'Only plots inside [west, south, east, north], degrees (west ≤ east, south ≤ north), as REST’s bbox',
      validate: { schema: bboxList },
    }),
    surveyedFrom: t.string({
      required: false,
      description: 'Only surveys on or after this date, YYYY-MM-DD',
      validate: { schema: surveyDateBound },
    }),
    surveyedTo: t.string({
      required: false,
      description: 'Only surveys on or before this date, YYYY-MM-DD',
      validate: { schema: surveyDateBound },
    }),
  }),
})

/** A filter as a calibration kept it: the fields given, null for those not. */
export const SurveyFilterRef = builder.objectRef<SurveyFilter>('SurveyFilter').implement({
  description: 'Which of the account’s plots something covers; a null field did not narrow it',
  fields: (t) => ({
    speciesCode: t.string({
      nullable: true,
      description: 'Only this species',
      resolve: (f) => f.speciesCode ?? null,
    }),
    plantingMethod: t.string({
      nullable: true,
      description: 'Only this planting method',
      resolve: (f) => f.plantingMethod ?? null,
    }),
    bbox: t.floatList({
      nullable: true,
      description: 'Only plots inside [west, south, east, north]',
      resolve: (f) => (f.bbox ? [...f.bbox] : null),
    }),
    surveyedFrom: t.string({
      nullable: true,
      description: 'Only surveys on or after this date',
      resolve: (f) => f.surveyedFrom ?? null,
    }),
    surveyedTo: t.string({
      nullable: true,
      description: 'Only surveys on or before this date',
      resolve: (f) => f.surveyedTo ?? null,
    }),
  }),
})
