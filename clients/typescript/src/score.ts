/**
 * The command-line scorer: `npm run score -- sites.csv --out scored.csv`.
 *
 * Scores every row of a CSV or NDJSON file of sites and writes the input columns followed by
 * survival_1y, survival_3y, survival_5y, top_factor_1y, top_factor_3y, top_factor_5y, error_code
 * (an NDJSON input's period and scenario after those) — the same file whichever way it went: small
 * files through `POST /v1/predict/batch` (in the tier's batch size, written in input order as results
 * come), large ones through a job (upload, wait, download). `--period`/`--scenario` give a climate to
 * the rows that name none, `--default vegetation_control=…` (any of the four treatments) a treatment.
 * A GeoJSON FeatureCollection (`.geojson`: points are predicted, polygons planned) always goes through
 * a job, as the file is, with `--default name=value` (and `--period`, `--scenario`) as query
 * parameters; `--out` by its extension: `.geojson` the results as GeoJSON, `.csv` or `.ndjson` by the
 * features' centres. Ctrl-C leaves `<out>.score-state.json`; rerunning the same command resumes.
 *
 * `score surveys upload plots.csv [--skip-invalid]` is another mode: it stores survey plots
 * (./scoring/survey-upload-command.ts).
 *
 * Environment: SURVIVAL_API_KEY (required), SURVIVAL_API_URL (default http://localhost:8080).
 * Exit codes: 0 every row scored; 1 some rows failed (summary by error code on stderr); 2 usage
 * error; 3 the API refused or failed (the state is kept: rerun to resume); 130 interrupted.
 */
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { Command, CommanderError, InvalidArgumentError } from 'commander'
import {
  createSurvivalClient,
  GEOJSON_JOB_DEFAULTS,
  type GeoJsonJobDefaults,
  TREATMENT_JOB_DEFAULTS,
} from './client.ts'
import { SurvivalApiError } from './errors.ts'
import { scoreByBatches } from './scoring/batch-path.ts'
import { JobEndedError, scoreByJob } from './scoring/job-path.ts'
import { outputFormatOf } from './scoring/output.ts'
import { createProgress } from './scoring/progress.ts'
import {
  type ClimateDefaults,
  checkGeoJson,
  countRows,
  InputError,
  inputFormatOf,
  readColumns,
  type TreatmentDefaults,
  treatmentDefaultsProblem,
} from './scoring/rows.ts'
import type { RunContext, RunOutcome } from './scoring/run.ts'
import { apiFromEnvironment, interruptible, say } from './scoring/session.ts'
import { clearState, inputIdentity, loadState, type ScoreState, statePath } from './scoring/state.ts'
import { surveysMain } from './scoring/survey-upload-command.ts'

const EXIT = { ok: 0, rowsFailed: 1, usage: 2, api: 3, interrupted: 130 } as const
/** Batch path: at most this many batch requests' worth of rows (and at most --batch-threshold rows). */
const BATCH_REQUESTS_MAX = 50

interface Options {
  out: string
  via: 'auto' | 'batch' | 'job'
  batchThreshold: number
  concurrency: number
  poll: number
  progressEvery: number
  restart?: boolean
  period?: string
  scenario?: string
  default: string[]
}

/** The query parameters that take a number; the others are text (the server judges their values). */
const NUMERIC_DEFAULTS = new Set([
  'trees_per_acre',
  'trees_per_hectare',
  'confidence',
  'target_trees_per_acre',
])

/** A command line that cannot run: said in one line, exit 2. */
class UsageError extends Error {}

/**
 * A GeoJSON input's defaults: each `--default name=value`, and `--period`/`--scenario`. An unknown name,
 * a name given twice, an empty value or a density that is not a number is a usage error.
 */
function geoJsonDefaults(pairs: string[], period?: string, scenario?: string): GeoJsonJobDefaults {
  const given = [
    ...flags(pairs),
    ...(period ? [{ pair: `period=${period}`, flag: `--period ${period}` }] : []),
    ...(scenario ? [{ pair: `scenario=${scenario}`, flag: `--scenario ${scenario}` }] : []),
  ]
  return jobDefaults(given, {
    names: GEOJSON_JOB_DEFAULTS,
    takenBy: 'a GeoJSON job takes',
    example: 'planting_method=manual',
  }) as GeoJsonJobDefaults
}

/**
 * A CSV or NDJSON input's defaults: `--default` names a treatment for the rows that name none (the
 * climate has its own flags). A value the API would refuse is a usage error, in the API's words.
 */
