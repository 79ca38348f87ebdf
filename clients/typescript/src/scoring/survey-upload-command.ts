/**
 * `npm run score -- surveys upload FILE [--skip-invalid] [--refused-out FILE]`: stores the survey plots
 * of a CSV, NDJSON or GeoJSON file (optionally gzipped) through `POST /v1/surveys/uploads`, the file
 * streamed from disk with its progress on stderr (bytes sent of its size, and a rows/s estimate), then
 * says what was stored and refused, on stdout, with the first 100 refused rows; `--refused-out` writes
 * every refused row as CSV, paging `GET /v1/surveys/uploads/{id}`. The server stores the valid rows all
 * together once it has read the whole file, or nothing.
 *
 * Exit codes: 0 committed (with `--skip-invalid`, refused rows skipped); 1 rows refused, nothing stored;
 * 2 usage error; 3 the API refused or failed (unreadable file, the account's limit, quota, network);
 * 130 interrupted (nothing stored).
 */
import { existsSync, statSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { Command, CommanderError, InvalidArgumentError } from 'commander'
import {
  createSurvivalClient,
  type SurveyRefusedRow,
  type SurveyUpload,
  type SurveyUploadRefusedDetails,
  SurvivalApiError,
} from '../client.ts'
import { amount, createProgress } from './progress.ts'
import { refusedTable, writeRefusedCsv } from './refused-rows.ts'
import { apiFromEnvironment, interruptible, say } from './session.ts'
import { bytesPerRowOf, SURVEY_FILE_EXTENSIONS, type SurveyFile, surveyFileOf } from './survey-file.ts'

const EXIT = { committed: 0, refused: 1, usage: 2, api: 3, interrupted: 130 } as const
/** Refused rows shown on stdout; `--refused-out` has them all. */
const SHOWN_REFUSED = 100

interface Options {
  skipInvalid?: boolean
  refusedOut?: string
  progressEvery: number
}

const print = (line: string) => process.stdout.write(`${line}\n`)
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const count = (value: number) => integer.format(value)
const rows = (value: number) => `${count(value)} ${value === 1 ? 'row' : 'rows'}`

/** `score: message (code, HTTP status, request id)`, and the details, as the scorer says an API failure. */
function sayApiError(error: SurvivalApiError): void {
  const where = error.requestId ? `, request ${error.requestId}` : ''
  say(`score: ${error.message} (${error.code}${error.status ? `, HTTP ${error.status}` : ''}${where})`)
  if (error.details) say(`  details: ${JSON.stringify(error.details)}`)
}

function program(): Command {
  return new Command('score surveys upload')
    .description(
      'Store the survey plots of a file with POST /v1/surveys/uploads: streamed from disk, stored all\n' +
        'together once the server has read it (or nothing), refused rows listed.\n' +
        'Key from SURVIVAL_API_KEY; API from SURVIVAL_API_URL (default http://localhost:8080).',
    )
    .argument(
      '<file>',
      `the plots (docs/surveys.md): by its extension ${SURVEY_FILE_EXTENSIONS} (sent gzipped)`,
    )
    .option(
      '--skip-invalid',
      'store the valid rows and report the refused ones (default: one refused row stores nothing)',
    )
    .option('--refused-out <file>', 'write every refused row to this CSV (row,plot_id,field,code,reason)')
    .option(
      '--progress-every <seconds>',
      'progress line interval when stderr is not a terminal',
      (value) => {
        const number = Number(value)
        if (!Number.isFinite(number) || number <= 0)
          throw new InvalidArgumentError('must be a positive number')
        return number
      },
      2,
    )
    .addHelpText(
      'after',
      '\nProgress (bytes sent of the file, rows/s) goes to stderr; the summary and the first 100 refused rows\n' +
        'to stdout. Exit codes: 0 stored (committed), 1 rows refused and nothing stored (fix them, or\n' +
        '--skip-invalid), 2 usage error, 3 API error (unreadable file, account limit, quota, network),\n' +
        '130 interrupted (nothing stored).',
    )
    .exitOverride()
}

/** `score surveys …`: the one mode is `upload`. */
export async function surveysMain(argv: string[]): Promise<number> {
  const [mode, ...rest] = argv
  if (mode === 'upload') return uploadMain(rest)
  if (mode === '--help' || mode === '-h') return uploadMain(['--help'])
  say(
    `score surveys: ${mode ? `no mode "${mode}"` : 'which mode?'}; the one mode is: score surveys upload FILE`,
  )
  say(
    '  (score surveys upload --help for its options; to score a file named "surveys", give it as ./surveys)',
  )
  return EXIT.usage
}

async function uploadMain(argv: string[]): Promise<number> {
  let file: string
  let options: Options
  try {
    const command = program().parse(argv, { from: 'user' })
    file = command.args[0] as string
    options = command.opts<Options>()
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.committed : EXIT.usage
    throw error
  }
  const api = apiFromEnvironment()
  if (!api) return EXIT.usage
  const kind = surveyFileOf(file)
  if (!kind) {
    say(`score: ${file}: a survey file is ${SURVEY_FILE_EXTENSIONS}`)
    return EXIT.usage
  }
  if (!existsSync(file) || !statSync(file).isFile()) {
    say(`score: ${file} does not exist`)
    return EXIT.usage
  }
  if (options.refusedOut && !existsSync(dirname(resolve(options.refusedOut)))) {
    say(`score: the folder of ${options.refusedOut} does not exist`)
    return EXIT.usage
  }
  const client = createSurvivalClient(api)
  const { signal, release } = interruptible(EXIT.interrupted)
  try {
    return await upload(client, file, kind, options, signal)
  } catch (error) {
    if (signal.aborted) {
      say('Interrupted: the upload was cut short, so nothing was stored.')
      return EXIT.interrupted
    }
    if (error instanceof SurvivalApiError) {
      sayApiError(error)
      return EXIT.api
    }
    throw error
  } finally {
    release()
  }
}

async function upload(
  client: ReturnType<typeof createSurvivalClient>,
  file: string,
  kind: SurveyFile,
  options: Options,
  signal: AbortSignal,
): Promise<number> {
  const size = statSync(file).size
  const bytesPerRow = await bytesPerRowOf(file, kind)
  const about = [
    amount(size, 'bytes'),
    `${kind.format.toUpperCase()}${kind.gzip ? ', gzipped' : ''}`,
    // A CSV's header is a line, not a row.
    ...(bytesPerRow ? [`~${rows(Math.round(size / bytesPerRow) - (kind.format === 'csv' ? 1 : 0))}`] : []),
  ]
  say(
    `Uploading ${basename(file)} (${about.join(', ')})${options.skipInvalid ? ', skipping invalid rows' : ''}`,
  )

  const progress = createProgress({ everyMs: options.progressEvery * 1000 })
  const rowsPerSecond = (_bytes: number, bytesPerSecond: number | null) =>
    bytesPerRow && bytesPerSecond !== null ? `~${count(bytesPerSecond / bytesPerRow)} rows/s` : null
  progress.start('uploading', 'bytes', size, 0, rowsPerSecond)
  const started = Date.now()
  let sent = false
  let result: SurveyUpload
  try {
    result = await client.uploadSurveys(file, {
      contentType: kind.contentType,
      gzip: kind.gzip,
      skipInvalid: options.skipInvalid ?? false,
      signal,
      onProgress: (bytes) => {
        progress.update(bytes)
        if (bytes < size || sent) return
        sent = true
        progress.stop()
        say('Sent; the server is checking and storing the rows…')
      },
    })
  } catch (error) {
    progress.stop()
    if (!(error instanceof SurvivalApiError)) throw error
    const uploadId = typeof error.details?.upload_id === 'string' ? error.details.upload_id : null
    if (error.code === 'survey_upload_refused' && uploadId) {
      refusedSummary(error.details as SurveyUploadRefusedDetails, options)
      await refusedOut(client, uploadId, options, signal)
      return EXIT.refused
    }
    if (!uploadId) throw error
    sayApiError(error)
    say(`Upload ${uploadId}: nothing was stored.`)
    await refusedOut(client, uploadId, options, signal)
    return EXIT.api
  }
  progress.stop()
  const seconds = (Date.now() - started) / 1000
  const pace = seconds > 0 ? `, ${count(result.rows / seconds)} rows/s` : ''
  print(
    `Committed upload ${result.upload_id}: stored ${count(result.stored)} of ${rows(result.rows)}, ` +
      `refused ${count(result.refused_rows)} (${seconds.toFixed(1)} s${pace})`,
  )
  if (result.stored < result.valid_rows)
    print(
      `  ${rows(result.valid_rows - result.stored)} repeated a survey (plot_id, surveyed_on) of the file: kept as last sent`,
    )
  if (result.ignored_columns.length > 0) print(`  ignored columns: ${result.ignored_columns.join(', ')}`)
  showRefused(result.refused, result.refused_rows, options)
  await refusedOut(client, result.upload_id, options, signal)
  return EXIT.committed
}

function refusedSummary(details: SurveyUploadRefusedDetails, options: Options): void {
  const valid = details.rows - details.refused_rows
  print(
    `Refused upload ${details.upload_id}: ${count(details.refused_rows)} of ${rows(details.rows)} refused, nothing stored`,
  )
  showRefused(details.refused, details.refused_rows, options)
  say(
    `score: nothing was stored. Fix the refused rows, or rerun with --skip-invalid to store the ${rows(valid)} that passed.`,
  )
}

function showRefused(shown: readonly SurveyRefusedRow[], total: number, options: Options): void {
  if (total === 0) return
  const first = shown.slice(0, SHOWN_REFUSED)
  const more = options.refusedOut ? '' : '; --refused-out FILE writes them all'
  print(
    first.length < total
      ? `Refused rows (the first ${count(first.length)} of ${count(total)}${more}):`
      : `Refused rows (${count(total)}):`,
  )
  for (const line of refusedTable(first)) print(`  ${line}`)
}

async function refusedOut(
  client: ReturnType<typeof createSurvivalClient>,
  uploadId: string,
  options: Options,
  signal: AbortSignal,
): Promise<void> {
  if (!options.refusedOut) return
  const written = await writeRefusedCsv(client, uploadId, options.refusedOut, signal)
  say(`Wrote ${count(written)} refused ${written === 1 ? 'row' : 'rows'} → ${options.refusedOut}`)
}
