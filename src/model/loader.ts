import type { Species, SurvivalModel } from '../types.ts'
import { DEFAULT_ARTIFACT_URL, readArtifact } from './artifact.ts'
import { createSurvivalModel } from './evaluator.ts'

/**
 * Reads and validates a model artifact (default: the bundled mycel 0.2) and prepares it for
 * predicting the species of `catalogue`.
 */
export function loadSurvivalModel(
  catalogue: readonly Species[],
  artifactPath: string | URL = DEFAULT_ARTIFACT_URL,
): SurvivalModel {
  return createSurvivalModel(readArtifact(artifactPath), catalogue)
}
