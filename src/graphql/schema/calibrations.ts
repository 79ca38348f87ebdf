import type {
  AgreementScores,
  CalibrationFit,
  CalibrationGroupFit,
  TermFit,
} from '../../domain/calibration/calibration-fit.ts'
import type { Scores } from '../../domain/calibration/cross-validation.ts'
import type { ModelVersionView } from '../../domain/models/model-registry.ts'
import type { CalibrationRun } from '../../domain/ports/calibration-runs.ts'
import type { CalibrationShift } from '../../types.ts'
import { builder } from './builder.ts'
import { CalibratedTreatmentEffectRef } from './calibration-treatments.ts'
import type { GraphQLContext } from './context.ts'
import { ModelRef, modelVersionRule } from './models.ts'
import { HorizonPredictionRef } from './prediction.ts'
import { callerOf } from './survey-callers.ts'
import { type FilterArg, filterOf, SurveyFilterInput, SurveyFilterRef } from './survey-filter.ts'

/*
 * Calibrated versions in GraphQL: a version's fit (Model.fit), a prediction's shift
 * (HorizonPrediction.calibration, see prediction.ts), and calibrateModel / calibration / setDefaultModel,
 * each the same operation as its REST endpoint.
 */

export const CalibrationShiftRef = builder.objectRef<CalibrationShift>('CalibrationShift').implement({
  description:
    'How a calibrated version moved this species × method’s logit (docs/models.md): already in baselineLogOdds and logOdds, and never a factor',
  fields: (t) => ({
    offset: t.exposeFloat('offset', { description: 'Added to the base version’s logit at every horizon' }),
    interval: t.floatList({
      description: 'The offset’s central interval at intervalLevel',
      resolve: (shift) => [shift.interval[0], shift.interval[1]],
    }),
    intervalLevel: t.exposeFloat('level', { description: 'The interval’s level, 0.9' }),
    plots: t.exposeInt('plots', {
      description: 'Surveyed plots of this species and method behind it (0: pooled)',
    }),
    trees: t.exposeInt('trees', { description: 'Trees planted on those plots' }),
  }),
})

const IntervalTermRef = builder.objectRef<TermFit>('CalibrationTerm').implement({
  description: 'An uncertainty term of a calibrated version',
  fields: (t) => ({
    value: t.exposeFloat('value', { description: 'On the logit scale (an SD), or the dispersion as it is' }),
    status: t.exposeString('status', {
      description: 'estimated: from the surveys; assumption: the parent’s, kept (the fit’s notes say why)',
    }),
    interval: t.floatList({
      nullable: true,
      description: 'Its central interval at the fit’s level; null when it is an assumption',
      resolve: (term) => term.interval,
    }),
  }),
})

const OffsetRef = builder.objectRef<CalibrationGroupFit>('CalibrationOffset').implement({
  description: 'One species × method’s logit offset, partially pooled toward its method’s mean',
  fields: (t) => ({
    speciesCode: t.exposeString('speciesCode', { description: 'Species code, e.g. PSME' }),
    plantingMethod: t.exposeString('plantingMethod', { description: 'manual or drone_seeded' }),
    offset: t.exposeFloat('offset', { description: 'Added to the parent’s logit' }),
    interval: t.floatList({ description: 'Its central interval', resolve: (group) => group.interval }),
    ownEstimate: t.float({
      nullable: true,
      description: 'What its own plots alone say; null when none informs it',
      resolve: (group) => group.estimate,
    }),
    shrinkage: t.exposeFloat('shrinkage', {
      description: 'How far pooling moved it toward its method’s mean (0 to 1)',
    }),
    plots: t.exposeInt('plots', { description: 'Its surveyed plots' }),
    trees: t.exposeInt('trees', { description: 'Trees planted on them' }),
  }),
})

const AgreementRef = builder.objectRef<Scores & AgreementScores>('CalibrationScores').implement({
  description: 'Scores on plots held out of the fit (per tree), and how the predictions agree with them',
  fields: (t) => ({
    brier: t.exposeFloat('brier', { description: 'Brier score per tree' }),
    logLoss: t.exposeFloat('logLoss', { description: 'Log loss per tree' }),
    calibrationInTheLarge: t.float({
      description: 'The logit shift that would match survivors overall (0 = agrees)',
      resolve: (scores) => scores.calibrationInTheLarge.estimate,
    }),
    calibrationSlope: t.float({
      nullable: true,
      description: 'The slope of observed on predicted logits (1 = agrees); null when not estimable',
      resolve: (scores) => scores.calibrationSlope?.estimate ?? null,
    }),
  }),
})