function rowDefaults(pairs: string[]): TreatmentDefaults {
  const defaults = jobDefaults(flags(pairs), {
    names: TREATMENT_JOB_DEFAULTS,
    takenBy: 'CSV and NDJSON rows take',
    example: 'vegetation_control=release_2yr',
  })
  const problem = treatmentDefaultsProblem(defaults)
  if (problem) throw new UsageError(`--default: ${problem}`)
  return defaults as TreatmentDefaults
}

const flags = (pairs: string[]) => pairs.map((pair) => ({ pair, flag: `--default ${pair}` }))

/** `name=value` pairs as defaults: an unknown name, one given twice or an empty value is a usage error. */
function jobDefaults(
  given: readonly { pair: string; flag: string }[],
  rules: { names: readonly string[]; takenBy: string; example: string },
): Record<string, string | number> {
  const { names, takenBy, example } = rules
  const defaults: Record<string, string | number> = {}
  for (const { pair, flag } of given) {
    const at = pair.indexOf('=')
    const name = at === -1 ? pair.trim() : pair.slice(0, at).trim()
    const value = at === -1 ? '' : pair.slice(at + 1).trim()
    if (!names.includes(name)) throw new UsageError(`${flag}: not a default ${takenBy} (${names.join(', ')})`)
    if (value === '') throw new UsageError(`${flag}: give it as name=value, e.g. ${example}`)
    if (name in defaults) throw new UsageError(`${flag}: ${name} is given twice`)
    if (NUMERIC_DEFAULTS.has(name) && !Number.isFinite(Number(value)))
      throw new UsageError(`${flag}: ${name} must be a number`)
    defaults[name] = NUMERIC_DEFAULTS.has(name) ? Number(value) : value
  }
  return defaults
}

const nonEmpty = <T extends object>(given: T): T | undefined =>
  Object.keys(given).length > 0 ? given : undefined

const positive = (value: string) => {
  const number = Number(value)
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('must be a positive number')
  return number
}

