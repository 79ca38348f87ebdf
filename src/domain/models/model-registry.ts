import { hash } from 'node:crypto'
import { LruCache } from '../../lru-cache.ts'
import { type CalibratedGroup, calibratedModel } from '../../model/calibrated-model.ts'
import type { InformedShare, ModelInfo, SurvivalModel, UncertaintyTerms } from '../../types.ts'
import { CALIBRATED_VERSION, type CalibrationFit } from '../calibration/calibration-fit.ts'
import { apiError } from '../errors.ts'
import type { ModelVersionStore, StoredModelVersion } from '../ports/model-versions.ts'

/*
 * The model versions an answer can be made with, and which one a request gets: the version it names
 * (`model_version`), else the account's default (PUT /v1/models/default), else the current base
 * version. Base versions ship with the code; calibrated versions are an account's own, kept in the
 * store and prepared on first use (a bounded number stay prepared). A version, once made, never
 * changes, so a request pinned to one gets the same numbers whatever happens after it.
 */

/** A base version as shipped (src/model/artifacts/versions.json). */
export interface ShippedVersion {
  model: SurvivalModel
  releasedAt: Date
}

/** What GET /v1/models lists of a version, and GET /v1/models/{version} shows. */
export interface ModelVersionView extends ModelInfo {
  kind: 'base' | 'calibrated'
  /** The version it was made from; null for a base version. */
  parent: string | null
  createdAt: Date
  /** The version the account's answers use when a request names none. */
  isDefault: boolean
  /** The version's uncertainty terms on the logit scale: a base version's are assumptions. */
  uncertainty: UncertaintyTerms
  /** Whether its terms were estimated from surveys: all, some (the fit's notes say which), or none. */
  uncertaintyStatus: 'assumption' | 'estimated' | 'partly_estimated'
  /** A calibrated version's fit; null for a base version. */
  fit: CalibrationFit | null
}

export interface RegistryOptions {
  /** Calibrated versions kept prepared (least recently used out first). */
  preparedVersions?: number
  /** How long an account's default is trusted before it is read again: how soon a change made by another process is seen. */
  defaultTtlMs?: number
  now?: () => number
}

export const PREPARED_VERSIONS = 64
export const DEFAULT_TTL_MS = 2000
const DEFAULTS_KEPT = 10_000

export class ModelRegistry {
  private readonly byVersion: ReadonlyMap<string, ShippedVersion>
  /** The base version answers use when neither the request nor the account names one. */
  readonly current: SurvivalModel
  private readonly prepared: LruCache<string, Promise<SurvivalModel>>
  private readonly defaults = new LruCache<string, { version: string | null; until: number }>(DEFAULTS_KEPT)
  private readonly defaultTtlMs: number
  private readonly now: () => number

  constructor(
    shipped: readonly ShippedVersion[],
    current: string,
    private readonly store: ModelVersionStore | null = null,
    options: RegistryOptions = {},
  ) {
    this.byVersion = new Map(shipped.map((entry) => [entry.model.version, entry]))
    const found = this.byVersion.get(current)
    if (!found) throw new RangeError(`the current model version ${current} is not one of those shipped`)
    this.current = found.model
    this.prepared = new LruCache(options.preparedVersions ?? PREPARED_VERSIONS)
    this.defaultTtlMs = options.defaultTtlMs ?? DEFAULT_TTL_MS
    this.now = options.now ?? Date.now
  }

  /** Whether accounts can have versions of their own (a store to keep them). */
  get calibrates(): boolean {
    return this.store !== null
  }

  /** A shipped base version, or undefined. */
  base(version: string): SurvivalModel | undefined {
    return this.byVersion.get(version)?.model
  }

  /**
   * The model for a request of `accountId`: the version it names, or the account's default.
   * invalid_model_version for a version the account cannot use.
   */
  async resolve(accountId: string, version: string | null | undefined): Promise<SurvivalModel> {
    const named = version ?? (await this.defaultOf(accountId))
    if (named === null) return this.current
    const shipped = this.byVersion.get(named)
    if (shipped) return shipped.model
    return this.calibrated(accountId, named)
  }

