import { Command, InvalidArgumentError, Option } from 'commander'
import { loadConfig } from '../config/config.ts'
import type { Sql } from '../db/connect.ts'
import { openDatabase } from '../db/connect.ts'
import {
  activateSiteVersion,
  activeSiteVersion,
  dropSiteVersion,
  dropStaleImports,
  listSiteVersions,
  rollbackSiteVersion,
  SiteVersionError,
} from '../db/site-data-versions.ts'
import { createLogger } from '../logging/logger.ts'
import { exportSiteVersion } from '../site-data/site-export.ts'
import { importSiteFile, LISTED_PROBLEMS } from '../site-data/site-import.ts'
import {
  importReportJson,
  importReportText,
  progressText,
  versionJson,
  versionsTable,
} from '../site-data/site-report.ts'
import { type ColumnMap, readColumnMap } from '../site-files/column-map.ts'
import { SiteFileError } from '../site-files/site-file-error.ts'
import { SITE_FILE_FORMATS, type SiteFileFormat } from '../site-files/site-readers.ts'

/*
 * `npm run sites -- import|export|list|activate|rollback|drop`: the site data sets as versions
 * (docs/site-data.md). A refusal (a file, a version, a setting) is printed as `sites: …` with exit
 * code 1; an import interrupted by SIGINT or SIGTERM gives its staging table up and exits 130 or 143.
 */

const log = createLogger({ destination: 'stderr' })

