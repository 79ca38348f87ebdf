import type { CalibrationPlot } from '../domain/calibration/offset-fit.ts'
import { survivalAtAge } from '../domain/surveys/survival-at-age.ts'
import type { PlantingMethod } from '../types.ts'
import {
  normalDraw,
  type RandomSource,
  type SimulatedSite,
  simulateSurvey,
  truthKey,
} from './survey-simulation.ts'

/**
 * Survey data sets for the calibration's simulations: six species by both methods, five sites each,
 * five plots a site (about 300 plots), a planting-year effect drawn anew for each data set (SD 0.8), a
 * site effect (SD 0.5) and clumped counts, over the stated offsets. The counts are clumped either by a
 * beta-binomial ρ 0.02 on every plot (dispersion 1.4–3.4 as plots grow from 20 to 120 trees), or by
 * one dispersion φ = 2 on every plot: the fit's own model, under which its clumping term has one true
 * value to cover.
 */
export const SPECIES = ['PSME', 'PIPO', 'TSHE', 'THPL', 'ABGR', 'PICO']
const METHODS: readonly PlantingMethod[] = ['manual', 'drone_seeded']
export const WANTED = SPECIES.flatMap((speciesCode) =>
  METHODS.map((plantingMethod) => ({ speciesCode, plantingMethod })),
)
/** The base version's variance terms (mycel 0.2). */
export const BASE_TERMS = { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2 }
/** The truth: Douglas-fir by hand −0.6, ponderosa pine by drone +0.4, every other 0. */
export const TRUE_OFFSETS = { [truthKey('PSME', 'manual')]: -0.6, [truthKey('PIPO', 'drone_seeded')]: 0.4 }
export const SIX_YEARS = [2016, 2017, 2018, 2019, 2020, 2021]
/** The planting-year effects' SD (each data set draws its own) and the site effects' SD. */
export const TRUE_YEAR_SD = 0.8
export const TRUE_SITE_SD = 0.5

/** How a plot's trees die together: one beta-binomial ρ for all plots, or one dispersion φ for all. */
export type Clumping = { correlation: number } | { dispersion: number }
/** ρ 0.02 on every plot: dispersion grows with plot size, from 1.4 (20 trees) to 3.4 (120 trees). */
export const CORRELATED: Clumping = { correlation: 0.02 }
/** φ = 2 on every plot, the base version's assumption: the truth the variance terms are checked on. */
export const TRUE_DISPERSION = 2
export const CONSTANT_DISPERSION: Clumping = { dispersion: TRUE_DISPERSION }

const SITES: SimulatedSite[] = WANTED.flatMap(({ speciesCode, plantingMethod }) =>
  Array.from({ length: 5 }, (_, i) => {
    const drone = plantingMethod === 'drone_seeded' ? 0.25 : 0
    const horizons = { 1: 0.92 - 0.02 * i - drone, 3: 0.82 - 0.03 * i - drone, 5: 0.74 - 0.04 * i - drone }
    return { speciesCode, plantingMethod, predictedAt: (age: number) => survivalAtAge(horizons, age) }
  }),
)

export function calibrationSurvey(
  random: RandomSource,
  years: readonly number[],
  offsets: Readonly<Record<string, number>> = TRUE_OFFSETS,
  clumping: Clumping = CORRELATED,
): CalibrationPlot[] {
  const plantingYearEffects = Object.fromEntries(
    years.map((year) => [year, TRUE_YEAR_SD * normalDraw(random)]),
  )
  return simulateSurvey(
    random,
    {
      sites: SITES,
      plotsPerSite: 5,
      planted: { min: 20, max: 120 },
      plantingYears: years,
      ageYears: { min: 0.5, max: 6 },
    },
    {
      offsets,
      plantingYearEffects,
      plotEffectSd: TRUE_SITE_SD,
      ...('dispersion' in clumping
        ? { dispersion: clumping.dispersion }
        : { clumping: clumping.correlation }),
    },
  ).map((plot) => ({ ...plot, plantingYear: Number(plot.plantedOn.slice(0, 4)) }))
}