  /** The version the account's answers use by default: its own choice, or null for the current base version. */
  async defaultOf(accountId: string): Promise<string | null> {
    if (!this.store) return null
    const now = this.now()
    const known = this.defaults.get(accountId)
    if (known && known.until > now) return known.version
    const version = await this.store.defaultVersion(accountId)
    this.defaults.set(accountId, { version, until: now + this.defaultTtlMs })
    return version
  }

  /** Records the account's new default here at once (other processes see it within defaultTtlMs). */
  rememberDefault(accountId: string, version: string | null): void {
    this.defaults.set(accountId, { version, until: this.now() + this.defaultTtlMs })
  }

  /**
   * How `version` (else the account's default) re-expresses predictions its parent made: a calibrated
   * version's offset by species × method and the treatment effects its surveys informed, or none for a
   * base version (the survey report's ReportVersions).
   */
  async shiftOf(accountId: string, version: string | undefined) {
    const model = await this.resolve(accountId, version)
    if (this.byVersion.has(model.version)) return { version: model.version, offset: null }
    const fit = readFit(await this.stored(accountId, model.version))
    const offsets = new Map(
      fit.offsets.map((group) => [`${group.speciesCode}/${group.plantingMethod}`, group.offset]),
    )
    const effects = new Map(
      (fit.treatmentEffects ?? [])
        .filter((effect) => effect.status === 'estimated')
        .map((effect) => [effect.effectId, effect.posterior.mean - effect.prior.mean]),
    )
    return {
      version: model.version,
      offset: (speciesCode: string, method: string) => offsets.get(`${speciesCode}/${method}`) ?? 0,
      ...(effects.size > 0 ? { effects } : {}),
    }
  }

  /** The versions the account may use: its calibrations newest first, then base versions newest first. */
  async list(accountId: string): Promise<ModelVersionView[]> {
    const chosen = await this.defaultOf(accountId)
    const defaultVersion = chosen ?? this.current.version
    const own = this.store ? await this.store.versions(accountId) : []
    const shipped = [...this.byVersion.values()].sort(
      (a, b) => b.releasedAt.getTime() - a.releasedAt.getTime() || compare(b.model.version, a.model.version),
    )
    return [
      ...own.map((stored) => this.calibratedView(stored, defaultVersion)),
      ...shipped.map((entry) => baseView(entry, defaultVersion)),
    ]
  }

  /** The current base version, which needs no account. */
  currentView(): ModelVersionView {
    return baseView(this.byVersion.get(this.current.version) as ShippedVersion, this.current.version)
  }

  /** One version the account may use; invalid_model_version otherwise. */
  async describe(accountId: string, version: string): Promise<ModelVersionView> {
    const defaultVersion = (await this.defaultOf(accountId)) ?? this.current.version
    const shipped = this.byVersion.get(version)
    if (shipped) return baseView(shipped, defaultVersion)
    return this.calibratedView(await this.stored(accountId, version), defaultVersion)
  }

  private calibratedView(stored: StoredModelVersion, defaultVersion: string): ModelVersionView {
    const fit = readFit(stored)
    return calibratedView(stored, fit, defaultVersion, this.parentOf(stored.version, fit))
  }

  private parentOf(version: string, fit: CalibrationFit): SurvivalModel {
    const parent = this.byVersion.get(fit.parent)?.model
    if (!parent)
      throw new Error(`calibrated version ${version} names parent ${fit.parent}, which is not shipped`)
    return parent
  }

  /** A calibrated version's fit, and how it is kept; invalid_model_version for anything else. */
  private async stored(accountId: string, version: string): Promise<StoredModelVersion> {
    if (!this.store || !CALIBRATED_VERSION.test(version)) throw unknownVersion(version)
    const stored = await this.store.version(accountId, version)
    if (!stored) throw unknownVersion(version)
    return stored
  }

