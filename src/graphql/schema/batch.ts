import type { BatchItemResult, Prediction, PredictionRequest } from '../../domain/prediction-types.ts'
import { builder } from './builder.ts'
import { BatchSiteInput, batchSitesRule } from './inputs.ts'
import { MODEL_VERSION_ARG, modelVersionRule, pinnedModel } from './models.ts'
import { PredictionRef } from './prediction.ts'

interface BatchItemError {
  code: string
  message: string
  details: Record<string, unknown> | null
}

const BatchItemErrorRef = builder.objectRef<BatchItemError>('BatchItemError').implement({
  description: 'Why one batch item could not be answered (the same codes as the API’s errors)',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Error code, e.g. outside_coverage or invalid_species' }),
    message: t.exposeString('message', { description: 'Human-readable explanation' }),
    details: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Machine-readable context, e.g. closest_code for a mistyped species',
      resolve: (e) => e.details,
    }),
  }),
})

const BatchItemRef = builder.objectRef<BatchItemResult>('BatchPredictionResult').implement({
  description: 'One batch item: a prediction, or the error that item alone hit',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position in the submitted list, from 0' }),
    prediction: t.field({
      type: PredictionRef,
      nullable: true,
      description: 'The prediction, when the item could be answered',
      resolve: (b): Prediction | null => (b.ok ? b.prediction : null),
    }),
    error: t.field({
      type: BatchItemErrorRef,
      nullable: true,
      description: 'The error, when it could not',
      // A plain object: graphql-js would treat a returned Error instance as this field failing.
      resolve: (b): BatchItemError | null =>
        b.ok ? null : { code: b.error.code, message: b.error.message, details: b.error.details ?? null },
    }),
  }),
})

builder.queryFields((t) => ({
  predictBatch: t.field({
    type: [BatchItemRef],
    description:
      "Predictions for several sites (at least one, up to the tier's batch size); counts as one request",
    args: {
      sites: t.arg({
        type: [BatchSiteInput],
        required: true,
        description: 'The sites, in the order the results come back',
        validate: batchSitesRule,
      }),
      modelVersion: t.arg.string({
        required: false,
        description: `${MODEL_VERSION_ARG}; every site of the batch is answered with it`,
        validate: modelVersionRule,
      }),
    },
    resolve: async (_root, { sites, modelVersion }, ctx) => {
      if (!ctx.caller) throw new Error('predictBatch resolved without an authenticated caller')
      const model = await pinnedModel(ctx, modelVersion)
      return [...(await ctx.predictions.batch(sites as PredictionRequest[], ctx.caller.tier, model))]
    },
  }),
}))
