import type { InformedShare, SurvivalModel } from '../types.ts'
import type { AppliedTreatments } from './treatment-types.ts'

/*
 * Treatments as a model version applies them: a calibrated version whose surveys informed an effect
 * applies that posterior share, and its answers describe the effect so (docs/treatments.md#field-data).
 */

/** Per version's informed shares, per applied treatments: the description that version answers with. */
const describedByShares = new WeakMap<
  ReadonlyMap<string, InformedShare>,
  WeakMap<AppliedTreatments, AppliedTreatments>
>()

/**
 * The treatments as `model` applies them: where its calibration's surveys informed an effect, that
 * effect is described with the share, range and SD the version applies (`shareFrom: 'calibration'`);
 * otherwise, and for a version without informed effects, as resolved. One frozen answer per pair.
 */
export function asAppliedBy(
  model: Pick<SurvivalModel, 'treatmentShares'>,
  applied: AppliedTreatments,
): AppliedTreatments
export function asAppliedBy(
  model: Pick<SurvivalModel, 'treatmentShares'>,
  applied: AppliedTreatments | null,
): AppliedTreatments | null
export function asAppliedBy(
  model: Pick<SurvivalModel, 'treatmentShares'>,
  applied: AppliedTreatments | null,
): AppliedTreatments | null {
  const shares = model.treatmentShares
  if (!applied || !shares || shares.size === 0) return applied
  let byApplied = describedByShares.get(shares)
  if (!byApplied) {
    byApplied = new WeakMap()
    describedByShares.set(shares, byApplied)
  }
  let described = byApplied.get(applied)
  if (!described) {
    const effects = applied.effects.map((effect) => {
      const share = shares.get(`${effect.treatment}=${effect.value}`)
      return share
        ? Object.freeze({
            ...effect,
            reduction: share.reduction,
            reductionRange: Object.freeze([share.reductionRange[0], share.reductionRange[1]] as const),
            reductionSd: share.reductionSd,
            shareFrom: 'calibration' as const,
          })
        : effect
    })
    described = Object.freeze({ ...applied, effects: Object.freeze(effects) })
    byApplied.set(applied, described)
  }
  return described
}
