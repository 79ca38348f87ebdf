import type { PlotObservation } from '../domain/surveys/survey-statistics.ts'
import { ageInYears } from '../domain/surveys/survival-at-age.ts'
import { logit, sigmoid } from '../stats/logistic.ts'
import type { PlantingMethod } from '../types.ts'
import { createRandom, type RandomSource } from './random.ts'

/**
 * Survey plots drawn from a stated truth, to check the survey report against it: the true survival of a
 * plot is the model's prediction at its age shifted on the logit scale by its species × method offset,
 * its planting year's effect and its own normal effect; the trees alive are then beta-binomial around it
 * (trees on one plot die together). Deterministic for a seed: the same seed, design and truth give the
 * same plots on every machine.
 *
 * The plot effect's spread makes the average survival of plots fall short of expit(logit p + offset)
 * when that is above ½ (and exceed it below): the offset a report recovers is slightly nearer 0.
 */

export { createRandom, type RandomSource }

/** One standard normal draw by Box–Muller (two uniforms per draw; the sine partner is not kept). */
export function normalDraw(random: RandomSource): number {
  const radius = Math.sqrt(-2 * Math.log(1 - random()))
  return radius * Math.cos(2 * Math.PI * random())
}

/** Gamma(shape, 1) by Marsaglia and Tsang; shapes below 1 through Gamma(shape + 1) · U^(1/shape). */
export function gammaDraw(random: RandomSource, shape: number): number {
  if (shape < 1) return gammaDraw(random, shape + 1) * (1 - random()) ** (1 / shape)
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  for (;;) {
    let x: number
    let v: number
    do {
      x = normalDraw(random)
      v = 1 + c * x
    } while (v <= 0)
    v = v * v * v
    if (Math.log(1 - random()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v
  }
}

/** Beta(a, b) as a ratio of gammas. */
export function betaDraw(random: RandomSource, a: number, b: number): number {
  const x = gammaDraw(random, a)
  const y = gammaDraw(random, b)
  // Tiny shapes underflow both to 0; the beta is then all but a coin with heads a / (a + b).
  return x + y > 0 ? x / (x + y) : random() < a / (a + b) ? 1 : 0
}

export function binomialDraw(random: RandomSource, trials: number, probability: number): number {
  let successes = 0
  for (let trial = 0; trial < trials; trial++) if (random() < probability) successes++
  return successes
}

/**
 * Successes of `trials` sharing one Beta-drawn probability with mean `mean` and intra-class correlation
 * `correlation` (0 ≤ ρ < 1): Var = n μ(1 − μ)(1 + (n − 1)ρ), i.e. quasi-binomial dispersion 1 + (n − 1)ρ.
 */
export function betaBinomialDraw(
  random: RandomSource,
  trials: number,
  mean: number,
  correlation: number,
): number {
  if (!(correlation >= 0 && correlation < 1))
    throw new RangeError(`correlation must be in [0, 1), got ${correlation}`)
  // At a mean of 0 or 1 (an offset past what doubles resolve) every tree shares it: there is nothing to clump.
  if (correlation === 0 || mean <= 0 || mean >= 1) return binomialDraw(random, trials, mean)
  const concentration = (1 - correlation) / correlation
  return binomialDraw(random, trials, betaDraw(random, mean * concentration, (1 - mean) * concentration))
}

export function uniformInteger(random: RandomSource, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1))
}

export interface SimulatedSite {
  speciesCode: string
  plantingMethod: PlantingMethod
  /** The model's survival for this site at an age in years (e.g. survivalAtAge of its horizons). */
  predictedAt: (ageYears: number) => number
}

export interface SurveyDesign {
  sites: readonly SimulatedSite[]
  plotsPerSite: number
  /** Trees planted on a plot, drawn uniformly from min to max inclusive. */
  planted: { min: number; max: number }
  /** The planting year of a plot, drawn uniformly from these. */
  plantingYears: readonly number[]
  /** Age at survey, drawn uniformly in years and rounded to whole days. */
  ageYears: { min: number; max: number }
}

export interface SurveyTruth {
  /** Logit shift of true survival from the model, keyed by `truthKey(species, method)`; absent is 0. */
  offsets?: Readonly<Record<string, number>>
  /** Logit shift shared by every plot planted in a year (a dry first summer); absent years are 0. */
  plantingYearEffects?: Readonly<Record<number, number>>
  /** SD of each plot's own normal effect on the logit scale; default 0. */
  plotEffectSd?: number
  /**
   * Intra-plot correlation ρ of the beta-binomial counts, 0 ≤ ρ < 1, the same on every plot; default 0
   * (binomial). A plot of n trees then has dispersion 1 + (n − 1)ρ: larger plots are more clumped.
   */
  clumping?: number
  /**
   * Instead of `clumping`: one quasi-binomial dispersion φ ≥ 1 for every plot, whatever its size (the
   * calibration's model of clumping). A plot of n trees is beta-binomial with ρ = (φ − 1)/(n − 1), so
   * its variance is φ nμ(1 − μ); φ must stay below the fewest trees planted (ρ < 1).
   */
  dispersion?: number
}