const CrossValidationRef = builder
  .objectRef<CalibrationFit['crossValidation']>('CalibrationCrossValidation')
  .implement({
    description: 'k-fold cross-validation by plot: the base and the calibrated version on held-out plots',
    fields: (t) => ({
      folds: t.exposeInt('folds', { description: 'Folds (plot i in fold i mod k)' }),
      plots: t.exposeInt('plots', { description: 'Plots scored, each once' }),
      base: t.field({ type: AgreementRef, description: 'The parent version', resolve: (cv) => cv.base }),
      calibrated: t.field({
        type: AgreementRef,
        description: 'The calibration, fitted without each fold',
        resolve: (cv) => cv.calibrated,
      }),
      beatsBase: t.exposeBoolean('beatsBase', {
        description: 'Its held-out log loss is below the parent’s',
      }),
    }),
  })

const FitRef = builder.objectRef<CalibrationFit>('CalibrationFit').implement({
  description:
    'What a calibrated version was fitted on, what it estimated, and how it fares (docs/models.md)',
  fields: (t) => ({
    method: t.exposeString('method', { description: 'The fit’s method and revision' }),
    intervalLevel: t.exposeFloat('level', { description: 'The level of every interval, 0.9' }),
    filter: t.field({
      type: SurveyFilterRef,
      description: 'Which of the account’s plots it was fitted on',
      resolve: (fit) => fit.data.filter,
    }),
    plots: t.int({ description: 'Plots fitted on', resolve: (fit) => fit.data.plots }),
    trees: t.int({ description: 'Trees planted on them', resolve: (fit) => fit.data.trees }),
    plantingYears: t.intList({
      description: 'Their planting years',
      resolve: (fit) => fit.data.plantingYears,
    }),
    offsets: t.field({
      type: [OffsetRef],
      description: 'Every species × method',
      resolve: (fit) => fit.offsets,
    }),
    plantingYearSd: t.field({
      type: IntervalTermRef,
      description: 'SD of the planting-year effect',
      resolve: (fit) => fit.terms.plantingYearSd,
    }),
    siteSd: t.field({
      type: IntervalTermRef,
      description: 'SD of the site effect',
      resolve: (fit) => fit.terms.siteSd,
    }),
    clumpingDispersion: t.field({
      type: IntervalTermRef,
      description: 'Dispersion of survivor counts over the binomial',
      resolve: (fit) => fit.terms.clumpingDispersion,
    }),
    crossValidation: t.field({
      type: CrossValidationRef,
      description: 'Base against calibrated on plots the fit did not see',
      resolve: (fit) => fit.crossValidation,
    }),
    ageTrendZ: t.float({
      nullable: true,
      description:
        'The score test of an age slope on held-out plots (positive: older plots survive better than this version says); null when it cannot be computed',
      resolve: (fit) => fit.ageTrend?.z ?? null,
    }),
    ageTrendP: t.float({
      nullable: true,
      description: 'Its two-sided p; below 0.01 a note says so',
      resolve: (fit) => fit.ageTrend?.p ?? null,
    }),
    treatmentEffects: t.field({
      type: [CalibratedTreatmentEffectRef],
      description:
        'The treatment effects the plots carried, each with its prior and posterior; empty when none did',
      resolve: (fit) => fit.treatmentEffects ?? [],
    }),
    notes: t.exposeStringList('notes', {
      description: 'What the fit kept as assumptions, an age trend, and why',
    }),
    warnings: t.exposeStringList('warnings', {
      description: 'Reasons to prefer the parent (e.g. no better out of sample)',
    }),
  }),
})

builder.objectField(HorizonPredictionRef, 'calibration', (t) =>
  t.field({
    type: CalibrationShiftRef,
    nullable: true,
    description: 'A calibrated version’s shift of this species × method; null for a base version',
    resolve: (horizon) => horizon.calibration ?? null,
  }),
)

