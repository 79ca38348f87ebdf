import type { AppliedEffect, AppliedTreatments, TreatmentCatalogueEffect } from '../domain/treatment-types.ts'
import { TREATMENT_NAMES, TREATMENT_VALUES } from '../domain/treatment-values.ts'
import type { Treatments } from '../domain/treatments.ts'
import type { HorizonPrediction } from '../types.ts'

/*
 * The `treatments` block of /v1 answers (docs/treatments.md; schema/openapi.yaml AppliedTreatments):
 * the values asked for, each effect as the model applies it (its odds ratio, share and status), and,
 * for a prediction, what the treatments changed at each horizon: the untreated survival, and the
 * changed factors' contributions beside the untreated ones. Neither the treated survival (the
 * horizon's own, in `predictions`) nor the treatments acting on a factor (the effects' `factors`) is
 * repeated. What an effect rests on (the reference's figure, basis, sources and note) is listed once,
 * by `GET /v1/treatments` under the effect's id, rather than in every answer.
 */

function effectJson(e: AppliedEffect) {
  return {
    treatment: e.treatment,
    value: e.value,
    effect_id: e.effectId,
    factors: e.factors,
    odds_ratio: e.oddsRatio,
    odds_ratio_range: e.oddsRatioRange,
    reduction: e.reduction,
    reduction_range: e.reductionRange,
    reduction_sd: e.reductionSd,
    share_from: e.shareFrom,
    status: e.status,
  }
}

/** What was asked for and what each treatment rests on (the same for every answer with them). */
export function appliedTreatmentsJson(t: AppliedTreatments) {
  return {
    vegetation_control: t.values.vegetation_control,
    animal_protection: t.values.animal_protection,
    stock_type: t.values.stock_type,
    shade: t.values.shade,
    data_version: t.dataVersion,
    effects: t.effects.map(effectJson),
  }
}

function horizonTreatmentJson(h: HorizonPrediction) {
  const t = h.treatment
  if (!t) throw new Error('a treated prediction has a horizon without its treatment')
  return {
    horizon_years: h.horizonYears,
    untreated_survival_probability: t.untreatedSurvivalProbability,
    effect_sd: t.effectSd,
    factors: t.factors.map((f) => ({
      key: f.key,
      factor: f.factor,
      contribution: f.contribution,
      untreated_contribution: f.untreatedContribution,
    })),
  }
}

/** A prediction's block: the applied treatments, and per horizon what they changed. */
export function predictionTreatmentsJson(t: AppliedTreatments, horizons: readonly HorizonPrediction[]) {
  return { ...appliedTreatmentsJson(t), horizons: horizons.map(horizonTreatmentJson) }
}

function catalogueEffectJson(e: TreatmentCatalogueEffect) {
  const { kind, value, range, horizonYears } = e.figure
  return {
    id: e.id,
    treatment: e.treatment,
    values: e.values,
    factors: e.factors,
    figure: { kind, value, range, horizon_years: horizonYears },
    odds_ratio: e.oddsRatio,
    odds_ratio_range: e.oddsRatioRange,
    reduction: e.reduction,
    reduction_range: e.reductionRange,
    reduction_sd: e.reductionSd,
    status: e.status,
    drone_seeding: e.droneSeeding,
    basis: e.basis,
    sources: e.sources,
    note: e.note,
  }
}

/** `GET /v1/treatments`: each treatment with its values, and every effect with what it rests on. */
export function treatmentCatalogueJson(t: Treatments) {
  return {
    data_version: t.dataVersion,
    treatments: TREATMENT_NAMES.map((name) => ({ name, values: TREATMENT_VALUES[name] })),
    effects: t.catalogue.map(catalogueEffectJson),
  }
}
