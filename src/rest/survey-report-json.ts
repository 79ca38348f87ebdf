import type { VersionedReport } from '../domain/surveys/survey-service.ts'
import type { Interval, SurveyGroup } from '../domain/surveys/survey-statistics.ts'
import { INTERVAL_LEVEL } from '../domain/surveys/survey-statistics.ts'

const interval = ([low, high]: Interval) => ({ low, high })

function groupJson(group: SurveyGroup) {
  return {
    species_code: group.speciesCode,
    planting_method: group.plantingMethod,
    age_band: group.ageBand,
    plots: group.plots,
    trees_planted: group.planted,
    trees_alive: group.alive,
    observed_survival: group.observed,
    observed_interval: interval(group.observedInterval),
    mean_predicted_survival: group.meanPredicted,
    difference: group.difference,
    difference_interval: interval(group.differenceInterval),
    differs: group.differs,
    dispersion: group.dispersion,
    plot_correlation: group.plotCorrelation,
  }
}

/** GET /v1/surveys/report under the contract's names; an empty selection reports zero plots and no statistics. */
export function surveyReportJson({ modelVersion, report }: VersionedReport) {
  if (!report)
    return {
      model_version: modelVersion,
      interval_level: INTERVAL_LEVEL,
      overall: null,
      groups: [],
      scores: null,
      reliability: [],
      notes: ['No plot matches: there is nothing to compare.'],
    }
  const [overall, ...groups] = report.groups
  const slope = report.calibrationSlope
  return {
    model_version: modelVersion,
    interval_level: INTERVAL_LEVEL,
    overall: overall ? groupJson(overall) : null,
    groups: groups.map(groupJson),
    scores: {
      brier: report.brier,
      log_loss: report.logLoss,
      calibration_in_the_large: {
        estimate: report.calibrationInTheLarge.estimate,
        interval: interval(report.calibrationInTheLarge.interval),
      },
      calibration_slope: slope
        ? { estimate: slope.slope, interval: interval(slope.slopeInterval), intercept: slope.intercept }
        : null,
    },
    reliability: report.reliability.map((bin) => ({
      from: bin.from,
      to: bin.to,
      plots: bin.plots,
      trees: bin.trees,
      mean_predicted_survival: bin.meanPredicted,
      observed_survival: bin.observed,
    })),
    notes: report.notes,
  }
}
