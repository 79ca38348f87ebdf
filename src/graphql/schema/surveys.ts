import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql'
import { z } from 'zod'
import type { Caller } from '../../access/caller.ts'
import { apiError, invalidField } from '../../domain/errors.ts'
import { catalogueCode } from '../../domain/input-rules.ts'
import type { SurveyFilter } from '../../domain/ports.ts'
import { bbox, surveyCursorText, surveyDateBound } from '../../domain/surveys/survey-input-rules.ts'
import {
  SURVEY_PLOTS_PER_CALL,
  type SurveyPlot,
  type SurveyPlotInput,
} from '../../domain/surveys/survey-plot.ts'
import { readSurveyPlot } from '../../domain/surveys/survey-plot-reader.ts'
import {
  SURVEY_PAGE_DEFAULT,
  SURVEY_PAGE_MAX,
  type SurveyWriter,
} from '../../domain/surveys/survey-service.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum } from './catalogue.ts'
import type { GraphQLContext } from './context.ts'
import { modelVersionRule } from './models.ts'
import { linkable } from './report-links.ts'
import { SurveyReportRef } from './survey-report-types.ts'
import { PlotTreatmentsRef, plotTreatmentsFields } from './survey-treatments.ts'
import { TreatmentsInput } from './treatments.ts'

/*
 * Field surveys: the GraphQL face of /v1/surveys (docs/surveys.md), over the same SurveyService. Every
 * field acts on the calling key's account only, and each operation counts one request.
 */

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
function checkedPlot(plot: SurveyPlotInput, index: number): SurveyPlotInput {
  const named = Object.fromEntries(
    Object.entries(plot).map(([name, value]) => [
      CONTRACT_NAME[name as keyof SurveyPlotInput] ?? name,
      name === 'treatments' ? plotTreatmentsFields(plot.treatments) : value,
    ]),
  )
  return readSurveyPlot(named, index)
}

/** Root fields whose work grows with what they ask for: once each per operation, so aliases cannot multiply it. */
const ONCE_PER_OPERATION = [
  'storeSurveys',
  'surveys',
  'surveyReport',
  'surveyUploadTicket',
  'calibrateModel',
] as const

function countRootFields(
  selectionSet: SelectionSetNode,
  info: GraphQLResolveInfo,
  counts: Map<string, number>,
  seen: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD)
      counts.set(selection.name.value, (counts.get(selection.name.value) ?? 0) + 1)
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      countRootFields(selection.selectionSet, info, counts, seen)
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value)
      const fragment = info.fragments[selection.name.value]
      if (fragment) countRootFields(fragment.selectionSet, info, counts, seen)
    }
  }
}

/**
 * Every survey field checks the whole operation before doing anything: a mutation's fields run one
 * after another, so a refusal found only at the second storeSurveys would come after the first had stored.
 */
function assertOncePerOperation(info: GraphQLResolveInfo): void {
  const counts = new Map<string, number>()
  countRootFields(info.operation.selectionSet, info, counts, new Set())
  for (const name of ONCE_PER_OPERATION)
    if ((counts.get(name) ?? 0) > 1)
      throw invalidField(name, 'may appear once in an operation; send another request for more', 'operation')
}

/** The admitted caller: access control admits every operation that asks for a survey field. */
export function callerOf(ctx: GraphQLContext, info: GraphQLResolveInfo): Caller {
  if (!ctx.caller) throw apiError('invalid_api_key')
  assertOncePerOperation(info)
  return ctx.caller
}

/** Who writes: the admitted key's account and tier, the key, and the client address the front door found. */
export function writerOf(ctx: GraphQLContext, info: GraphQLResolveInfo): SurveyWriter {
  const caller = callerOf(ctx, info)
  return {
    accountId: caller.accountId,
    tierName: caller.tier.name,
    keyId: caller.keyId,
    clientAddress: ctx.request.clientAddress,
  }
}

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

const SurveyPlotInputRef = builder.inputType('SurveyPlotInput', {
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
