import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import type { Sql } from '../db/connect.ts'
import {
  abandonSiteImport,
  activateSiteVersion,
  beginSiteImport,
  finishSiteImport,
  insertSites,
  SiteContentHash,
  type SiteDataVersion,
} from '../db/site-data-versions.ts'
import type { ColumnMap } from '../site-files/column-map.ts'
import type { SiteDerivations } from '../site-files/site-derivations.ts'
import { SiteFileError } from '../site-files/site-file-error.ts'
import { missingColumns, type SiteColumnName, siteColumn } from '../site-files/site-format.ts'
import { formatOfName, readSiteFile, type SiteFileFormat } from '../site-files/site-readers.ts'
import { type SiteProblem, type SiteRule, SiteValidator } from '../site-files/site-validation.ts'
import type { Site } from '../types.ts'

/*
 * `npm run sites -- import FILE`: a site data file streamed into a new version of the site data
 * (src/db/site-data-versions.ts). Each row is read (src/site-files), checked, numbered 1..N in file order
 * and added to the content hash that names the version; the rows go to a staging table a batch at a
 * time, never held whole. Nothing is kept unless every row is valid, or unless rows that are not may be
 * skipped; a file refused, a failure or an interruption gives the staging table up. The version is
 * not activated unless asked.
 */

/** Rows a batch: one INSERT statement each. */
export const IMPORT_BATCH_ROWS = 5000
/** Problems a report lists; the rest are counted. */
export const LISTED_PROBLEMS = 100
/** Progress is told at most this often (and once the first batch is in). */
const PROGRESS_EVERY_MS = 1000
/** The clock is read once every so many rows. */
const CLOCK_EVERY_ROWS = 512

export interface SiteImportOptions {
  /** The format; by default the one the file name's extension says. */
  format?: SiteFileFormat
  columnMap?: ColumnMap
  /** GeoPackage: the layer to read, when the file has more than one. */
  layer?: string
  /** Load the valid rows and report the others, instead of refusing the file. */
  skipInvalid?: boolean
  /** Make the version the active one once imported. */
  activate?: boolean
  /** The name the version is catalogued under; the file's name by default. */
  source?: string
  batchRows?: number
  /** How many problems the report lists. */
  listedProblems?: number
  /** Told while reading: about once a second, and once the first batch is in. */
  onProgress?: (progress: SiteImportProgress) => void
  /** Aborted: the import stops and gives its staging table up (SIGINT, SIGTERM). */
  signal?: AbortSignal
  /** Tests: a world of their own for the rules' lookups. */
  derivations?: SiteDerivations
}

export interface SiteImportProgress {
  /** Reading and loading the rows, then building the version's indexes. */
  phase: 'loading' | 'indexing'
  rowsRead: number
  rowsValid: number
  rowsRefused: number
  rowsLoaded: number
  batches: number
  elapsedMs: number
}

/**
 * What became of the file: a new version (`created`), the rows of a version kept already (`kept`),
 * refused (a row breaks a rule, or the file cannot be read), or interrupted.
 */
export type SiteImportOutcome = 'created' | 'kept' | 'refused' | 'interrupted'

export interface SiteImportReport {
  file: string
  format: SiteFileFormat | null
  outcome: SiteImportOutcome
  /** Why nothing was kept, in a sentence; null when a version was. */
  reason: string | null
  rowsRead: number
  rowsLoaded: number
  /** Rows refused: skipped with --skip-invalid, else the reason nothing was kept. */
  rowsRefused: number
  skipInvalid: boolean
  /** The first problems, in file order. */
  problems: SiteProblem[]
  /** Problems found beyond those listed. */
  problemsNotListed: number
  problemsByRule: Partial<Record<SiteRule, number>>
  problemsByField: Record<string, number>
  /** The file as a whole could not be read (from row `row` on, when there is one). */
  fileError: { message: string; row: number | null; field: string | null } | null
  /** Required columns the file's column list lacks (CSV, GeoPackage). */
  missingColumns: SiteColumnName[]
  /** Columns the file has that the format does not read. */
  ignoredColumns: string[]
  /** Rows that took each optional column's default, with the default. */
  defaulted: { column: SiteColumnName; rows: number; default: string }[]
  /** Rows whose value of each integer column was rounded to a whole number. */
  rounded: { column: SiteColumnName; rows: number }[]
  version: string | null
  bounds: SiteDataVersion['bounds']
  /** Whether the version is the active one now, and whether this import made it so. */
  active: boolean
  activated: boolean
  elapsedMs: number
}

