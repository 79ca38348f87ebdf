import type { TreatmentEffect } from '../types.ts'
import type { TreatmentName } from './treatment-values.ts'

/* What answers, the catalogue and calibrations say of the treatments' effects (docs/treatments.md). */

export type EvidenceStatus = 'published' | 'synthesis' | 'assumption'

export interface TreatmentSource {
  title: string
  publisher: string | null
  year: number | null
  url: string | null
}

/** How the model reads an effect, and what it rests on: the same in an answer and in the catalogue. */
export interface EffectReading {
  /** Model factor keys it acts on. */
  factors: readonly string[]
  /** The reference's figure: an odds ratio or percentage points of 5-year survival, with its range. */
  figure: { kind: 'odds_ratio' | 'percentage_points'; value: number; range: readonly [number, number] }
  /** The figure as an odds ratio where the factor weighs its anchor, with the range's ends. */
  oddsRatio: number
  oddsRatioRange: readonly [number, number]
  /** Share of the factors' hand-planting penalty removed, its range's ends and its SD. */
  reduction: number
  reductionRange: readonly [number, number]
  reductionSd: number
  /** The reference entries it rests on, and their sources. */
  basis: readonly string[]
  sources: readonly TreatmentSource[]
  note: string
}

/** One treatment of a request with an effect, as the answer describes it. */
export interface AppliedEffect extends EffectReading {
  treatment: TreatmentName
  value: string
  /** The effect's id in data/treatments.json. */
  effectId: string
  /**
   * Where the share comes from: the reference's figure, or the posterior of the model version's
   * calibration where its surveys informed the effect (`reduction`, its range and SD are then those).
   */
  shareFrom: 'reference' | 'calibration'
  /** The status of the effect for this planting method (drone seeding: an assumption). */
  status: EvidenceStatus
}

/** One effect of data/treatments.json as `GET /v1/treatments` lists it: what it is, rests on and cites. */
export interface TreatmentCatalogueEffect extends EffectReading {
  id: string
  treatment: TreatmentName
  values: readonly string[]
  figure: EffectReading['figure'] & { horizonYears: number }
  /** For hand planting; drone seeding's is `droneSeeding.status` where it applies. */
  status: EvidenceStatus
  droneSeeding: { applies: true; status: EvidenceStatus; note: string } | { applies: false; reason: string }
}

/** A request's treatments resolved for one planting method. */
export interface AppliedTreatments {
  /** The value of each treatment as asked for; null where the request named none. */
  values: Readonly<Record<TreatmentName, string | null>>
  /** The treatments with an effect, in TREATMENT_NAMES order. */
  effects: readonly AppliedEffect[]
  /** What the model applies (src/model/treatments.ts). */
  modelEffects: readonly TreatmentEffect[]
  /** `treatments-` and 12 hex digits of data/treatments.json's SHA-256. */
  dataVersion: string
}

/** One effect of data/treatments.json by its id: the share r it gives (mean, SD) and what it names. */
export interface EffectReference {
  treatment: TreatmentName
  values: readonly string[]
  factors: readonly string[]
  status: EvidenceStatus
  mean: number
  sd: number
}
