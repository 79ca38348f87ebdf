import { type Holder, holderActor } from '../holder-actor.ts'
import type { ModelVersionStore } from '../ports/model-versions.ts'
import type { ModelRegistry, ModelVersionView } from './model-registry.ts'

/**
 * PUT /v1/models/default: the version an account's answers use when a request names none. Any version
 * the account may use (a base version, or one of its calibrations); null goes back to the current base
 * version. This process uses the new default at once, every other within the registry's default TTL.
 */
export class DefaultVersions {
  constructor(
    private readonly models: ModelRegistry,
    private readonly store: ModelVersionStore,
    private readonly addressHashKey: string,
  ) {}

  async set(holder: Holder, version: string | null): Promise<ModelVersionView> {
    const { accountId } = holder
    // invalid_model_version for a version the account cannot use, before anything is written.
    if (version !== null) await this.models.resolve(accountId, version)
    await this.store.setDefault(accountId, version, {
      accountId,
      kind: 'model.default_set',
      actor: holderActor(this.addressHashKey, holder),
      details: { version },
    })
    this.models.rememberDefault(accountId, version)
    return this.models.describe(accountId, version ?? this.models.current.version)
  }
}