builder.objectField(ModelRef, 'fit', (t) =>
  t.field({
    type: FitRef,
    nullable: true,
    description: 'A calibrated version’s fit; null for a base version',
    resolve: async (model, _args, ctx) => {
      if (!('kind' in model)) {
        if (!model.version.includes('+cal.')) return null
        return (await ctx.models.describe(ctx.caller?.accountId ?? '', model.version)).fit
      }
      return model.fit
    },
  }),
)

const CalibrationStatusEnum = builder.enumType('CalibrationStatus', {
  description: 'Where a calibration stands',
  values: {
    RUNNING: { value: 'running', description: 'Reading the surveys or fitting' },
    SUCCEEDED: { value: 'succeeded', description: 'Its version is kept (model)' },
    FAILED: { value: 'failed', description: 'Nothing was kept (error says why)' },
  } as const,
})

const CalibrationRef = builder.objectRef<CalibrationRun>('Calibration').implement({
  description: 'A calibration asked for (as POST /v1/models/calibrations); poll it until it has finished',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Its id' }),
    status: t.field({
      type: CalibrationStatusEnum,
      resolve: (run) => run.status,
      description: 'Where it stands',
    }),
    filter: t.field({
      type: SurveyFilterRef,
      description: 'Which of the account’s plots it fits on',
      resolve: (run) => run.filter,
    }),
    stagesDone: t.exposeInt('stagesDone', { description: 'Stages finished: the fit, then each fold' }),
    stages: t.exposeInt('stages', { description: 'Stages in all' }),
    plots: t.exposeInt('plots', { nullable: true, description: 'Plots it fits on, once read' }),
    model: t.field({
      type: ModelRef,
      nullable: true,
      description: 'The version it made, once it has succeeded',
      resolve: (run, _args, ctx): Promise<ModelVersionView> | null =>
        run.version ? ctx.models.describe(run.accountId, run.version) : null,
    }),
    errorMessage: t.string({
      nullable: true,
      description: 'Why it failed',
      resolve: (run) => run.error?.message ?? null,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was asked for',
      resolve: (run) => run.createdAt,
    }),
    finishedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it finished',
      resolve: (run) => run.finishedAt,
    }),
  }),
})

function holderOf(ctx: GraphQLContext, accountId: string, keyId: string) {
  return { accountId, keyId, clientAddress: ctx.request.clientAddress }
}

builder.queryFields((t) => ({
  calibration: t.field({
    type: CalibrationRef,
    description:
      'One of the account’s calibrations (as GET /v1/models/calibrations/{id}); not_found for any other id. Counts as one request',
    args: { id: t.arg.id({ required: true, description: 'A calibration’s id' }) },
    resolve: (_root, { id }, ctx, info) => ctx.calibrations.status(callerOf(ctx, info).accountId, String(id)),
  }),
}))

builder.mutationFields((t) => ({
  calibrateModel: t.field({
    type: CalibrationRef,
    description:
      'Fits a calibrated version on the account’s surveys the filter keeps (as POST /v1/models/calibrations): answers once the fit is done or after 2 s, whichever is first; poll calibration(id) while it runs. One at a time per account (calibration_running). Counts as one request; once per operation',
    args: {
      filter: t.arg({ type: SurveyFilterInput, required: false, description: 'Which plots; absent: all' }),
    },
    resolve: (_root, args, ctx, info) => {
      const caller = callerOf(ctx, info)
      return ctx.calibrations.start(
        holderOf(ctx, caller.accountId, caller.keyId),
        filterOf(args.filter as FilterArg | null | undefined),
      )
    },
  }),
  setDefaultModel: t.field({
    type: ModelRef,
    description:
      'Sets the version the account’s answers use when a request names none (as PUT /v1/models/default); null: the current base version. Counts as one request',
    args: {
      modelVersion: t.arg.string({
        required: false,
        description: 'A version of models, or null',
        validate: modelVersionRule,
      }),
    },
    resolve: (_root, { modelVersion: version }, ctx, info) => {
      const caller = callerOf(ctx, info)
      return ctx.defaultVersions.set(holderOf(ctx, caller.accountId, caller.keyId), version ?? null)
    },
  }),
}))
