import type { EffectReference, EvidenceStatus } from '../treatment-types.ts'
import { type EffectFit, effectSummary } from './effect-fit.ts'

/*
 * The treatment effects as a calibrated version keeps them (GET /v1/models/{version}): per effect the
 * plots carry, the reference's prior, the posterior the version applies, and how far the data moved
 * it, in prior SDs. An effect the plots cannot inform keeps its prior, and says why.
 */

export interface TreatmentEffectFit {
  /** The effect's id in data/treatments.json, the treatment and values it covers, the factors it acts on. */
  effectId: string
  treatment: string
  values: string[]
  factors: string[]
  /** The reference's status for the effect (published, synthesis or assumption). */
  evidence: EvidenceStatus | null
  /** estimated: the plots informed it; prior: the reference's value is kept. */
  status: 'estimated' | 'prior'
  /** Plots it acted on (its factor active there). */
  plots: number
  /** The share r of the factor's penalty the effect removes: the reference's, with its SD. */
  prior: { mean: number; sd: number }
  /** The share the version applies, its SD and central interval at the fit's level. */
  posterior: { mean: number; sd: number; interval: [low: number, high: number] }
  /** (posterior mean − prior mean) ÷ prior SD. */
  moved: number
  /** Why the prior is kept; null when estimated. */
  note: string | null
}

export function treatmentEffectsOf(
  fits: readonly EffectFit[],
  references: ReadonlyMap<string, EffectReference>,
  level: number,
): TreatmentEffectFit[] {
  return fits.map((fit) => {
    const summary = effectSummary(fit, level)
    const reference = references.get(fit.id)
    return {
      effectId: fit.id,
      treatment: reference?.treatment ?? '',
      values: [...(reference?.values ?? [])],
      factors: [...(reference?.factors ?? [])],
      evidence: reference?.status ?? null,
      status: summary.status,
      plots: summary.plots,
      prior: { mean: summary.priorMean, sd: summary.priorSd },
      posterior: { mean: summary.posteriorMean, sd: summary.posteriorSd, interval: summary.interval },
      moved: summary.moved,
      note: summary.reason,
    }
  })
}
