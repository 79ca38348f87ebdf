import { ModelRegistry } from '../domain/models/model-registry.ts'
import type { ModelVersionStore } from '../domain/ports/model-versions.ts'
import { SPECIES } from '../domain/species.ts'
import { loadBaseVersions } from '../model/base-versions.ts'
import type { SurvivalModel } from '../types.ts'

/**
 * The shipped base versions, or only the model a test hands in (released at the epoch), and the
 * accounts' calibrated versions in `store`.
 */
export function modelRegistry(model?: SurvivalModel, store: ModelVersionStore | null = null): ModelRegistry {
  if (model) return new ModelRegistry([{ model, releasedAt: new Date(0) }], model.version, store)
  const shipped = loadBaseVersions(SPECIES)
  return new ModelRegistry(shipped.versions, shipped.current, store)
}
