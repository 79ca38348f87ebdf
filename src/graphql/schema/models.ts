import { modelVersion } from '../../domain/input-rules.ts'
import type { ModelVersionView } from '../../domain/models/model-registry.ts'
import type { ModelInfo, SurvivalModel } from '../../types.ts'
import { builder } from './builder.ts'
import type { GraphQLContext } from './context.ts'

/*
 * Model versions: which an account may answer with (models, model(version)), and the version a
 * prediction field pins (its modelVersion), resolved as REST resolves model_version.
 */

export const MODEL_VERSION_ARG =
  'The model version to answer with (see models); absent: the account’s default (setDefaultModel), else the current base version. One this key’s account cannot use is invalid_model_version'

/** The model a keyed field answers with: the version it names, or the default. */
export function pinnedModel(ctx: GraphQLContext, version: string | null | undefined): Promise<SurvivalModel> {
  if (!ctx.caller) throw new Error('a prediction field resolved without an authenticated caller')
  return ctx.models.resolve(ctx.caller.accountId, version)
}

/** The GraphQL rule of a modelVersion input, shared by every prediction field. */
export const modelVersionRule = { schema: modelVersion }

const ModelVersionKindEnum = builder.enumType('ModelVersionKind', {
  description: 'Where a model version comes from',
  values: {
    BASE: { value: 'base', description: 'Shipped with the service: judgement values (docs/model-card.md)' },
    CALIBRATED: {
      value: 'calibrated',
      description: 'Fitted on this account’s surveys from a base version (POST /v1/models/calibrations)',
    },
  } as const,
})

type TermsView = ModelVersionView['uncertainty'] & { status: ModelVersionView['uncertaintyStatus'] }

const UncertaintyTermsRef = builder.objectRef<TermsView>('ModelUncertaintyTerms').implement({
  description: 'How far survival strays from a prediction, on the logit scale (docs/model-card.md)',
  fields: (t) => ({
    plantingYearSd: t.exposeFloat('plantingYearSd', {
      description: 'SD of the planting-year effect shared by a stand planted in one year',
    }),
    siteSd: t.exposeFloat('siteSd', {
      description: 'SD of the site effect the site’s attributes do not tell',
    }),
    clumpingDispersion: t.exposeFloat('clumpingDispersion', {
      description: 'Variance of a count of survivors over the binomial’s (≥ 1): seedlings die in clumps',
    }),
    status: t.exposeString('status', {
      description:
        'assumption: stated, not estimated from observations (a base version); estimated: all three from the account’s surveys; partly_estimated: some (the fit’s notes say which)',
    }),
  }),
})

/** What an answer names (ModelInfo) or the registry shows (ModelVersionView): the same type, Model. */
type ModelObject = ModelInfo | ModelVersionView

/** The registry's view of a model an answer names: base versions need no account. */
function viewOf(ctx: GraphQLContext, model: ModelObject): Promise<ModelVersionView> | ModelVersionView {
  if ('kind' in model) return model
  return ctx.models.describe(ctx.caller?.accountId ?? '', model.version)
}

export const ModelRef = builder.objectRef<ModelObject>('Model').implement({
  description:
    'A model version: the one that answered, or one an answer can be pinned to (docs/models.md); once made, it never changes',
  fields: (t) => ({
    version: t.exposeString('version', { description: 'Model version within its series, e.g. 0.2' }),
    codename: t.exposeString('codename', { description: 'Release codename, e.g. chanterelle' }),
    series: t.exposeString('series', { description: 'Model family, e.g. mycel' }),
    kind: t.field({
      type: ModelVersionKindEnum,
      description: 'Where it comes from',
      resolve: async (m, _args, ctx) => (await viewOf(ctx, m)).kind,
    }),
    parent: t.string({
      nullable: true,
      description: 'The version it was made from; null for a base version',
      resolve: async (m, _args, ctx) => (await viewOf(ctx, m)).parent,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was made',
      resolve: async (m, _args, ctx) => (await viewOf(ctx, m)).createdAt,
    }),
    isDefault: t.boolean({
      description: 'Whether answers use it when a request names no version',
      resolve: async (m, _args, ctx) => (await viewOf(ctx, m)).isDefault,
    }),
    uncertainty: t.field({
      type: UncertaintyTermsRef,
      description: 'Its uncertainty terms, behind survivalInterval and stocking plans',
      resolve: async (m, _args, ctx) => {
        const view = await viewOf(ctx, m)
        return { ...view.uncertainty, status: view.uncertaintyStatus }
      },
    }),
  }),
})

builder.queryFields((t) => ({
  models: t.field({
    type: [ModelRef],
    description:
      'The model versions this key’s account may answer with, as GET /v1/models. Counts as one request',
    resolve: (_root, _args, ctx) => {
      if (!ctx.caller) throw new Error('models resolved without an authenticated caller')
      return ctx.models.list(ctx.caller.accountId)
    },
  }),
  model: t.field({
    type: ModelRef,
    description:
      'The current base version (public, like health); with version, one this key’s account may use, as GET /v1/models/{version} (then a key is needed and it counts as one request)',
    args: {
      version: t.arg.string({
        required: false,
        description: 'A version of models; absent: the current base version',
        validate: modelVersionRule,
      }),
    },
    resolve: (_root, { version }, ctx) => {
      if (version === undefined || version === null) return ctx.models.currentView()
      if (!ctx.caller) throw new Error('model(version) resolved without an authenticated caller')
      return ctx.models.describe(ctx.caller.accountId, version)
    },
  }),
}))