function program(): Command {
  return new Command('score')
    .description(
      'Score the sites of a CSV, NDJSON or GeoJSON file with the Survival Prediction API.\n' +
        'Key from SURVIVAL_API_KEY; API from SURVIVAL_API_URL (default http://localhost:8080).',
    )
    .argument(
      '<input>',
      'CSV with latitude,longitude,species_code,planting_method (+ horizons, id, period, scenario, ' +
        'vegetation_control, animal_protection, stock_type, shade, others), ' +
        '.ndjson, or a .geojson FeatureCollection (points predicted, polygons planned; always a job)',
    )
    .requiredOption(
      '-o, --out <file>',
      'where to write the scored rows (.csv, .ndjson / .jsonl for NDJSON, or .geojson for a GeoJSON input)',
    )
    .option(
      '--via <path>',
      'auto, batch (POST /v1/predict/batch) or job (POST /v1/jobs)',
      (value) => {
        if (!['auto', 'batch', 'job'].includes(value))
          throw new InvalidArgumentError('must be auto, batch or job')
        return value
      },
      'auto',
    )
    .option(
      '--batch-threshold <rows>',
      'auto: files up to this many rows go through batch calls',
      positive,
      5000,
    )
    .option('--concurrency <n>', 'batch calls in flight at once', positive, 4)
    .option('--poll <seconds>', 'job status poll interval', positive, 1)
    .option('--progress-every <seconds>', 'progress line interval when stderr is not a terminal', positive, 2)
    .option(
      '--period <period>',
      'climate period for the rows that name no climate: 2011-2040, 2041-2070, 2071-2100 (1991_2020: today)',
    )
    .option(
      '--scenario <scenario>',
      'emission scenario for the rows that name no climate: ssp245, ssp370, ssp585',
    )
    .option(
      '--default <name=value>',
      `the value of a field the rows or features lack, their own winning (repeatable). GeoJSON input: ${GEOJSON_JOB_DEFAULTS.join(', ')}; CSV and NDJSON: ${TREATMENT_JOB_DEFAULTS.join(', ')}`,
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--restart', 'ignore a saved resume state and start over')
    .addHelpText(
      'after',
      '\nCtrl-C keeps <out>.score-state.json; rerun the same command to resume (a job is re-attached\n' +
        'and its download continued; batch scoring carries on after the last complete row).\n' +
        'Exit codes: 0 all rows scored, 1 some rows failed, 2 usage error, 3 API error (resumable), 130 interrupted.\n' +
        '\nField surveys: score surveys upload <file> [--skip-invalid] [--refused-out <csv>] stores the plots of a\n' +
        '.csv, .ndjson/.jsonl or .geojson/.json file (optionally .gz) with POST /v1/surveys/uploads, showing\n' +
        'its progress; see score surveys upload --help. (A file named "surveys" to score: ./surveys.)',
    )
    .exitOverride()
}

/** The summary line(s); `noun` is what was scored: rows, or a GeoJSON input's features. */
function summary(outcome: RunOutcome, out: string, noun: 'row' | 'feature' = 'row'): number {
  if (outcome.failed === 0) {
    say(`Scored ${outcome.rows.toLocaleString('en-US')} ${noun}s → ${out}`)
    return EXIT.ok
  }
  const codes = Object.entries(outcome.errorsByCode)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([code, count]) => `${code} ${count.toLocaleString('en-US')}`)
  const failed = outcome.failed === 1 ? noun : `${noun}s`
  say(`${outcome.failed.toLocaleString('en-US')} ${failed} failed: ${codes.join(', ')}`)
  say(`Wrote ${outcome.rows.toLocaleString('en-US')} ${noun}s → ${out} (failed ${noun}s have error_code set)`)
  return EXIT.rowsFailed
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'surveys') return surveysMain(argv.slice(1))
  let input: string
  let options: Options
  try {
    const command = program().parse(argv, { from: 'user' })
    input = command.args[0] as string
    options = command.opts<Options>()
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage
    throw error
  }
  const api = apiFromEnvironment()
  if (!api) return EXIT.usage
  const { apiKey, baseUrl } = api
  if (!existsSync(input)) {
    say(`score: ${input} does not exist`)
    return EXIT.usage
  }
  if (!existsSync(dirname(resolve(options.out)))) {
    say(`score: the folder of ${options.out} does not exist`)
    return EXIT.usage
  }
  const inputFormat = inputFormatOf(input)
  const outFormat = outputFormatOf(options.out)
  const geojson = inputFormat === 'geojson'
  let defaults: GeoJsonJobDefaults | undefined
  let treatments: TreatmentDefaults | undefined
  try {
    if (outFormat === 'geojson' && !geojson)
      throw new UsageError(
        `--out ${options.out}: GeoJSON results are a GeoJSON input's; write a CSV or NDJSON input to .csv or .ndjson`,
      )
    if (geojson && options.via === 'batch')
      throw new UsageError(
        'GeoJSON input goes through a job (its polygons are stocking plans): not --via batch',
      )
    if (geojson) defaults = nonEmpty(geoJsonDefaults(options.default, options.period, options.scenario))
    else treatments = nonEmpty(rowDefaults(options.default))
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    say(`score: ${error.message}`)
    return EXIT.usage
  }

  const interruptedWords = () =>
    say(
      existsSync(statePath(options.out))
        ? `Interrupted. Rerun the same command to resume (state in ${statePath(options.out)}).`
        : 'Interrupted before anything was saved; rerun to start again.',
    )
  const { signal, release } = interruptible(EXIT.interrupted, interruptedWords)

  // A row's own climate wins; whether these name a known future is the server's question (invalid_climate).
  // A GeoJSON input sends them as defaults instead.
  const climate: ClimateDefaults | undefined =
    !geojson && (options.period || options.scenario)
      ? { period: options.period, scenario: options.scenario }
      : undefined
  const identity = inputIdentity(input)
  const saved = options.restart
    ? null
    : loadState(options.out, identity, outFormat, climate, defaults ?? treatments)
  const fresh = (via: ScoreState['via']): ScoreState => ({
    version: 1,
    input: identity,
    out_format: outFormat,
    base_url: baseUrl,
    via,
    ...(climate ? { climate } : {}),
    ...(defaults || treatments ? { defaults: defaults ?? treatments } : {}),
    bytes_written: 0,
    rows_written: 0,
    errors_by_code: {},
  })
  const client = createSurvivalClient({ baseUrl: saved?.base_url ?? baseUrl, apiKey })
  const run = (state: ScoreState): RunContext => ({
    client,
    input,
    inputFormat,
    climate,
    defaults,
    treatments,
    out: options.out,
    outFormat,
    state,
    progress: createProgress({ everyMs: options.progressEvery * 1000 }),
    signal,
    note: say,
  })
  /** The end of a run that was not refused: interrupted (state kept), or the summary. */
  const finish = (outcome: RunOutcome, noun: 'row' | 'feature'): number => {
    if (outcome.interrupted) {
      interruptedWords()
      return EXIT.interrupted
    }
    clearState(options.out)
    return summary(outcome, options.out, noun)
  }

  try {
    if (geojson) {
      // Always a job, the file as it is: nothing to count, and no batch size to know.
      await checkGeoJson(input)
      if (defaults)
        say(
          `Defaults for the features that lack them: ${Object.entries(defaults)
            .map(([name, value]) => `${name}=${value}`)
            .join(', ')}`,
        )
      const outcome = await scoreByJob(run(saved ?? fresh('job')), { pollMs: options.poll * 1000 })
      return finish(outcome, 'feature')
    }
    await readColumns(input, inputFormat) // a header without the required columns is a usage error
    if (treatments)
      say(
        `Rows that name none: ${Object.entries(treatments)
          .map(([name, value]) => `${name}=${value}`)
          .join(', ')}`,
      )
    if (climate)
      say(
        `Rows that name no climate: ${[climate.period && `period ${climate.period}`, climate.scenario && `scenario ${climate.scenario}`].filter(Boolean).join(', ')}`,
      )
    const usage = await client.usage({ signal: signal })
    const batchSize = usage.limits.batch_size
    const threshold = Math.min(options.batchThreshold, BATCH_REQUESTS_MAX * batchSize)
    // Counted only as far as the choice needs: a job reports its own total.
    const limited = options.via === 'auto'
    const counted = await countRows(input, inputFormat, limited ? threshold + 1 : undefined)
    let via: ScoreState['via'] =
      saved?.via ?? (options.via === 'auto' ? (counted <= threshold ? 'batch' : 'job') : options.via)

    let outcome: RunOutcome | null = null
    if (via === 'job') {
      try {
        outcome = await scoreByJob(run(saved ?? fresh('job')), { pollMs: options.poll * 1000 })
      } catch (error) {
        // A tier without jobs: score through batch calls instead, unless the job path was asked for.
        if (
          !(error instanceof SurvivalApiError && error.code === 'jobs_not_in_tier') ||
          options.via === 'job'
        )
          throw error
        say(`This key's tier (${usage.key.tier}) has no jobs; scoring through batch calls`)
        via = 'batch'
      }
    }
    if (via === 'batch') {
      const totalRows = limited && counted > threshold ? await countRows(input, inputFormat) : counted
      const state = saved?.via === 'batch' ? saved : fresh('batch')
      const needed = Math.ceil((totalRows - state.rows_written) / batchSize)
      const remaining = usage.today.remaining
      if (remaining !== null && needed > remaining) {
        say(
          `score: ${(totalRows - state.rows_written).toLocaleString('en-US')} rows in batches of ${batchSize} need ` +
            `${needed} requests; ${remaining} left today (resets at ${usage.today.resets_at})`,
        )
        return EXIT.api
      }
      outcome = await scoreByBatches(run(state), { batchSize, totalRows, concurrency: options.concurrency })
    }
    if (!outcome) throw new Error('no scoring path ran')
    return finish(outcome, 'row')
  } catch (error) {
    if (signal.aborted) {
      say('Interrupted before anything was saved; rerun to start again.')
      return EXIT.interrupted
    }
    if (error instanceof InputError) {
      say(`score: ${input}: ${error.message}`)
      return EXIT.usage
    }
    if (error instanceof JobEndedError) {
      clearState(options.out)
      say(`score: ${error.message}; nothing was written. Rerun to submit a new job.`)
      return EXIT.api
    }
    if (error instanceof SurvivalApiError) {
      const where = error.requestId ? `, request ${error.requestId}` : ''
      say(`score: ${error.message} (${error.code}${error.status ? `, HTTP ${error.status}` : ''}${where})`)
      if (error.details) say(`  details: ${JSON.stringify(error.details)}`)
      if (geojson && error.code === 'jobs_not_in_tier')
        say('  GeoJSON input is scored through a job only: use a mycel or hypha key.')
      if (existsSync(statePath(options.out))) say('Progress is saved: rerun the same command to resume.')
      return EXIT.api
    }
    throw error
  } finally {
    release()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = await main(process.argv.slice(2))
  } catch (error) {
    // Not the API's doing (a file that cannot be written…): said in one line, exit 3 like an API failure.
    say(`score: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = EXIT.api
  }
}
