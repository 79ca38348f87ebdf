import { hash } from 'node:crypto'
import type { PlantingMethod, UncertaintyTerms } from '../../types.ts'
import type { SurveyFilter } from '../ports/surveys.ts'
import { calibrationSlope } from '../surveys/calibration-slope.ts'
import { INTERVAL_LEVEL } from '../surveys/quasi-binomial.ts'
import { calibrationInTheLarge } from '../surveys/survey-statistics.ts'
import type { EffectReference } from '../treatment-types.ts'
import { AGE_TREND_LEVEL, type AgeTrend, ageTrend } from './age-trend.ts'
import { CROSS_VALIDATION_FOLDS, crossValidate, type Scores } from './cross-validation.ts'
import { type CalibrationPlot, fitOffsets, MIN_PLOTS, MIN_YEARS, type VarianceTerm } from './offset-fit.ts'
import { type TreatmentEffectFit, treatmentEffectsOf } from './treatment-effects-fit.ts'

/*
 * A calibration, whole: what the fit of ./offset-fit.ts made of an account's plots, and how it fares
 * on plots it did not see (./cross-validation.ts). The fit is the version's content: its id is
 * `<parent>+cal.` and the first 8 hex digits of the SHA-256 of its JSON, so the same plots under the
 * same filter give the same version, and a version's stored text can be checked against its name.
 */

/** Bumped when the fit's method changes, so a new method never reuses an old method's ids. */
export const FIT_METHOD = 'offsets-eb-2'
/** Fewer plots than this cannot be cross-validated in 5 folds with any use. */
export const MIN_CALIBRATION_PLOTS = 10

export interface CalibrationGroupFit {
  speciesCode: string
  plantingMethod: PlantingMethod
  offset: number
  interval: [number, number]
  variance: number
  /** The group's own estimate before pooling; null when no plot informs it. */
  estimate: number | null
  shrinkage: number
  plots: number
  trees: number
}

export interface TermFit {
  /** On the SD scale for the two effects, as the model card states them; φ as it is. */
  value: number
  status: VarianceTerm['status']
  interval: [number, number] | null
}

export interface AgreementScores {
  calibrationInTheLarge: { estimate: number; interval: [number, number] }
  calibrationSlope: { estimate: number; interval: [number, number] } | null
}

/** Everything a calibrated version is; stored as its JSON, never changed. */
export interface CalibrationFit {
  method: typeof FIT_METHOD
  parent: string
  level: number
  data: {
    filter: SurveyFilter
    plots: number
    trees: number
    plantingYears: number[]
    /** Plots the filter kept whose predictions another version made: left out. */
    otherVersionPlots: number
    /** The site data versions the plots' predictions were made from (docs/site-data.md). */
    dataVersions: string[]
  }
  offsets: CalibrationGroupFit[]
  methods: { plantingMethod: PlantingMethod; mean: number; variance: number }[]
  betweenSpeciesVariance: number
  terms: { plantingYearSd: TermFit; siteSd: TermFit; clumpingDispersion: TermFit }
  crossValidation: {
    folds: number
    plots: number
    trees: number
    base: Scores & AgreementScores
    calibrated: Scores & AgreementScores
    beatsBase: boolean
  }
  /** The score test of an age slope on the held-out plots; null when it cannot be computed. */
  ageTrend: AgeTrend | null
  /** The treatment effects the plots carry (./treatment-effects-fit.ts); absent when no plot carries one. */
  treatmentEffects?: TreatmentEffectFit[]
  notes: string[]
  warnings: string[]
}

export interface CalibrationInput {
  parent: { version: string; uncertainty: UncertaintyTerms }
  filter: SurveyFilter
  plots: readonly CalibrationPlot[]
  /** Every species × method the parent predicts. */
  wanted: readonly { speciesCode: string; plantingMethod: PlantingMethod }[]
  otherVersionPlots: number
  /** The site data versions the plots' predictions were made from. */
  dataVersions: readonly string[]
  /** The treatment effects the plots may carry, by id: each one's prior and what it names. */
  treatments?: ReadonlyMap<string, EffectReference>
}

/** Stages of a calibration, for progress: the fit, then each fold. */
export const CALIBRATION_STAGES = 1 + CROSS_VALIDATION_FOLDS

function sdTerm(term: VarianceTerm & { interval?: [number, number] | null }): TermFit {
  return {
    value: Math.sqrt(term.value),
    status: term.status,
    interval: term.interval ? [Math.sqrt(term.interval[0]), Math.sqrt(term.interval[1])] : null,
  }
}

function asIs(term: VarianceTerm & { interval?: [number, number] | null }): TermFit {
  return { value: term.value, status: term.status, interval: term.interval ?? null }
}

function agreement(plots: readonly CalibrationPlot[], predicted?: Float64Array): AgreementScores {
  const observations = predicted
    ? plots.map((plot, i) => ({ ...plot, predicted: predicted[i] as number }))
    : plots
  const large = calibrationInTheLarge(observations)
  const slope = calibrationSlope(observations).fit
  return {
    calibrationInTheLarge: { estimate: large.estimate, interval: large.interval },
    calibrationSlope: slope ? { estimate: slope.slope, interval: slope.slopeInterval } : null,
  }
}

function groupCounts(plots: readonly CalibrationPlot[]) {
  const counts = new Map<string, { plots: number; trees: number }>()
  for (const plot of plots) {
    const key = `${plot.speciesCode}/${plot.plantingMethod}`
    const count = counts.get(key) ?? { plots: 0, trees: 0 }
    count.plots += 1
    count.trees += plot.planted
    counts.set(key, count)
  }
  return counts
}

