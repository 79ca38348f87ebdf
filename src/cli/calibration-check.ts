import { parseArgs } from 'node:util'
import { crossValidate } from '../domain/calibration/cross-validation.ts'
import { fitOffsets, MIN_YEARS, type OffsetFit } from '../domain/calibration/offset-fit.ts'
import {
  BASE_TERMS,
  CONSTANT_DISPERSION,
  calibrationSurvey,
  SIX_YEARS,
  TRUE_DISPERSION,
  TRUE_OFFSETS,
  TRUE_SITE_SD,
  TRUE_YEAR_SD,
  WANTED,
} from '../seed/calibration-surveys.ts'
import { createRandom, truthKey } from '../seed/survey-simulation.ts'

/**
 * How well the calibration fit recovers a stated truth, by simulation: `npm run calibration:check`.
 * Data sets of about 300 plots (src/seed/calibration-surveys.ts: Douglas-fir by hand −0.6, ponderosa
 * pine by drone +0.4, every other 0; planting-year SD 0.8, site SD 0.5, counts clumped by one
 * dispersion φ = 2 on every plot, so each variance term has one true value) are fitted one by one; the
 * coverage of the 90 % intervals of the offsets and of the variance terms, the variance terms found,
 * and the out-of-sample log loss against the base are printed. Deterministic for a seed.
 */
const USAGE = `usage: npm run calibration:check -- [--data-sets N] [--cross-validated N] [--years N] [--seed N]
  --data-sets        data sets fitted for coverage and the variance terms (default 200, at most 2000)
  --cross-validated  data sets cross-validated, for each truth (default 30, at most 500)
  --years            planting years the plots are spread over, from 2016 on (default 6, 3 to 30)
  --seed             a whole number (default 1)`

function wholeNumber(text: string | undefined, fallback: number, max: number, name: string, min = 1): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!(Number.isInteger(value) && value >= min && value <= max))
    throw new Error(`--${name} must be a whole number from ${min} to ${max}`)
  return value
}

const percent = (share: number) => `${(100 * share).toFixed(1)} %`
const mean = (values: readonly number[]) => values.reduce((sum, x) => sum + x, 0) / values.length

function coverage(fits: readonly OffsetFit[]) {
  let held = 0
  let total = 0
  let heldShifted = 0
  let shifted = 0
  for (const fit of fits)
    for (const offset of fit.offsets) {
      const truth = TRUE_OFFSETS[truthKey(offset.speciesCode, offset.plantingMethod)] ?? 0
      const inside = offset.interval[0] <= truth && truth <= offset.interval[1]
      total += 1
      held += inside ? 1 : 0
      if (truth !== 0) {
        shifted += 1
        heldShifted += inside ? 1 : 0
      }
    }
  return { all: held / total, shifted: heldShifted / shifted }
}

const TRUE_TERMS = {
  yearVariance: TRUE_YEAR_SD ** 2,
  siteVariance: TRUE_SITE_SD ** 2,
  clumping: TRUE_DISPERSION,
} as const

/** The share of fits whose interval of `term` holds its truth (a term kept as an assumption does not). */
function termCoverage(fits: readonly OffsetFit[], term: keyof typeof TRUE_TERMS): number {
  const truth = TRUE_TERMS[term]
  const held = fits.filter((fit) => {
    const interval = fit[term].interval
    return interval !== null && interval[0] <= truth && truth <= interval[1]
  })
  return held.length / fits.length
}

function main(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-sets': { type: 'string' },
      years: { type: 'string' },
      'cross-validated': { type: 'string' },
      seed: { type: 'string' },
    },
  })
  const dataSets = wholeNumber(values['data-sets'], 200, 2000, 'data-sets')
  const yearCount = wholeNumber(values.years, SIX_YEARS.length, 30, 'years', MIN_YEARS)
  const years = Array.from({ length: yearCount }, (_, i) => (SIX_YEARS[0] as number) + i)
  const crossValidated = wholeNumber(values['cross-validated'], 30, 500, 'cross-validated')
  const seed = wholeNumber(values.seed, 1, 2 ** 31, 'seed')
  const random = createRandom(seed)

  const started = performance.now()
  const fits = Array.from({ length: dataSets }, () =>
    fitOffsets(calibrationSurvey(random, years, TRUE_OFFSETS, CONSTANT_DISPERSION), WANTED, BASE_TERMS, 0.9),
  )
  const held = coverage(fits)
  const offsetOf = (species: string, method: string) =>
    mean(
      fits.map(
        (fit) =>
          fit.offsets.find((o) => o.speciesCode === species && o.plantingMethod === method)?.offset as number,
      ),
    )
  console.log(
    `${dataSets} data sets of ~300 plots over ${yearCount} planting years (seed ${seed}), ${((performance.now() - started) / dataSets).toFixed(0)} ms a fit`,
  )
  console.log(
    `  90 % intervals of the offsets hold the truth: ${percent(held.all)} of all, ${percent(held.shifted)} of the two shifted`,
  )
  console.log(
    `  90 % intervals of the variance terms hold the truth: planting year ${percent(termCoverage(fits, 'yearVariance'))}, site ${percent(termCoverage(fits, 'siteVariance'))}, clumping ${percent(termCoverage(fits, 'clumping'))}`,
  )
  console.log(
    `  mean offsets: PSME manual ${offsetOf('PSME', 'manual').toFixed(3)} (truth −0.6), PIPO drone ${offsetOf('PIPO', 'drone_seeded').toFixed(3)} (+0.4), TSHE manual ${offsetOf('TSHE', 'manual').toFixed(3)} (0)`,
  )
  console.log(
    `  mean variance terms: planting year ${mean(fits.map((f) => f.yearVariance.value)).toFixed(3)} (truth ${TRUE_TERMS.yearVariance.toFixed(2)}), site ${mean(fits.map((f) => f.siteVariance.value)).toFixed(3)} (${TRUE_TERMS.siteVariance.toFixed(2)}), clumping ${mean(fits.map((f) => f.clumping.value)).toFixed(2)} (${TRUE_TERMS.clumping})`,
  )
  for (const [name, offsets] of [
    ['the truth differs from the base', TRUE_OFFSETS],
    ['the truth is the base', {}],
  ] as const) {
    const runs = Array.from({ length: crossValidated }, () =>
      crossValidate(calibrationSurvey(random, years, offsets, CONSTANT_DISPERSION), WANTED, BASE_TERMS),
    )
    const ratio = mean(runs.map((cv) => cv.calibrated.logLoss / cv.base.logLoss))
    console.log(
      `  5-fold cross-validation where ${name}: the calibration's log loss below the base's in ${runs.filter((cv) => cv.beatsBase).length} of ${crossValidated}; calibrated ÷ base ${ratio.toFixed(4)} on average`,
    )
  }
}

try {
  main(process.argv.slice(2))
} catch (error) {
  console.error(`calibration:check: ${(error as Error).message}\n${USAGE}`)
  process.exitCode = 2
}
