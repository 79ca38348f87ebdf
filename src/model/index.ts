export { logit, sigmoid } from '../stats/logistic.ts'
export { type ModelArtifact, parseArtifact, readArtifact } from './artifact.ts'
export { createSurvivalModel } from './evaluator.ts'
export { loadSurvivalModel } from './loader.ts'
