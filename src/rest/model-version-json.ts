import type { AgreementScores, CalibrationFit, TermFit } from '../domain/calibration/calibration-fit.ts'
import type { Scores } from '../domain/calibration/cross-validation.ts'
import type { TreatmentEffectFit } from '../domain/calibration/treatment-effects-fit.ts'
import type { ModelVersionView } from '../domain/models/model-registry.ts'
import type { CalibrationRun } from '../domain/ports/calibration-runs.ts'
import type { SurveyFilter } from '../domain/ports/surveys.ts'

/* Model versions and calibrations under the API contract's names (docs/api.md). */

export function filterJson(filter: SurveyFilter) {
  return {
    species_code: filter.speciesCode ?? null,
    planting_method: filter.plantingMethod ?? null,
    bbox: filter.bbox ?? null,
    surveyed_from: filter.surveyedFrom ?? null,
    surveyed_to: filter.surveyedTo ?? null,
  }
}

const termJson = (term: TermFit) => ({ value: term.value, status: term.status, interval: term.interval })

const scoresJson = (scores: Scores & AgreementScores) => ({
  brier: scores.brier,
  log_loss: scores.logLoss,
  calibration_in_the_large: scores.calibrationInTheLarge,
  calibration_slope: scores.calibrationSlope,
})

const treatmentEffectJson = (effect: TreatmentEffectFit) => ({
  effect_id: effect.effectId,
  treatment: effect.treatment,
  values: effect.values,
  factors: effect.factors,
  evidence: effect.evidence,
  status: effect.status,
  plots: effect.plots,
  prior: effect.prior,
  posterior: effect.posterior,
  moved: effect.moved,
  note: effect.note,
})

export function fitJson(fit: CalibrationFit) {
  const validation = fit.crossValidation
  return {
    method: fit.method,
    interval_level: fit.level,
    surveys: {
      filter: filterJson(fit.data.filter),
      plots: fit.data.plots,
      trees: fit.data.trees,
      planting_years: fit.data.plantingYears,
      other_version_plots: fit.data.otherVersionPlots,
      data_versions: fit.data.dataVersions,
    },
    offsets: fit.offsets.map((group) => ({
      species_code: group.speciesCode,
      planting_method: group.plantingMethod,
      offset: group.offset,
      interval: group.interval,
      own_estimate: group.estimate,
      shrinkage: group.shrinkage,
      plots: group.plots,
      trees: group.trees,
    })),
    method_means: fit.methods.map((method) => ({
      planting_method: method.plantingMethod,
      mean: method.mean,
      sd: Math.sqrt(method.variance),
    })),
    between_species_sd: Math.sqrt(fit.betweenSpeciesVariance),
    terms: {
      planting_year_sd: termJson(fit.terms.plantingYearSd),
      site_sd: termJson(fit.terms.siteSd),
      clumping_dispersion: termJson(fit.terms.clumpingDispersion),
    },
    cross_validation: {
      folds: validation.folds,
      plots: validation.plots,
      trees: validation.trees,
      base: scoresJson(validation.base),
      calibrated: scoresJson(validation.calibrated),
      beats_base: validation.beatsBase,
    },
    age_trend: fit.ageTrend,
    treatment_effects: (fit.treatmentEffects ?? []).map(treatmentEffectJson),
    notes: fit.notes,
    warnings: fit.warnings,
  }
}

/** A model version; a calibrated one with its fit. */
export function modelVersionJson(view: ModelVersionView) {
  return {
    version: view.version,
    series: view.series,
    codename: view.codename,
    kind: view.kind,
    parent: view.parent,
    created_at: view.createdAt.toISOString(),
    default: view.isDefault,
    uncertainty: {
      planting_year_sd: view.uncertainty.plantingYearSd,
      site_sd: view.uncertainty.siteSd,
      clumping_dispersion: view.uncertainty.clumpingDispersion,
      status: view.uncertaintyStatus,
    },
    ...(view.fit ? { fit: fitJson(view.fit) } : {}),
  }
}

/** A model version's path: `+` is sent as %2B, which a query or form decoder would read as a space. */
export function modelVersionPath(version: string): string {
  return `/v1/models/${encodeURIComponent(version)}`
}

/** A calibration as polled; `model` is its version, once it has succeeded. */
export function calibrationRunJson(run: CalibrationRun, model: ModelVersionView | null) {
  return {
    id: run.id,
    status: run.status,
    filter: filterJson(run.filter),
    progress: { stages_done: run.stagesDone, stages: run.stages, plots: run.plots },
    model_version: run.version,
    error: run.error,
    created_at: run.createdAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
    links: {
      self: `/v1/models/calibrations/${run.id}`,
      model: run.version ? modelVersionPath(run.version) : null,
    },
    model: model ? modelVersionJson(model) : null,
  }
}
