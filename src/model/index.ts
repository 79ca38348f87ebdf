export { type ModelArtifact, parseArtifact, readArtifact } from './artifact.ts'
export { createSurvivalModel } from './evaluator.ts'
export { loadSurvivalModel } from './loader.ts'
export { logit, sigmoid } from './logistic.ts'