  private calibrated(accountId: string, version: string): Promise<SurvivalModel> {
    const key = `${accountId}\n${version}`
    let model = this.prepared.get(key)
    if (!model) {
      model = this.prepare(accountId, version)
      this.prepared.set(key, model)
      // A failed read is not kept: the next request reads again.
      model.catch(() => this.prepared.delete(key))
    }
    return model
  }

  private async prepare(accountId: string, version: string): Promise<SurvivalModel> {
    const stored = await this.stored(accountId, version)
    const fit = readFit(stored)
    return calibratedModel(this.parentOf(version, fit), calibrationParameters(version, fit))
  }
}

/** The stored fit, checked against the version's name: a kept version is whole, or it is not used. */
function readFit(stored: StoredModelVersion): CalibrationFit {
  const named = CALIBRATED_VERSION.exec(stored.version)?.groups?.hash
  if (named !== hash('sha256', stored.fit, 'hex').slice(0, 8))
    throw new Error(`calibrated version ${stored.version}: its kept fit does not match its name`)
  return JSON.parse(stored.fit) as CalibrationFit
}

function calibrationParameters(version: string, fit: CalibrationFit) {
  const groups: CalibratedGroup[] = fit.offsets.map((group) => ({
    speciesCode: group.speciesCode,
    plantingMethod: group.plantingMethod,
    offset: group.offset,
    interval: group.interval,
    level: fit.level,
    variance: group.variance,
    plots: group.plots,
    trees: group.trees,
  }))
  const treatmentShares = new Map<string, InformedShare>()
  for (const effect of fit.treatmentEffects ?? [])
    if (effect.status === 'estimated')
      for (const value of effect.values)
        treatmentShares.set(`${effect.treatment}=${value}`, {
          reduction: effect.posterior.mean,
          reductionSd: effect.posterior.sd,
          reductionRange: effect.posterior.interval,
        })
  return {
    version,
    uncertainty: termsOf(fit),
    groups,
    ...(treatmentShares.size > 0 ? { treatmentShares } : {}),
  }
}

function termsOf(fit: CalibrationFit): UncertaintyTerms {
  return {
    plantingYearSd: fit.terms.plantingYearSd.value,
    siteSd: fit.terms.siteSd.value,
    clumpingDispersion: fit.terms.clumpingDispersion.value,
  }
}

function termsStatus(fit: CalibrationFit): ModelVersionView['uncertaintyStatus'] {
  const statuses = Object.values(fit.terms).map((term) => term.status)
  if (statuses.every((status) => status === 'estimated')) return 'estimated'
  return statuses.includes('estimated') ? 'partly_estimated' : 'assumption'
}

function baseView({ model, releasedAt }: ShippedVersion, defaultVersion: string): ModelVersionView {
  return {
    version: model.version,
    series: model.series,
    codename: model.codename,
    kind: 'base',
    parent: null,
    createdAt: releasedAt,
    isDefault: model.version === defaultVersion,
    uncertainty: model.uncertainty,
    uncertaintyStatus: 'assumption',
    fit: null,
  }
}

function calibratedView(
  stored: StoredModelVersion,
  fit: CalibrationFit,
  defaultVersion: string,
  parent: ModelInfo,
): ModelVersionView {
  return {
    version: stored.version,
    series: parent.series,
    codename: parent.codename,
    kind: 'calibrated',
    parent: stored.parent,
    createdAt: stored.createdAt,
    isDefault: stored.version === defaultVersion,
    uncertainty: termsOf(fit),
    uncertaintyStatus: termsStatus(fit),
    fit,
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export function unknownVersion(version: string) {
  return apiError(
    'invalid_model_version',
    { version },
    { details: { model_version: version, suggestion: 'GET /v1/models lists the versions this key may use' } },
  )
}
