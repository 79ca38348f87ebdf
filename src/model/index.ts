export { type ModelArtifact, parseArtifact, readArtifact } from './artifact.ts'
export { createSurvivalModel } from './evaluator.ts'
export { loadSurvivalModel } from './loader.ts'
export { logit, sigmoid } from './logistic.ts'
export {
  type FactorContribution,
  type FactorDescription,
  HORIZONS,
  type Horizon,
  type HorizonPrediction,
  PLANTING_METHODS,
  type PlantingMethod,
  type SurvivalModel,
} from './types.ts'
