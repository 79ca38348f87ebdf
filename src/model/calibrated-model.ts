import { sigmoid } from '../stats/logistic.ts'
import type {
  CalibrationShift,
  FactorContribution,
  Horizon,
  HorizonPrediction,
  HorizonTreatment,
  InformedShare,
  PlantingMethod,
  SiteAttributes,
  Species,
  SurvivalModel,
  TreatmentEffect,
  UncertaintyTerms,
} from '../types.ts'

/*
 * A calibrated version: its parent (a base version) with one logit offset per species × method added
 * at every horizon, and its own uncertainty terms. The factors' contributions are the parent's, and
 * the offset goes into the baseline, so baseline + Σ contributions = logit still holds exactly; the
 * `calibration` block says how much of the baseline is the offset. Treatments compose: the parent's
 * treated prediction, with the shares the surveys informed in place of the reference's, is shifted by
 * the offset, and the treatments' SD joins the version's own terms.
 */

export interface CalibratedGroup extends CalibrationShift {
  speciesCode: string
  plantingMethod: PlantingMethod
  /** The offset's variance on the logit scale. */
  variance: number
}

export interface CalibrationParameters {
  version: string
  /** The version's own terms: estimated from the surveys, or the parent's kept. */
  uncertainty: UncertaintyTerms
  /** One entry per species × method the parent predicts. */
  groups: readonly CalibratedGroup[]
  /**
   * Treatment effects the surveys informed, by `treatment=value`: the share and SD the version applies
   * in place of the reference's. Effects not named keep what the request's treatments give.
   */
  treatmentShares?: ReadonlyMap<string, InformedShare>
}

interface PreparedGroup {
  offset: number
  shift: CalibrationShift
  uncertainty: UncertaintyTerms
}

class CalibratedHorizon implements HorizonPrediction {
  readonly horizonYears: Horizon
  readonly survivalProbability: number
  readonly baselineLogOdds: number
  readonly logOdds: number
  readonly uncertainty: UncertaintyTerms
  readonly calibration: CalibrationShift
  readonly treatment?: HorizonTreatment

  constructor(
    private readonly parent: HorizonPrediction,
    group: PreparedGroup,
  ) {
    this.horizonYears = parent.horizonYears
    this.baselineLogOdds = parent.baselineLogOdds + group.offset
    this.logOdds = parent.logOdds + group.offset
    this.survivalProbability = sigmoid(this.logOdds)
    this.uncertainty = group.uncertainty
    this.calibration = group.shift
    const treated = parent.treatment
    if (treated) {
      const untreatedLogOdds = treated.untreatedLogOdds + group.offset
      this.treatment = {
        ...treated,
        untreatedLogOdds,
        untreatedSurvivalProbability: sigmoid(untreatedLogOdds),
        untreatedUncertainty: group.uncertainty,
      }
      if (treated.effectSd > 0)
        this.uncertainty = {
          ...group.uncertainty,
          plantingYearSd: Math.hypot(group.uncertainty.plantingYearSd, treated.effectSd),
        }
    }
  }

  get contributions(): FactorContribution[] {
    return this.parent.contributions
  }

  topContributions(count: number): FactorContribution[] {
    return this.parent.topContributions(count)
  }
}

export function calibratedModel(parent: SurvivalModel, parameters: CalibrationParameters): SurvivalModel {
  const byMethod = new Map<PlantingMethod, Map<string, PreparedGroup>>()
  for (const group of parameters.groups) {
    let bySpecies = byMethod.get(group.plantingMethod)
    if (!bySpecies) {
      bySpecies = new Map()
      byMethod.set(group.plantingMethod, bySpecies)
    }
    const shift: CalibrationShift = Object.freeze({
      offset: group.offset,
      interval: Object.freeze([group.interval[0], group.interval[1]] as const),
      level: group.level,
      plots: group.plots,
      trees: group.trees,
    })
    const uncertainty: UncertaintyTerms = Object.freeze({
      plantingYearSd: Math.sqrt(parameters.uncertainty.plantingYearSd ** 2 + group.variance),
      siteSd: parameters.uncertainty.siteSd,
      clumpingDispersion: parameters.uncertainty.clumpingDispersion,
    })
    bySpecies.set(group.speciesCode, { offset: group.offset, shift, uncertainty })
  }

  const shares = parameters.treatmentShares
  /** One replaced array per array handed in, so the model's cache of compiled treatments still hits. */
  const replaced = new WeakMap<readonly TreatmentEffect[], readonly TreatmentEffect[]>()
  function ownEffects(treatments: readonly TreatmentEffect[]): readonly TreatmentEffect[] {
    if (!shares || shares.size === 0) return treatments
    let own = replaced.get(treatments)
    if (!own) {
      own = Object.freeze(
        treatments.map((effect) => {
          const share = shares.get(`${effect.treatment}=${effect.value}`)
          return share
            ? Object.freeze({ ...effect, reduction: share.reduction, reductionSd: share.reductionSd })
            : effect
        }),
      )
      replaced.set(treatments, own)
    }
    return own
  }

  function predict(
    site: SiteAttributes,
    species: Species,
    method: PlantingMethod,
    horizons?: readonly Horizon[],
    treatments?: readonly TreatmentEffect[],
  ): HorizonPrediction[] {
    const group = byMethod.get(method)?.get(species.code)
    if (!group)
      throw new RangeError(`calibration ${parameters.version} has no offset for ${species.code} ${method}`)
    const predictions = parent.predict(
      site,
      species,
      method,
      horizons,
      treatments ? ownEffects(treatments) : treatments,
    )
    const calibrated = new Array<HorizonPrediction>(predictions.length)
    for (let i = 0; i < predictions.length; i++)
      calibrated[i] = new CalibratedHorizon(predictions[i] as HorizonPrediction, group)
    return calibrated
  }

  return {
    version: parameters.version,
    series: parent.series,
    codename: parent.codename,
    factors: parent.factors,
    uncertainty: Object.freeze({ ...parameters.uncertainty }),
    predict,
    ...(shares && shares.size > 0 ? { treatmentShares: shares } : {}),
  }
}
