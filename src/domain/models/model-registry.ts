import type { ModelInfo, SurvivalModel } from '../../types.ts'
import { apiError } from '../errors.ts'

/*
 * The model versions an answer can be made with, and which one a request gets: the version it names
 * (`model_version`), or else the current base version. A version, once made, never changes, so a
 * request pinned to one gets the same numbers whatever ships after it.
 */

/** A base version as shipped (src/model/artifacts/versions.json). */
export interface ShippedVersion {
  model: SurvivalModel
  releasedAt: Date
}

/** What GET /v1/models lists of a version, and GET /v1/models/{version} shows. */
export interface ModelVersionView extends ModelInfo {
  kind: 'base'
  /** The version it was made from; null for a base version. */
  parent: string | null
  createdAt: Date
  /** The version answers use when a request names none. */
  isDefault: boolean
  /** The stated (base) uncertainty terms on the logit scale. */
  uncertainty: SurvivalModel['uncertainty']
}

export class ModelRegistry {
  private readonly byVersion: ReadonlyMap<string, ShippedVersion>
  /** The model answers use when a request names no version. */
  readonly current: SurvivalModel

  constructor(shipped: readonly ShippedVersion[], current: string) {
    this.byVersion = new Map(shipped.map((entry) => [entry.model.version, entry]))
    const found = this.byVersion.get(current)
    if (!found) throw new RangeError(`the current model version ${current} is not one of those shipped`)
    this.current = found.model
  }

  /**
   * The model for a request of `accountId`: the version it names, or the current base version.
   * invalid_model_version for a version the account cannot use.
   */
  async resolve(_accountId: string, version: string | null | undefined): Promise<SurvivalModel> {
    if (version === undefined || version === null) return this.current
    const found = this.byVersion.get(version)
    if (!found) throw unknownVersion(version)
    return found.model
  }

  /** The versions the account may use, base versions newest first. */
  async list(_accountId: string): Promise<ModelVersionView[]> {
    return [...this.byVersion.values()]
      .sort(
        (a, b) =>
          b.releasedAt.getTime() - a.releasedAt.getTime() || compare(b.model.version, a.model.version),
      )
      .map((entry) => this.view(entry))
  }

  /** The current base version, which needs no account. */
  currentView(): ModelVersionView {
    return this.view(this.byVersion.get(this.current.version) as ShippedVersion)
  }

  /** One version the account may use; invalid_model_version otherwise. */
  async describe(_accountId: string, version: string): Promise<ModelVersionView> {
    const found = this.byVersion.get(version)
    if (!found) throw unknownVersion(version)
    return this.view(found)
  }

  private view({ model, releasedAt }: ShippedVersion): ModelVersionView {
    return {
      version: model.version,
      series: model.series,
      codename: model.codename,
      kind: 'base',
      parent: null,
      createdAt: releasedAt,
      isDefault: model === this.current,
      uncertainty: model.uncertainty,
    }
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

function unknownVersion(version: string) {
  return apiError(
    'invalid_model_version',
    { version },
    { details: { model_version: version, suggestion: 'GET /v1/models lists the versions this key may use' } },
  )
}
