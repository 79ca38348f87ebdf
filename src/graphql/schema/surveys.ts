import { z } from 'zod'
import { invalidField } from '../../domain/errors.ts'
import { surveyCursorText } from '../../domain/surveys/survey-input-rules.ts'
import {
  SURVEY_PLOTS_PER_CALL,
  type SurveyPlot,
  type SurveyPlotInput,
} from '../../domain/surveys/survey-plot.ts'
import { SURVEY_PAGE_DEFAULT, SURVEY_PAGE_MAX } from '../../domain/surveys/survey-service.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum } from './catalogue.ts'
import { modelVersionRule } from './models.ts'
import { linkable } from './report-links.ts'
import { callerOf, writerOf } from './survey-callers.ts'
import { type FilterArg, filterOf, SurveyFilterInput } from './survey-filter.ts'
import { checkedPlot, SurveyPlotInputRef } from './survey-plot-input.ts'
import { SurveyReportRef } from './survey-report-types.ts'
import { PlotTreatmentsRef } from './survey-treatments.ts'

/*
 * Field surveys: the GraphQL face of /v1/surveys (docs/surveys.md), over the same SurveyService. Every
 * field acts on the calling key's account only, and each operation counts one request.
 */

const SurveySiteRef = builder.objectRef<SurveyPlot>('SurveySite').implement({
  description: 'The data site a plot was matched to when it was stored, as a prediction matches one',
  fields: (t) => ({
    siteId: t.exposeInt('siteId', { description: 'Id of the matched data point' }),
    matchedLatitude: t.exposeFloat('matchedLatitude', { description: 'Latitude of the data point' }),
    matchedLongitude: t.exposeFloat('matchedLongitude', { description: 'Longitude of the data point' }),
    matchDistanceKm: t.exposeFloat('matchDistanceKm', { description: 'Distance from the plot to it, km' }),
  }),
})

const SurveyRef = builder.objectRef<SurveyPlot>('SurveySurvey').implement({
  description:
    'One survey of a plot as kept: what was sent, its matched site, and the model’s survival at its age (computed when stored)',
  fields: (t) => ({
    plotId: t.exposeString('plotId', { description: 'Your id of the plot' }),
    surveyedOn: t.exposeString('surveyedOn', { description: 'The survey date, YYYY-MM-DD' }),
    plantedOn: t.exposeString('plantedOn', {
      description: 'The planting date, YYYY-MM-DD (a bare year sent is 1 March)',
    }),
    latitude: t.exposeFloat('latitude', { description: 'Latitude of the plot' }),
    longitude: t.exposeFloat('longitude', { description: 'Longitude of the plot' }),
    speciesCode: t.exposeString('speciesCode', { description: 'Four-letter species code' }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      description: 'How the trees were established',
      resolve: (plot) => plot.plantingMethod,
    }),
    planted: t.exposeInt('planted', { description: 'Trees (or seed pods) planted' }),
    alive: t.exposeInt('alive', { description: 'Trees (or pods with a live tree) alive at the survey' }),
    observedSurvival: t.float({
      description: 'alive ÷ planted',
      resolve: (plot) => plot.alive / plot.planted,
    }),
    plotAreaM2: t.exposeFloat('plotAreaM2', {
      nullable: true,
      description: 'The plot’s area, m²; null if not sent',
    }),
    protocol: t.exposeString('protocol', {
      nullable: true,
      description: 'The survey protocol; null if not sent',
    }),
    treatments: t.field({
      type: PlotTreatmentsRef,
      nullable: true,
      description: 'The treatments the plot had, as sent; null if none were named',
      resolve: (plot) => plot.treatments ?? null,
    }),
    ageYears: t.exposeFloat('ageYears', { description: 'surveyedOn − plantedOn, years of 365.25 days' }),
    predictedSurvival: t.float({
      description: 'The model’s survival at ageYears for the matched site, species and method',
      resolve: (plot) => plot.predicted,
    }),
    modelVersion: t.exposeString('modelVersion', { description: 'The model version that predicted it' }),
    site: t.field({ type: SurveySiteRef, description: 'The matched data site', resolve: (plot) => plot }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'When this survey was last stored',
      resolve: (plot) => plot.updatedAt,
    }),
  }),
})

const SurveyPageRef = builder
  .objectRef<{ plots: SurveyPlot[]; nextCursor: string | null }>('SurveyPage')
  .implement({
    description: 'A page of the account’s surveys, ordered by plotId then surveyedOn',
    fields: (t) => ({
      plots: t.field({
        type: [SurveyRef],
        description: 'The surveys of this page',
        resolve: (page) => page.plots,
      }),
      nextCursor: t.exposeString('nextCursor', {
        nullable: true,
        description: 'Pass as cursor for the next page; null on the last page',
      }),
    }),
  })

const StoreSurveysResultRef = builder.objectRef<{ stored: SurveyPlot[] }>('StoreSurveysResult').implement({
  description: 'What storeSurveys kept',
  fields: (t) => ({
    stored: t.int({
      description: 'Surveys stored (a plot sent twice for one date counts once)',
      resolve: (r) => r.stored.length,
    }),
    plots: t.field({
      type: [SurveyRef],
      description: 'Each survey as kept, with its matched site and predictedSurvival',
      resolve: (r) => r.stored,
    }),
  }),
})

