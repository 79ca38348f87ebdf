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
 * site effect (SD 0.5) and clumped counts (ρ 0.02), over the stated offsets.
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
): CalibrationPlot[] {
  const plantingYearEffects = Object.fromEntries(years.map((year) => [year, 0.8 * normalDraw(random)]))
  return simulateSurvey(
    random,
    {
      sites: SITES,
      plotsPerSite: 5,
      planted: { min: 20, max: 120 },
      plantingYears: years,
      ageYears: { min: 0.5, max: 6 },
    },
    { offsets, plantingYearEffects, plotEffectSd: 0.5, clumping: 0.02 },
  ).map((plot) => ({ ...plot, plantingYear: Number(plot.plantedOn.slice(0, 4)) }))
}
