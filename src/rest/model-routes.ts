import { invalidField } from '../domain/errors.ts'
import type { ModelVersionView } from '../domain/models/model-registry.ts'
import type { KeyedRoute } from './route.ts'

/** A model version under the API contract's names. */
export function modelVersionJson(view: ModelVersionView) {
  return {
    version: view.version,
    series: view.series,
    codename: view.codename,
    kind: view.kind,
    parent: view.parent,
    created_at: view.createdAt.toISOString(),
    default: view.isDefault,
    uncertainty: {
      planting_year_sd: view.uncertainty.plantingYearSd,
      site_sd: view.uncertainty.siteSd,
      clumping_dispersion: view.uncertainty.clumpingDispersion,
      status: 'assumption' as const,
    },
  }
}

/** A `{version}` path segment as the caller wrote it (percent-decoded: `+` may come as %2B). */
function versionOf(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? '')
  } catch {
    throw invalidField('version', 'is not a valid percent-encoded path segment')
  }
}

/** The model versions a key's account may answer with: the REST translation of ModelRegistry. */
export const MODEL_ROUTES: readonly KeyedRoute[] = [
  {
    method: 'GET',
    path: '/v1/models',
    authenticated: true,
    async handle(_req, url, deps, admission) {
      if (url.search !== '') throw invalidField('query string', 'takes no parameters')
      const versions = await deps.models.list(admission.caller.accountId)
      return { status: 200, body: { models: versions.map(modelVersionJson) } }
    },
  },
  {
    method: 'GET',
    path: '/v1/models/{version}',
    authenticated: true,
    async handle(_req, url, deps, admission, params) {
      if (url.search !== '') throw invalidField('query string', 'takes no parameters')
      const view = await deps.models.describe(admission.caller.accountId, versionOf(params.version))
      return { status: 200, body: modelVersionJson(view) }
    },
  },
]
