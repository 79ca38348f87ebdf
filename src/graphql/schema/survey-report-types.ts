import type { VersionedReport } from '../../domain/surveys/survey-service.ts'
import {
  type AgeBand,
  INTERVAL_LEVEL,
  type Interval,
  type ReliabilityBin,
  type SurveyGroup,
  type SurveyReport,
} from '../../domain/surveys/survey-statistics.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum } from './catalogue.ts'
import { recordedTarget, reportLinkField } from './report-links.ts'

/** The survey report's types: observed beside predicted, as GET /v1/surveys/report (./surveys.ts). */

/** The note of an empty report, as GET /v1/surveys/report words it. */
export const NOTHING_TO_COMPARE = 'No plot matches: there is nothing to compare.'

const SurveyAgeBandEnum = builder.enumType('SurveyAgeBand', {
  description: 'Age bands of a report’s groups (ageYears at the survey)',
  values: {
    UNDER_2: { value: 'under_2', description: 'Under 2 years (REST under_2)' },
    FROM_2_TO_4: { value: '2_to_4', description: '2 to 4 years (REST 2_to_4)' },
    OVER_4: { value: 'over_4', description: 'Over 4 years (REST over_4)' },
  } as const satisfies Record<string, { value: AgeBand; description: string }>,
})

const SurveyIntervalRef = builder.objectRef<Interval>('SurveyInterval').implement({
  description: `A ${INTERVAL_LEVEL * 100} % interval`,
  fields: (t) => ({
    low: t.float({ description: 'Lower end', resolve: ([low]) => low }),
    high: t.float({ description: 'Upper end', resolve: ([, high]) => high }),
  }),
})

/** Tree totals can pass GraphQL Int's 2³¹ − 1 over an account's plots: they are Float, whole numbers. */
const WHOLE = 'a whole number (Float: an account’s total can pass 2³¹ − 1)'

const SurveyGroupRef = builder.objectRef<SurveyGroup>('SurveyGroup').implement({
  description:
    'Observed survival beside the mean prediction over a group of plots: overall, one species × method, or one age band of it',
  fields: (t) => ({
    speciesCode: t.exposeString('speciesCode', { nullable: true, description: 'The species; null overall' }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      nullable: true,
      description: 'The planting method; null overall',
      resolve: (g) => g.plantingMethod,
    }),
    ageBand: t.field({
      type: SurveyAgeBandEnum,
      nullable: true,
      description: 'The age band; null overall and for a whole species × method',
      resolve: (g) => g.ageBand,
    }),
    plots: t.exposeInt('plots', { description: 'Plots in the group' }),
    treesPlanted: t.float({ description: `Trees planted, ${WHOLE}`, resolve: (g) => g.planted }),
    treesAlive: t.float({ description: `Trees alive, ${WHOLE}`, resolve: (g) => g.alive }),
    observedSurvival: t.float({ description: 'treesAlive ÷ treesPlanted', resolve: (g) => g.observed }),
    observedInterval: t.field({
      type: SurveyIntervalRef,
      description: 'Its interval (beta-binomial moments, docs/surveys.md)',
      resolve: (g) => g.observedInterval,
    }),
    meanPredictedSurvival: t.float({
      description: 'The mean prediction, weighted by trees planted',
      resolve: (g) => g.meanPredicted,
    }),
    difference: t.exposeFloat('difference', { description: 'observedSurvival − meanPredictedSurvival' }),
    differenceInterval: t.field({
      type: SurveyIntervalRef,
      description: 'Its interval (the prediction taken as known)',
      resolve: (g) => g.differenceInterval,
    }),
    differs: t.exposeBoolean('differs', { description: 'true when differenceInterval excludes 0' }),
    dispersion: t.exposeFloat('dispersion', { description: 'The dispersion φ (at least 1)' }),
    plotCorrelation: t.exposeFloat('plotCorrelation', {
      description:
        'The intra-plot correlation ρ̂ = (φ − 1) / (mean plot size − 1): a plot of n trees varies 1 + (n − 1)ρ̂ times as much as binomial counts, and the intervals use that per plot',
    }),
  }),
})

const CalibrationShiftRef = builder
  .objectRef<SurveyReport['calibrationInTheLarge']>('SurveyCalibrationInTheLarge')
  .implement({
    description: 'The logit shift δ that makes the predictions sum to the trees alive; 0 when calibrated',
    fields: (t) => ({
      estimate: t.exposeFloat('estimate', { description: 'δ, logit scale' }),
      interval: t.field({ type: SurveyIntervalRef, description: 'Its interval', resolve: (c) => c.interval }),
    }),
  })

