import type { Admission } from '../access/auth/access-control.ts'
import { invalidField } from '../domain/errors.ts'
import type { Holder } from '../domain/holder-actor.ts'
import { parseInput } from '../domain/input-rules.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { readJsonBody, readOptionalJsonBody } from './json-body.ts'
import { calibrationRunJson, modelVersionJson, modelVersionPath } from './model-version-json.ts'
import { CalibrationBody, DefaultModelBody } from './request-schemas.ts'
import type { KeyedRoute } from './route.ts'
import { filterOf } from './survey-routes.ts'

export { modelVersionJson }

/** A `{version}` path segment as the caller wrote it (percent-decoded: `+` may come as %2B). */
function versionOf(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? '')
  } catch {
    throw invalidField('version', 'is not a valid percent-encoded path segment')
  }
}

function noQuery(url: URL) {
  if (url.search !== '') throw invalidField('query string', 'takes no parameters')
}

function holder(admission: Admission, request: RequestContext): Holder {
  return {
    accountId: admission.caller.accountId,
    keyId: admission.caller.keyId,
    clientAddress: request.clientAddress,
  }
}

/** The model versions a key's account may answer with: the REST translation of ModelRegistry and CalibrationService. */
export const MODEL_ROUTES: readonly KeyedRoute[] = [
  {
    method: 'GET',
    path: '/v1/models',
    authenticated: true,
    async handle(_req, url, deps, admission) {
      noQuery(url)
      const versions = await deps.models.list(admission.caller.accountId)
      return { status: 200, body: { models: versions.map(modelVersionJson) } }
    },
  },
  {
    method: 'GET',
    path: '/v1/models/{version}',
    authenticated: true,
    async handle(_req, url, deps, admission, params) {
      noQuery(url)
      const view = await deps.models.describe(admission.caller.accountId, versionOf(params.version))
      return { status: 200, body: modelVersionJson(view) }
    },
  },
  {
    method: 'PUT',
    path: '/v1/models/default',
    authenticated: true,
    async handle(req, url, deps, admission, _params, request) {
      noQuery(url)
      const body = parseInput(DefaultModelBody, await readJsonBody(req))
      const view = await deps.defaultVersions.set(holder(admission, request), body.model_version)
      return { status: 200, body: modelVersionJson(view) }
    },
  },
  {
    method: 'POST',
    path: '/v1/models/calibrations',
    authenticated: true,
    async handle(req, url, deps, admission, _params, request) {
      noQuery(url)
      const body = parseInput(CalibrationBody, await readOptionalJsonBody(req))
      const run = await deps.calibrations.start(holder(admission, request), filterOf(body))
      const model = run.version ? await deps.models.describe(run.accountId, run.version) : null
      return {
        status: run.status === 'running' ? 202 : 201,
        body: calibrationRunJson(run, model),
        headers: {
          Location: run.version ? modelVersionPath(run.version) : `/v1/models/calibrations/${run.id}`,
        },
      }
    },
  },
  {
    method: 'GET',
    path: '/v1/models/calibrations/{id}',
    authenticated: true,
    counted: false,
    async handle(_req, url, deps, admission, params) {
      noQuery(url)
      const run = await deps.calibrations.status(admission.caller.accountId, params.id ?? '')
      const model = run.version ? await deps.models.describe(run.accountId, run.version) : null
      return { status: 200, body: calibrationRunJson(run, model) }
    },
  },
]