export interface SimulatedPlot extends PlotObservation {
  siteIndex: number
  /** YYYY-MM-DD (UTC). */
  plantedOn: string
  surveyedOn: string
  /** The plot's true survival before the counts' clumping: expit(logit predicted + offset + effects). */
  trueSurvival: number
}

export function truthKey(speciesCode: string, plantingMethod: PlantingMethod): string {
  return `${speciesCode}/${plantingMethod}`
}

const DAY_MS = 86_400_000
const DAYS_PER_YEAR = 365.25
/** Plots are planted from 1 February over this many days, the Pacific Northwest's planting season. */
const PLANTING_SEASON_DAYS = 90

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10)

function checkDesign(design: SurveyDesign, truth: SurveyTruth): void {
  const { planted, ageYears, plantingYears, plotsPerSite } = design
  if (
    !(
      Number.isInteger(planted.min) &&
      planted.min >= 1 &&
      Number.isInteger(planted.max) &&
      planted.max >= planted.min
    )
  )
    throw new RangeError(
      `planted range must be whole numbers 1 ≤ min ≤ max, got ${planted.min}–${planted.max}`,
    )
  if (!(ageYears.min >= 0.25 && ageYears.max >= ageYears.min))
    throw new RangeError(`age range must satisfy 0.25 ≤ min ≤ max, got ${ageYears.min}–${ageYears.max}`)
  if (plantingYears.length === 0) throw new RangeError('at least one planting year is needed')
  if (!(Number.isInteger(plotsPerSite) && plotsPerSite >= 0))
    throw new RangeError(`plots per site must be a whole number, got ${plotsPerSite}`)
  if (!((truth.plotEffectSd ?? 0) >= 0)) throw new RangeError('the plot effect SD must be ≥ 0')
  if (truth.dispersion !== undefined) {
    if (truth.clumping !== undefined)
      throw new RangeError('state the clumping as a correlation or as a dispersion, not both')
    if (!(truth.dispersion >= 1 && (truth.dispersion === 1 || truth.dispersion < planted.min)))
      throw new RangeError(
        `the dispersion must be ≥ 1 and below the fewest trees planted (${planted.min}), got ${truth.dispersion}`,
      )
  }
}

/** The beta-binomial ρ of a plot of `trees`: the truth's, or the one giving it the truth's dispersion. */
function correlationOf(truth: SurveyTruth, trees: number): number {
  if (truth.dispersion === undefined) return truth.clumping ?? 0
  return truth.dispersion === 1 ? 0 : (truth.dispersion - 1) / (trees - 1)
}

/** `plotsPerSite` plots for each site, in the order of the sites. */
export function simulateSurvey(
  random: RandomSource,
  design: SurveyDesign,
  truth: SurveyTruth = {},
): SimulatedPlot[] {
  checkDesign(design, truth)
  const plots: SimulatedPlot[] = []
  design.sites.forEach((site, siteIndex) => {
    const offset = truth.offsets?.[truthKey(site.speciesCode, site.plantingMethod)] ?? 0
    for (let plot = 0; plot < design.plotsPerSite; plot++) {
      const year = design.plantingYears[Math.floor(random() * design.plantingYears.length)] as number
      const plantedMs = Date.UTC(year, 1, 1) + Math.floor(random() * PLANTING_SEASON_DAYS) * DAY_MS
      const { min, max } = design.ageYears
      const ageDays = Math.max(1, Math.round((min + random() * (max - min)) * DAYS_PER_YEAR))
      const surveyedMs = plantedMs + ageDays * DAY_MS
      const ageYears = ageInYears(new Date(plantedMs), new Date(surveyedMs))
      const predicted = site.predictedAt(ageYears)
      if (!(predicted > 0 && predicted < 1))
        throw new RangeError(
          `site ${siteIndex}: predicted survival at ${ageYears} years is ${predicted}, not in (0, 1)`,
        )
      const planted = uniformInteger(random, design.planted.min, design.planted.max)
      const plotEffect = (truth.plotEffectSd ?? 0) * normalDraw(random)
      const trueSurvival = sigmoid(
        logit(predicted) + offset + (truth.plantingYearEffects?.[year] ?? 0) + plotEffect,
      )
      plots.push({
        siteIndex,
        speciesCode: site.speciesCode,
        plantingMethod: site.plantingMethod,
        plantedOn: isoDate(plantedMs),
        surveyedOn: isoDate(surveyedMs),
        ageYears,
        planted,
        alive: betaBinomialDraw(random, planted, trueSurvival, correlationOf(truth, planted)),
        predicted,
        trueSurvival,
      })
    }
  })
  return plots
}

/** A simulation from a seed alone, for the CLI and tests. */
export function simulateSurveyFromSeed(
  seed: number,
  design: SurveyDesign,
  truth: SurveyTruth = {},
): SimulatedPlot[] {
  return simulateSurvey(createRandom(seed), design, truth)
}
