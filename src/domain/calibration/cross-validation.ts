import { logit, sigmoid } from '../../stats/logistic.ts'
import type { PlantingMethod } from '../../types.ts'
import type { EffectPrior } from './effect-design.ts'
import { type BaseTerms, type CalibrationPlot, canonicalOrder, fitOffsets } from './offset-fit.ts'

/*
 * Whether a calibration predicts better on plots its fit did not see: k-fold cross-validation by plot.
 * The plots, in their canonical order, go to fold i mod k (so the folds are the same for the same
 * plots, and each species × method is spread over them); each fold is held out in turn, the offsets
 * fitted on the rest, and the held-out plots scored by the base prediction pᵢ and by the calibrated
 * one, expit(logit pᵢ + δ_g + Σₖ sᵢₖ Δₖ) (the treatment effects' moves, ./effect-fit.ts): the Brier score and the log loss per tree, as the survey report's.
 */

export const CROSS_VALIDATION_FOLDS = 5

export interface Scores {
  brier: number
  logLoss: number
}

export interface CrossValidation {
  folds: number
  /** Plots and trees scored: every plot, once. */
  plots: number
  trees: number
  base: Scores
  calibrated: Scores
  /** The calibrated version's log loss is below the base's out of sample. */
  beatsBase: boolean
  /** The plots in canonical order, and each one's calibrated prediction from the fold that held it out. */
  heldOut: { plots: CalibrationPlot[]; calibrated: Float64Array }
}

/** Adds one plot's Brier and log-loss sums (over its trees) at probability p. */
function score(sums: { brier: number; logLoss: number }, planted: number, alive: number, p: number) {
  sums.brier += alive * (1 - p) ** 2 + (planted - alive) * p ** 2
  sums.logLoss -= alive * Math.log(p) + (planted - alive) * Math.log1p(-p)
}

export function crossValidate(
  plots: readonly CalibrationPlot[],
  wanted: readonly { speciesCode: string; plantingMethod: PlantingMethod }[],
  base: BaseTerms,
  folds = CROSS_VALIDATION_FOLDS,
  /** Called after each fold, with the folds done. */
  onFold: (done: number) => void = () => {},
  /** The treatment effects' priors (./effect-fit.ts): a held-out plot's effects move it as the fold's fit says. */
  priors: ReadonlyMap<string, EffectPrior> = new Map(),
): CrossValidation {
  if (!(Number.isInteger(folds) && folds >= 2))
    throw new RangeError(`folds must be a whole number ≥ 2, got ${folds}`)
  if (plots.length < folds)
    throw new RangeError(`${folds}-fold cross-validation needs at least ${folds} plots`)
  const ordered = canonicalOrder(plots)
  const baseSums = { brier: 0, logLoss: 0 }
  const calibratedSums = { brier: 0, logLoss: 0 }
  let trees = 0
  const calibratedHeldOut = new Float64Array(ordered.length)
  for (let fold = 0; fold < folds; fold++) {
    const training = ordered.filter((_, i) => i % folds !== fold)
    const fit = fitOffsets(training, wanted, base, 0.9, priors)
    const offsetOf = new Map(fit.offsets.map((o) => [`${o.speciesCode}/${o.plantingMethod}`, o.offset]))
    const appliedOf = new Map(fit.treatmentEffects.map((e) => [e.id, e.applied]))
    for (let i = fold; i < ordered.length; i += folds) {
      const plot = ordered[i] as CalibrationPlot
      const offset = offsetOf.get(`${plot.speciesCode}/${plot.plantingMethod}`) ?? 0
      score(baseSums, plot.planted, plot.alive, plot.predicted)
      let eta = logit(plot.predicted) + offset
      if (plot.treatmentSlopes)
        for (const [id, slope] of Object.entries(plot.treatmentSlopes))
          eta += slope * (appliedOf.get(id) ?? 0)
      const calibrated = sigmoid(eta)
      calibratedHeldOut[i] = calibrated
      score(calibratedSums, plot.planted, plot.alive, calibrated)
      trees += plot.planted
    }
    onFold(fold + 1)
  }
  const per = ({ brier, logLoss }: { brier: number; logLoss: number }): Scores => ({
    brier: brier / trees,
    logLoss: logLoss / trees,
  })
  const baseScores = per(baseSums)
  const calibrated = per(calibratedSums)
  return {
    folds,
    plots: ordered.length,
    trees,
    base: baseScores,
    calibrated,
    beatsBase: calibrated.logLoss < baseScores.logLoss,
    heldOut: { plots: ordered, calibrated: calibratedHeldOut },
  }
}