/** An import stopped by its signal. */
export class SiteImportInterrupted extends Error {
  override readonly name = 'SiteImportInterrupted'
}

/** The file is there and is a file: else a SiteFileError saying what it is. */
async function checkFile(path: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>
  try {
    info = await stat(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new SiteFileError(
      path,
      code === 'ENOENT' ? 'no such file' : `cannot be read: ${(error as Error).message}`,
      { cause: error },
    )
  }
  if (!info.isFile()) throw new SiteFileError(path, 'is not a file')
}

/**
 * The import's state as it reads: the staging table (begun when the first batch is due), the batch,
 * the counts. One batch is written while the next is read: at most two are held.
 */
class StagedImport {
  staging: string | null = null
  batch: Site[] = []
  loaded = 0
  batches = 0
  private writing: Promise<void> | null = null

  constructor(
    private readonly sql: Sql,
    private readonly source: string,
    private readonly onFirstBatch: () => void,
  ) {}

  /** Waits for the batch being written; its failure is thrown here. */
  async settle(): Promise<void> {
    const writing = this.writing
    this.writing = null
    await writing
  }

  /** Sends the batch to the staging table (begun with the first), once the one before is in. */
  async flush(): Promise<void> {
    await this.settle()
    if (this.batch.length === 0) return
    this.staging ??= await beginSiteImport(this.sql, this.source)
    const batch = this.batch
    this.batch = []
    const writing = insertSites(this.sql, this.staging, batch).then(() => {
      this.batches += 1
      if (this.batches === 1) this.onFirstBatch()
    })
    // Handled when settled; until then a failure must not count as unhandled.
    writing.catch(() => {})
    this.writing = writing
  }

  /** Gives the staging table up, if there is one. */
  async abandon(): Promise<void> {
    this.batch = []
    await this.settle().catch(() => {})
    const staging = this.staging
    this.staging = null
    if (staging) await abandonSiteImport(this.sql, staging)
  }

  /** The staging table becomes its version (or the one kept already); on failure it is given up. */
  async finish(
    made: ReturnType<SiteContentHash['finish']>,
    defaults: Record<string, number>,
  ): Promise<Awaited<ReturnType<typeof finishSiteImport>>> {
    await this.flush()
    await this.settle()
    const staging = this.staging as string
    this.staging = null
    try {
      return await finishSiteImport(this.sql, staging, made, { source: this.source, defaults })
    } catch (error) {
      await abandonSiteImport(this.sql, staging).catch(() => {})
      throw error
    }
  }
}

/**
 * Imports a site data file as a version. A file refused (a row breaks a rule, or it cannot be read)
 * or an import interrupted is reported, with nothing kept; a failure of the database is thrown, with
 * nothing kept either.
 */
export async function importSiteFile(
  sql: Sql,
  path: string,
  options: SiteImportOptions = {},
): Promise<SiteImportReport> {
  const started = performance.now()
  const batchRows = options.batchRows ?? IMPORT_BATCH_ROWS
  const listed = options.listedProblems ?? LISTED_PROBLEMS
  const skipInvalid = options.skipInvalid ?? false
  const source = (options.source ?? basename(path)).slice(0, 255) || 'site file'
  const format = options.format ?? formatOfName(path)
  const validator = new SiteValidator({ name: path, derivations: options.derivations })
  const hash = new SiteContentHash()
  const problems: SiteProblem[] = []
  let problemsNotListed = 0
  let missing: SiteColumnName[] = []
  let read = 0
  let valid = 0
  let refused = 0
  let lastProgress = started

  const progress = (phase: SiteImportProgress['phase'] = 'loading'): void => {
    lastProgress = performance.now()
    options.onProgress?.({
      phase,
      rowsRead: read,
      rowsValid: valid,
      rowsRefused: refused,
      rowsLoaded: staged.loaded,
      batches: staged.batches,
      elapsedMs: Math.round(lastProgress - started),
    })
  }
  const staged = new StagedImport(sql, source, () => progress())

  const report = (outcome: SiteImportOutcome, rest: Partial<SiteImportReport> = {}): SiteImportReport => {
    const summary = validator.summary()
    return {
      file: path,
      format,
      outcome,
      reason: null,
      rowsRead: summary.rows,
      rowsLoaded: outcome === 'created' || outcome === 'kept' ? staged.loaded : 0,
      rowsRefused: summary.refused,
      skipInvalid,
      problems,
      problemsNotListed,
      problemsByRule: summary.problemsByRule,
      problemsByField: summary.problemsByField,
      fileError: null,
      missingColumns: missing,
      ignoredColumns: summary.ignoredColumns,
      defaulted: Object.entries(summary.defaulted).map(([column, rows]) => ({
        column: column as SiteColumnName,
        rows: rows as number,
        default: siteColumn(column as SiteColumnName).default ?? '',
      })),
      rounded: Object.entries(summary.rounded).map(([column, rows]) => ({
        column: column as SiteColumnName,
        rows: rows as number,
      })),
      version: null,
      bounds: null,
      active: false,
      activated: false,
      elapsedMs: Math.round(performance.now() - started),
      ...rest,
    }
  }

  try {
    await checkFile(path)
    const records = readSiteFile(path, {
      format: options.format,
      columnMap: options.columnMap,
      layer: options.layer,
      onColumns: (columns) => {
        const named = columns.filter((column): column is string => column !== null)
        missing = missingColumns(named, format === 'gpkg')
      },
    })
    for await (const checked of validator.validate(records)) {
      if (options.signal?.aborted) throw new SiteImportInterrupted('interrupted')
      read += 1
      if (checked.problems) {
        for (const problem of checked.problems)
          if (problems.length < listed) problems.push(problem)
          else problemsNotListed += 1
        // Without --skip-invalid, nothing will be kept: the loading stops, the checking goes on.
        if (refused === 0 && !skipInvalid) await staged.abandon()
        refused += 1
      } else {
        valid += 1
        if (refused === 0 || skipInvalid) {
          const site: Site = { ...checked.site, id: staged.loaded + 1 }
          staged.loaded += 1
          hash.add(site)
          staged.batch.push(site)
          if (staged.batch.length >= batchRows) await staged.flush()
        }
      }
      if (read % CLOCK_EVERY_ROWS === 0 && performance.now() - lastProgress >= PROGRESS_EVERY_MS) progress()
    }
    if (options.signal?.aborted) throw new SiteImportInterrupted('interrupted')
    progress()

    if (refused > 0 && !skipInvalid)
      return report('refused', {
        reason: `${refused === 1 ? '1 row breaks' : `${refused.toLocaleString('en-US')} rows break`} the rules: nothing was kept (--skip-invalid loads the others)`,
      })
    if (staged.loaded === 0) return report('refused', { reason: 'no row is valid: nothing was kept' })
    await staged.flush()
    await staged.settle()
    if (options.signal?.aborted) throw new SiteImportInterrupted('interrupted')
    progress('indexing')
    const finished = await staged.finish(
      hash.finish(),
      validator.summary().defaulted as Record<string, number>,
    )
    let version = finished.version
    let activated = false
    // Stopped while the version was being indexed: it is kept, but not made active.
    if (options.activate && !version.active && !options.signal?.aborted) {
      version = await activateSiteVersion(sql, version.version)
      activated = true
    }
    return report(finished.created ? 'created' : 'kept', {
      version: version.version,
      bounds: version.bounds,
      active: version.active,
      activated,
    })
  } catch (error) {
    await staged.abandon().catch(() => {})
    if (error instanceof SiteImportInterrupted)
      return report('interrupted', { reason: 'interrupted: nothing was kept' })
    if (error instanceof SiteFileError)
      return report('refused', {
        reason: 'the file cannot be read: nothing was kept',
        fileError: { message: error.message, row: error.row, field: error.field },
      })
    throw error
  }
}