/** A refusal of the command line itself, printed as it is. */
class SitesCliError extends Error {}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`)
}

function positiveInteger(value: string): number {
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new InvalidArgumentError('must be a whole number, 0 or more')
  return parsed
}

/** Runs one command against the PostgreSQL at DATABASE_URL. */
async function withDatabase<T>(action: (sql: Sql) => Promise<T>): Promise<T> {
  const config = loadConfig()
  if (!config.DATABASE_URL)
    throw new SitesCliError(
      'DATABASE_URL is not set. The sites CLI manages the site data in PostgreSQL; the embedded store of `npm start` seeds its synthetic sites itself.',
    )
  const database = await openDatabase(config)
  try {
    return await action(database.sql)
  } finally {
    await database.close()
  }
}

/** Tells on stderr, once, that the staging tables of dead imports were dropped. */
async function dropDeadImports(sql: Sql): Promise<void> {
  const dropped = await dropStaleImports(sql)
  if (dropped > 0)
    process.stderr.write(
      `sites: dropped the staging table${dropped === 1 ? '' : 's'} of ${dropped} import${dropped === 1 ? '' : 's'} whose process had ended\n`,
    )
}

/** Progress on stderr: one line rewritten on a terminal, one line each time otherwise. */
function progressWriter(): { write: (line: string) => void; end: () => void } {
  const tty = process.stderr.isTTY
  let written = false
  return {
    write: (line) => {
      written = true
      process.stderr.write(tty ? `\r${line}\u001b[K` : `${line}\n`)
    },
    end: () => {
      if (tty && written) process.stderr.write('\n')
    },
  }
}

const SIGNAL_EXIT: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 130, SIGTERM: 143 }

const program = new Command('sites')
  .description(
    'Manage the site data as versions in PostgreSQL at DATABASE_URL: import a site file (CSV, GeoJSON, NDJSON, GeoPackage), export one, list, activate, roll back and drop versions (docs/site-data.md)',
  )
  .showHelpAfterError()

const formatOption = () =>
  new Option('--format <format>', 'the file format, when its extension does not say').choices(
    SITE_FILE_FORMATS,
  )

program
  .command('import <file>')
  .description(
    'check every row of a site file and store it as a new version (not active unless --activate); nothing is kept unless every row is valid, or --skip-invalid',
  )
  .option('--map <file.json>', 'a column map: {"their_column": "our_column", "unread_column": null}')
  .option('--layer <name>', 'GeoPackage: the layer to read, when the file has more than one')
  .addOption(formatOption())
  .option('--skip-invalid', 'load the valid rows and list the others, instead of refusing the file')
  .option('--activate', 'make the version the active one once imported')
  .option(
    '--problems <n>',
    `problems the report lists (the rest are counted; default ${LISTED_PROBLEMS})`,
    positiveInteger,
  )
  .option('--no-progress', 'no progress on stderr')
  .option('--json', 'print the report as one JSON object')
  .action(
    async (
      file: string,
      options: {
        map?: string
        layer?: string
        format?: SiteFileFormat
        skipInvalid?: boolean
        activate?: boolean
        problems?: number
        progress: boolean
        json?: boolean
      },
    ) => {
      const columnMap: ColumnMap | undefined = options.map ? await readColumnMap(options.map) : undefined
      const aborter = new AbortController()
      let signalled: 'SIGINT' | 'SIGTERM' | null = null
      const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
        if (signalled) process.exit(SIGNAL_EXIT[signal])
        signalled = signal
        process.stderr.write(`\nsites: ${signal}: giving the import up (again to stop at once)\n`)
        aborter.abort()
      }
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
      const progress = progressWriter()
      try {
        const report = await withDatabase((sql) =>
          importSiteFile(sql, file, {
            columnMap,
            layer: options.layer,
            format: options.format,
            skipInvalid: options.skipInvalid,
            activate: options.activate,
            listedProblems: options.problems,
            signal: aborter.signal,
            onProgress: options.progress ? (step) => progress.write(progressText(step)) : undefined,
          }),
        )
        progress.end()
        if (options.json) printJson(importReportJson(report))
        else process.stdout.write(importReportText(report))
        if (signalled && report.version)
          process.stderr.write(
            `sites: every row was in when ${signalled} came: ${report.version} is kept${report.active ? '' : ', not active'}\n`,
          )
        if (signalled) process.exitCode = SIGNAL_EXIT[signalled]
        else if (report.outcome === 'refused') process.exitCode = 1
      } finally {
        progress.end()
        process.off('SIGINT', onSignal)
        process.off('SIGTERM', onSignal)
      }
    },
  )

program
  .command('export <file>')
  .description(
    "write a version (the active one by default) as a site file, in the format of the file's extension",
  )
  .option('--version <version>', 'the version to write (npm run sites -- list)')
  .addOption(formatOption())
  .option('--layer <name>', 'GeoPackage: the layer to write (default sites)')
  .option('--overwrite', 'replace the file if it exists')
  .option('--json', 'print {"file","format","version","rows"}')
  .action(
    async (
      file: string,
      options: {
        version?: string
        format?: SiteFileFormat
        layer?: string
        overwrite?: boolean
        json?: boolean
      },
    ) => {
      const written = await withDatabase((sql) => exportSiteVersion(sql, file, options))
      if (options.json)
        printJson({
          file: written.path,
          format: written.format,
          version: written.version,
          rows: written.rows,
        })
      else
        process.stdout.write(
          `${written.path}: ${written.rows.toLocaleString('en-US')} sites of ${written.version} written (${written.format})\n`,
        )
    },
  )

program
  .command('list')
  .description('the versions kept, the active one marked *; drops what dead imports left behind')
  .option('--json', 'print a JSON array of versions')
  .action(async (options: { json?: boolean }) => {
    const versions = await withDatabase(async (sql) => {
      await dropDeadImports(sql)
      return listSiteVersions(sql)
    })
    if (options.json) printJson(versions.map(versionJson))
    else process.stdout.write(versionsTable(versions))
  })

program
  .command('activate <version>')
  .description('make a version the one every query reads (at once, in one transaction)')
  .option('--json', 'print the version as JSON')
  .action(async (version: string, options: { json?: boolean }) => {
    const { before, after } = await withDatabase(async (sql) => {
      const before = await activeSiteVersion(sql)
      return { before, after: await activateSiteVersion(sql, version) }
    })
    if (options.json) printJson(versionJson(after))
    else if (before?.version === after.version) process.stdout.write(`${after.version} is active already\n`)
    else
      process.stdout.write(
        `${after.version} is active (${after.rowCount.toLocaleString('en-US')} sites)${before ? `, in place of ${before.version}` : ''}\n`,
      )
  })

program
  .command('rollback')
  .description('activate the version active before the current one')
  .option('--json', 'print the version now active as JSON')
  .action(async (options: { json?: boolean }) => {
    const { before, after } = await withDatabase(async (sql) => {
      const before = await activeSiteVersion(sql)
      return { before, after: await rollbackSiteVersion(sql) }
    })
    if (options.json) printJson(versionJson(after))
    else
      process.stdout.write(
        `${after.version} is active again${before ? `, in place of ${before.version}` : ''}\n`,
      )
  })

program
  .command('drop <version>')
  .description('drop a version that is not active: its table and its catalogue row')
  .action(async (version: string) => {
    await withDatabase((sql) => dropSiteVersion(sql, version))
    process.stdout.write(`${version} dropped\n`)
  })

try {
  await program.parseAsync(process.argv)
} catch (error) {
  if (error instanceof SitesCliError || error instanceof SiteVersionError || error instanceof SiteFileError) {
    process.stderr.write(`sites: ${error.message}\n`)
    process.exitCode = 1
  } else {
    log.error({ err: error }, 'sites command failed')
    process.exitCode = 1
  }
}