const CalibrationSlopeRef = builder
  .objectRef<NonNullable<SurveyReport['calibrationSlope']>>('SurveyCalibrationSlope')
  .implement({
    description: 'β of logit(observed) = α + β logit(predicted); 1 when calibrated',
    fields: (t) => ({
      estimate: t.float({ description: 'β', resolve: (s) => s.slope }),
      interval: t.field({
        type: SurveyIntervalRef,
        description: 'Its interval',
        resolve: (s) => s.slopeInterval,
      }),
      intercept: t.exposeFloat('intercept', { description: 'α' }),
    }),
  })

const SurveyScoresRef = builder.objectRef<SurveyReport>('SurveyScores').implement({
  description: 'Scores over every plot of the report, weighted by trees',
  fields: (t) => ({
    brier: t.exposeFloat('brier', { description: 'The Brier score' }),
    logLoss: t.exposeFloat('logLoss', { description: 'The log loss' }),
    calibrationInTheLarge: t.field({
      type: CalibrationShiftRef,
      description: 'Calibration in the large',
      resolve: (r) => r.calibrationInTheLarge,
    }),
    calibrationSlope: t.field({
      type: CalibrationSlopeRef,
      nullable: true,
      description:
        'The calibration slope; null (with a note) under 3 plots, when every plot has the same prediction, or when it cannot be estimated',
      resolve: (r) => r.calibrationSlope,
    }),
  }),
})

const ReliabilityBinRef = builder.objectRef<ReliabilityBin>('SurveyReliabilityBin').implement({
  description: 'One tenth of predicted survival: the plots whose prediction falls in [from, to)',
  fields: (t) => ({
    from: t.exposeFloat('from', { description: 'Lower end of predicted survival' }),
    to: t.exposeFloat('to', { description: 'Upper end of predicted survival' }),
    plots: t.exposeInt('plots', { description: 'Plots in the bin' }),
    trees: t.float({ description: `Trees planted on them, ${WHOLE}`, resolve: (b) => b.trees }),
    meanPredictedSurvival: t.float({
      nullable: true,
      description: 'Their mean prediction, weighted by trees; null for an empty bin',
      resolve: (b) => b.meanPredicted,
    }),
    observedSurvival: t.float({
      nullable: true,
      description: 'Their observed survival; null for an empty bin',
      resolve: (b) => b.observed,
    }),
  }),
})

export const SurveyReportRef = builder.objectRef<VersionedReport>('SurveyReport').implement({
  description:
    'Observed survival beside the model’s prediction over the account’s plots that the filter keeps: the numbers of GET /v1/surveys/report (docs/surveys.md)',
  fields: (t) => ({
    modelVersion: t.string({
      nullable: true,
      description: 'The model version whose predictions the plots are compared with',
      resolve: ({ modelVersion }) => modelVersion,
    }),
    intervalLevel: t.float({
      description: 'The level of every interval: 0.9',
      resolve: () => INTERVAL_LEVEL,
    }),
    overall: t.field({
      type: SurveyGroupRef,
      nullable: true,
      description: 'Every plot kept; null when the filter keeps none',
      resolve: ({ report }) => report?.groups[0] ?? null,
    }),
    groups: t.field({
      type: [SurveyGroupRef],
      description: 'Each species × method, each followed by its age bands',
      resolve: ({ report }) => report?.groups.slice(1) ?? [],
    }),
    scores: t.field({
      type: SurveyScoresRef,
      nullable: true,
      description: 'Scores over every plot kept; null when the filter keeps none',
      resolve: ({ report }) => report,
    }),
    reliability: t.field({
      type: [ReliabilityBinRef],
      description: '10 bins of predicted survival; empty when the filter keeps none',
      resolve: ({ report }) => report?.reliability ?? [],
    }),
    notes: t.stringList({
      description: 'What to keep in mind reading it (estimates left out, intervals likely too narrow)',
      resolve: ({ report }) => (report ? report.notes : [NOTHING_TO_COMPARE]),
    }),
    reportLink: reportLinkField(
      t,
      'survey check',
      (answer) => recordedTarget(answer, answer.modelVersion ?? ''),
      '(as GET /v1/surveys/report with Accept: application/pdf answers it for the same filter and modelVersion, from the surveys as they are when fetched). Not counted; fetching it counts one request',
    ),
  }),
})