function termNotes(fit: ReturnType<typeof fitOffsets>, plots: number): string[] {
  const notes: string[] = []
  if (fit.yearVariance.status === 'assumption')
    notes.push(
      `Planting-year SD: the parent's assumption is kept; the plots span ${fit.plantingYears} planting year${fit.plantingYears === 1 ? '' : 's'}, and an estimate needs ${MIN_YEARS}.`,
    )
  if (fit.siteVariance.status === 'assumption')
    notes.push(
      `Site SD and clumping dispersion: the parent's assumptions are kept; ${plots} plots, and an estimate needs ${MIN_PLOTS}.`,
    )
  return notes
}

/**
 * Fits a calibration of `input.parent` to the plots. `onStage(done)` is called as each of the
 * CALIBRATION_STAGES ends. Deterministic: the same plots in any order give the same fit.
 */
export function fitCalibration(
  input: CalibrationInput,
  onStage: (done: number) => void = () => {},
): CalibrationFit {
  if (input.plots.length < MIN_CALIBRATION_PLOTS)
    throw new RangeError(`a calibration needs at least ${MIN_CALIBRATION_PLOTS} plots`)
  const { uncertainty } = input.parent
  const references = input.treatments ?? new Map<string, EffectReference>()
  const fit = fitOffsets(input.plots, input.wanted, uncertainty, INTERVAL_LEVEL, references)
  onStage(1)
  const validation = crossValidate(
    input.plots,
    input.wanted,
    uncertainty,
    CROSS_VALIDATION_FOLDS,
    (done) => onStage(1 + done),
    references,
  )
  const treatmentEffects = treatmentEffectsOf(fit.treatmentEffects, references, INTERVAL_LEVEL)
  const counts = groupCounts(input.plots)
  const trees = input.plots.reduce((sum, plot) => sum + plot.planted, 0)
  const years = [...new Set(input.plots.map((plot) => plot.plantingYear))].sort((a, b) => a - b)
  const warnings: string[] = []
  if (!validation.beatsBase)
    warnings.push(
      `On plots its fit did not see, this calibration predicts no better than ${input.parent.version} (log loss ${validation.calibrated.logLoss.toFixed(4)} against ${validation.base.logLoss.toFixed(4)}): prefer ${input.parent.version}.`,
    )
  const notes = termNotes(fit, input.plots.length)
  const trend = ageTrend(validation.heldOut.plots, validation.heldOut.calibrated, {
    clumping: fit.clumping.value,
    siteVariance: fit.siteVariance.value,
    yearVariance: fit.yearVariance.value,
  })
  if (trend && trend.p < AGE_TREND_LEVEL)
    notes.push(
      `The surveys' survival changes with age differently from the model's (age trend z = ${trend.z.toFixed(2)}, p = ${trend.p.toPrecision(2)}): the offset is the same at every age, so it fits ${trend.z > 0 ? 'older plots too low and younger ones too high' : 'older plots too high and younger ones too low'}. The survey report's age bands show by how much.`,
    )
  if (treatmentEffects.some((effect) => effect.status === 'prior'))
    notes.push(
      `Treatment effects the plots cannot inform keep the reference's values: ${treatmentEffects
        .filter((effect) => effect.status === 'prior')
        .map((effect) => effect.effectId)
        .join(', ')} (each one's note says why).`,
    )
  if (input.otherVersionPlots > 0)
    notes.push(
      `${input.otherVersionPlots} plot${input.otherVersionPlots === 1 ? '' : 's'} the filter kept were predicted by another model version when stored, and were left out.`,
    )
  return {
    method: FIT_METHOD,
    parent: input.parent.version,
    level: INTERVAL_LEVEL,
    data: {
      filter: input.filter,
      plots: input.plots.length,
      trees,
      plantingYears: years,
      otherVersionPlots: input.otherVersionPlots,
      dataVersions: [...input.dataVersions],
    },
    offsets: fit.offsets.map((offset) => {
      const count = counts.get(`${offset.speciesCode}/${offset.plantingMethod}`) ?? { plots: 0, trees: 0 }
      return {
        speciesCode: offset.speciesCode,
        plantingMethod: offset.plantingMethod,
        offset: offset.offset,
        interval: [offset.interval[0], offset.interval[1]],
        variance: offset.variance,
        estimate: offset.estimate,
        shrinkage: offset.shrinkage,
        plots: count.plots,
        trees: count.trees,
      }
    }),
    methods: fit.methods,
    betweenSpeciesVariance: fit.betweenSpeciesVariance,
    terms: {
      plantingYearSd: sdTerm(fit.yearVariance),
      siteSd: sdTerm(fit.siteVariance),
      clumpingDispersion: asIs(fit.clumping),
    },
    crossValidation: {
      folds: validation.folds,
      plots: validation.plots,
      trees: validation.trees,
      base: { ...validation.base, ...agreement(validation.heldOut.plots) },
      calibrated: {
        ...validation.calibrated,
        ...agreement(validation.heldOut.plots, validation.heldOut.calibrated),
      },
      beatsBase: validation.beatsBase,
    },
    ageTrend: trend,
    // Absent, not empty, without treated plots: such a fit's JSON, and so its version id, is as before.
    ...(treatmentEffects.length > 0 ? { treatmentEffects } : {}),
    notes,
    warnings,
  }
}

/** The fit as stored: its JSON, whose SHA-256 names the version. */
export function calibrationText(fit: CalibrationFit): string {
  return JSON.stringify(fit)
}

export function calibrationVersion(parent: string, text: string): string {
  return `${parent}+cal.${hash('sha256', text, 'hex').slice(0, 8)}`
}

/** A calibrated version's name: its parent, and the hash of its content. */
export const CALIBRATED_VERSION = /^(?<parent>[^+\s]+)\+cal\.(?<hash>[0-9a-f]{8})$/
