import { parseArgs } from 'node:util'
import { crossValidate } from '../domain/calibration/cross-validation.ts'
import { fitOffsets, type OffsetFit } from '../domain/calibration/offset-fit.ts'
import {
  BASE_TERMS,
  calibrationSurvey,
  SIX_YEARS,
  TRUE_OFFSETS,
  WANTED,
} from '../seed/calibration-surveys.ts'
import { createRandom, truthKey } from '../seed/survey-simulation.ts'

/**
 * How well the calibration fit recovers a stated truth, by simulation: `npm run calibration:check`.
 * Data sets of about 300 plots (src/seed/calibration-surveys.ts: Douglas-fir by hand −0.6, ponderosa
 * pine by drone +0.4, every other 0; planting-year SD 0.8, site SD 0.5, clumped counts) are fitted
 * one by one; the coverage of the offsets' 90 % intervals, the variance terms found, and the
 * out-of-sample log loss against the base are printed. Deterministic for a seed.
 */
const USAGE = `usage: npm run calibration:check -- [--data-sets N] [--cross-validated N] [--seed N]
  --data-sets        data sets fitted for coverage and the variance terms (default 200, at most 2000)
  --cross-validated  data sets cross-validated, for each truth (default 30, at most 500)
  --seed             a whole number (default 1)`

function wholeNumber(text: string | undefined, fallback: number, max: number, name: string): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!(Number.isInteger(value) && value >= 1 && value <= max))
    throw new Error(`--${name} must be a whole number from 1 to ${max}`)
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

function main(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-sets': { type: 'string' },
      'cross-validated': { type: 'string' },
      seed: { type: 'string' },
    },
  })
  const dataSets = wholeNumber(values['data-sets'], 200, 2000, 'data-sets')
  const crossValidated = wholeNumber(values['cross-validated'], 30, 500, 'cross-validated')
  const seed = wholeNumber(values.seed, 1, 2 ** 31, 'seed')
  const random = createRandom(seed)

  const started = performance.now()
  const fits = Array.from({ length: dataSets }, () =>
    fitOffsets(calibrationSurvey(random, SIX_YEARS), WANTED, BASE_TERMS, 0.9),
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
    `${dataSets} data sets of ~300 plots over 6 planting years (seed ${seed}), ${((performance.now() - started) / dataSets).toFixed(0)} ms a fit`,
  )
  console.log(
    `  90 % intervals of the offsets hold the truth: ${percent(held.all)} of all, ${percent(held.shifted)} of the two shifted`,
  )
  console.log(
    `  mean offsets: PSME manual ${offsetOf('PSME', 'manual').toFixed(3)} (truth −0.6), PIPO drone ${offsetOf('PIPO', 'drone_seeded').toFixed(3)} (+0.4), TSHE manual ${offsetOf('TSHE', 'manual').toFixed(3)} (0)`,
  )
  console.log(
    `  mean variance terms: planting year ${mean(fits.map((f) => f.yearVariance.value)).toFixed(3)} (truth 0.64), site ${mean(fits.map((f) => f.siteVariance.value)).toFixed(3)} (0.25), clumping ${mean(fits.map((f) => f.clumping.value)).toFixed(2)} (ρ 0.02 on 20–120 trees: 1.4–3.4)`,
  )
  for (const [name, offsets] of [
    ['the truth differs from the base', TRUE_OFFSETS],
    ['the truth is the base', {}],
  ] as const) {
    const runs = Array.from({ length: crossValidated }, () =>
      crossValidate(calibrationSurvey(random, SIX_YEARS, offsets), WANTED, BASE_TERMS),
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
