import { once } from 'node:events'
import { createWriteStream, openSync } from 'node:fs'
import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import {
  describeTruth,
  JSON_PLOTS_MAX,
  NO_SHIFT,
  parseTruth,
  SIMULATED_PLOTS_DEFAULT,
  SIMULATED_PLOTS_MAX,
  SIMULATED_PLOTS_MIN,
  SIMULATION_SEED_DEFAULT,
  SIMULATION_SEED_MAX,
  type SimulationOptions,
  SURVEY_FILE_FORMATS,
  type SurveyFileFormat,
  simulatedSurveyPlots,
  simulationWorld,
  surveyFileChunks,
  surveyFileFormatOf,
} from '../seed/simulated-surveys.ts'

/**
 * Survey plots at the synthetic sites drawn from a stated truth, as a file for POST /v1/surveys
 * (docs/surveys.md): `npm run surveys:simulate -- --plots N --out FILE`. The plots are written as they
 * are made; a one-line summary goes to stderr.
 */
const NAME = 'surveys:simulate'
const USAGE = `usage: npm run ${NAME} -- --out FILE|- [--plots N] [--format csv|ndjson|json] [--seed N] [--truth SPECIES:method=shift,YYYY=shift,…]
  --out     the file to write, - for stdout (required)
  --plots   plots to make, ${SIMULATED_PLOTS_MIN} to ${SIMULATED_PLOTS_MAX} (default ${SIMULATED_PLOTS_DEFAULT})
  --format  csv, ndjson or json (a {"plots": [...]} body of POST /v1/surveys, at most ${JSON_PLOTS_MAX} plots);
            default from the extension of --out, csv for stdout
  --seed    a whole number from 0 to ${SIMULATION_SEED_MAX} (default ${SIMULATION_SEED_DEFAULT}); the same seed and options give the same bytes
  --truth   logit shifts of true survival from the model: per species × method (PSME:manual=-0.5)
            and per planting year 2015–2023 (2021=-0.3); absent ones are 0`

/** A bad argument: the message names it. */
class UsageError extends Error {}

interface CliOptions extends SimulationOptions {
  out: string
  format: SurveyFileFormat
}

function wholeNumber(name: string, text: string | undefined, min: number, max: number, fallback: number) {
  if (text === undefined) return fallback
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN
  if (!(value >= min && value <= max))
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${text}"`)
  return value
}

function parseOptions(args: string[]): CliOptions | 'help' {
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        plots: { type: 'string' },
        out: { type: 'string' },
        format: { type: 'string' },
        seed: { type: 'string' },
        truth: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  if (values.help) return 'help'
  const text = (name: string) => values[name] as string | undefined
  const plots = wholeNumber(
    'plots',
    text('plots'),
    SIMULATED_PLOTS_MIN,
    SIMULATED_PLOTS_MAX,
    SIMULATED_PLOTS_DEFAULT,
  )
  const seed = wholeNumber('seed', text('seed'), 0, SIMULATION_SEED_MAX, SIMULATION_SEED_DEFAULT)
  const out = text('out')
  if (out === undefined || out === '') throw new UsageError('--out FILE is required (- for stdout)')
  const formatText = text('format')
  let format: SurveyFileFormat
  if (formatText !== undefined) {
    if (!(SURVEY_FILE_FORMATS as readonly string[]).includes(formatText))
      throw new UsageError(`--format must be ${SURVEY_FILE_FORMATS.join(', ')}, got "${formatText}"`)
    format = formatText as SurveyFileFormat
  } else if (out === '-') format = 'csv'
  else {
    const fromExtension = surveyFileFormatOf(out)
    if (!fromExtension)
      throw new UsageError(
        `--out "${out}" does not end in .csv, .ndjson or .json: name the format with --format`,
      )
    format = fromExtension
  }
  if (format === 'json' && plots > JSON_PLOTS_MAX)
    throw new UsageError(
      `--plots ${plots} is more than one POST /v1/surveys takes (${JSON_PLOTS_MAX}) as --format json: use csv or ndjson`,
    )
  let truth = NO_SHIFT
  const truthText = text('truth')
  if (truthText !== undefined) {
    try {
      truth = parseTruth(truthText)
    } catch (error) {
      throw new UsageError(`--truth ${(error as Error).message}`)
    }
  }
  return { plots, seed, truth, out, format }
}

/** The output, opened at once so that a path that cannot be written is reported before any work. */
function openOutput(out: string): Writable {
  if (out === '-') return process.stdout
  try {
    return createWriteStream(out, { fd: openSync(out, 'w') })
  } catch (error) {
    throw new UsageError(`--out "${out}" cannot be written: ${(error as Error).message}`)
  }
}

async function writeAll(chunks: Iterable<string>, output: Writable): Promise<void> {
  let failure: unknown = null
  const onError = (error: unknown) => {
    failure ??= error
  }
  output.on('error', onError)
  for (const chunk of chunks) {
    if (failure) throw failure
    if (!output.write(chunk)) await once(output, 'drain')
  }
  if (output !== process.stdout) {
    output.end()
    await finished(output)
  }
  if (failure) throw failure
  output.off('error', onError)
}

async function main(): Promise<number> {
  let options: CliOptions | 'help'
  try {
    options = parseOptions(process.argv.slice(2))
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`${NAME}: ${error.message} (--help lists the options)\n`)
    return 2
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const started = performance.now()
  let output: Writable
  try {
    output = openOutput(options.out)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`${NAME}: ${error.message}\n`)
    return 2
  }
  const plots = simulatedSurveyPlots(options, simulationWorld())
  try {
    await writeAll(surveyFileChunks(plots, options.format), output)
  } catch (error) {
    // A reader that stops early (| head) is not a failure of ours.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0
    process.stderr.write(`${NAME}: ${options.out}: ${(error as Error).message}\n`)
    return 1
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  process.stderr.write(
    `${NAME}: ${options.plots} plots written to ${options.out === '-' ? 'stdout' : options.out} (${options.format}) in ${seconds} s; seed ${options.seed}; truth: ${describeTruth(options.truth)}\n`,
  )
  return 0
}

process.exitCode = await main()
