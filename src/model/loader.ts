import { DEFAULT_ARTIFACT_URL, readArtifact } from './artifact.ts'
import { createSurvivalModel } from './evaluator.ts'
import type { SurvivalModel } from './types.ts'

/** Reads and validates a model artifact (default: the bundled mycel 0.2) and prepares it for prediction. */
export function loadSurvivalModel(artifactPath: string | URL = DEFAULT_ARTIFACT_URL): SurvivalModel {
  return createSurvivalModel(readArtifact(artifactPath))
}