const FILTER = 'Which plots; absent: every plot of the account'
const PLOT_ID = 'Your id of the plot'

builder.queryFields((t) => ({
  surveys: t.field({
    type: SurveyPageRef,
    description:
      'The account’s surveys, a page at a time, ordered by plotId then surveyedOn (as GET /v1/surveys). Counts as one request; once per operation',
    args: {
      filter: t.arg({ type: SurveyFilterInput, required: false, description: FILTER }),
      limit: t.arg.int({
        required: false,
        defaultValue: SURVEY_PAGE_DEFAULT,
        description: `Surveys on the page, 1 to ${SURVEY_PAGE_MAX}`,
        validate: {
          schema: z
            .number()
            .int(`must be a whole number from 1 to ${SURVEY_PAGE_MAX}`)
            .min(1, `must be a whole number from 1 to ${SURVEY_PAGE_MAX}`)
            .max(SURVEY_PAGE_MAX, `must be a whole number from 1 to ${SURVEY_PAGE_MAX}`),
        },
      }),
      cursor: t.arg.string({
        required: false,
        description: 'The nextCursor of the page before; absent: the first page',
        validate: { schema: surveyCursorText },
      }),
    },
    resolve: (_root, args, ctx, info) =>
      ctx.surveys.page(
        callerOf(ctx, info).accountId,
        filterOf(args.filter as FilterArg | null | undefined),
        args.limit ?? SURVEY_PAGE_DEFAULT,
        args.cursor ?? null,
      ),
  }),
  surveyPlot: t.field({
    type: [SurveyRef],
    description:
      'Every survey of one of the account’s plots, oldest first (as GET /v1/surveys/{plot_id}); not_found when it has none. Counts as one request',
    args: { plotId: t.arg.string({ required: true, description: PLOT_ID }) },
    resolve: (_root, { plotId: id }, ctx, info) => ctx.surveys.plot(callerOf(ctx, info).accountId, id),
  }),
  surveyReport: t.field({
    type: SurveyReportRef,
    description:
      'Observed survival against the prediction over the plots the filter keeps (as GET /v1/surveys/report): nothing predicted again. Counts as one request; once per operation',
    args: {
      filter: t.arg({ type: SurveyFilterInput, required: false, description: FILTER }),
      modelVersion: t.arg.string({
        required: false,
        description:
          'The version whose predictions to compare with (see models); absent: the account’s default. A calibrated version moves each stored prediction by its offset, so base and calibration can be compared side by side',
        validate: modelVersionRule,
      }),
    },
    resolve: async (_root, args, ctx, info) => {
      const filter = filterOf(args.filter as FilterArg | null | undefined)
      const report = await ctx.surveys.report(
        callerOf(ctx, info).accountId,
        filter,
        args.modelVersion ?? undefined,
      )
      return linkable(report, { operation: 'survey', request: { filter } })
    },
  }),
}))

builder.mutationType({ description: 'Every write the API offers: the account’s field surveys' })

builder.mutationFields((t) => ({
  storeSurveys: t.field({
    type: StoreSurveysResultRef,
    description: `Stores 1 to ${SURVEY_PLOTS_PER_CALL.toLocaleString('en-US')} plots, all or nothing (as POST /v1/surveys): a bad plot is invalid_request (extensions.details {index, field, reason}) or the prediction’s code (extensions.details {index, field}), the field as the REST contract names it, and nothing is stored. Counts as one request; once per operation`,
    args: {
      plots: t.arg({
        type: [SurveyPlotInputRef],
        required: true,
        description: 'The plots; send them as a variable',
        validate: {
          schema: z
            .array(z.any())
            .min(1, 'must hold at least one plot')
            .max(
              SURVEY_PLOTS_PER_CALL,
              `must hold at most ${SURVEY_PLOTS_PER_CALL} plots; send the rest in further calls`,
            ),
        },
      }),
    },
    resolve: async (_root, args, ctx, info) => {
      const writer = writerOf(ctx, info)
      const plots = (args.plots as SurveyPlotInput[]).map(checkedPlot)
      return { stored: await ctx.surveys.save(writer, plots) }
    },
  }),
  deleteSurveyPlot: t.int({
    description:
      'Deletes every survey of one of the account’s plots (as DELETE /v1/surveys/{plot_id}): how many; not_found when it has none. Counts as one request',
    args: { plotId: t.arg.string({ required: true, description: PLOT_ID }) },
    resolve: (_root, { plotId: id }, ctx, info) => ctx.surveys.remove(writerOf(ctx, info), id),
  }),
  deleteAllSurveys: t.int({
    description:
      'Deletes every plot of the account (as DELETE /v1/surveys?confirm=all): how many surveys went. Counts as one request',
    args: {
      confirm: t.arg.boolean({
        required: true,
        description: 'Must be true; anything else is invalid_request and deletes nothing',
      }),
    },
    resolve: (_root, { confirm }, ctx, info) => {
      const writer = writerOf(ctx, info)
      if (confirm !== true)
        throw invalidField('confirm', 'must be true to delete every plot of the account', 'arguments')
      return ctx.surveys.remove(writer, null)
    },
  }),
}))
