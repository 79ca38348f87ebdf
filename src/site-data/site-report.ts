import type { SiteDataVersion } from '../db/site-data-versions.ts'
import type { SiteFileFormat } from '../site-files/site-readers.ts'
import type { SiteProblem } from '../site-files/site-validation.ts'
import type { SiteImportProgress, SiteImportReport } from './site-import.ts'

/*
 * What `npm run sites` prints: the import report and the list of versions, as text for a person and as
 * JSON (snake_case, as the API's JSON) for a program.
 */

const FORMAT_NAMES: Readonly<Record<SiteFileFormat, string>> = {
  csv: 'CSV',
  geojson: 'GeoJSON',
  ndjson: 'NDJSON',
  gpkg: 'GeoPackage',
}

const count = (n: number): string => n.toLocaleString('en-US')

/** The command that activates a version. */
export function activateCommand(version: string): string {
  return `npm run sites -- activate ${version}`
}

function boundsText(bounds: SiteDataVersion['bounds']): string {
  return bounds ? bounds.map((value) => value.toFixed(5)).join(', ') : '(none)'
}

/** One problem on one line: where, what, which rule and why. */
export function problemText(problem: SiteProblem): string {
  const id = problem.featureId === null ? '' : ` (id ${problem.featureId})`
  const value = problem.value === '' ? 'missing' : JSON.stringify(problem.value)
  return `row ${count(problem.row)}${id}: ${problem.field} ${value}: ${problem.rule}: ${problem.message}`
}

function headline(report: SiteImportReport): string {
  const format = report.format ? ` (${FORMAT_NAMES[report.format]})` : ''
  const state = report.activated ? 'now active' : report.active ? 'active' : 'not active'
  switch (report.outcome) {
    case 'created':
      return `${report.file}${format}: imported as ${report.version}, a new version (${state})`
    case 'kept':
      return `${report.file}${format}: the same rows as ${report.version}, kept already: nothing new was stored (${state})`
    default:
      return `${report.file}${format}: ${report.outcome}: ${report.reason ?? ''}`
  }
}

/** The import report as text. */
export function importReportText(report: SiteImportReport): string {
  const lines = [headline(report)]
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(17)} ${value}`)
  row('rows read', count(report.rowsRead))
  row('rows loaded', count(report.rowsLoaded))
  row(report.skipInvalid ? 'rows skipped' : 'rows invalid', count(report.rowsRefused))
  if (report.version) {
    row('bounds', `${boundsText(report.bounds)} (west, south, east, north)`)
    for (const { column, rows, default: made } of report.defaulted)
      row('defaulted', `${column}: ${count(rows)} rows took its default, ${made}`)
    for (const { column, rows } of report.rounded)
      row('rounded', `${column}: ${count(rows)} rows rounded to a whole number`)
  }
  if (report.missingColumns.length > 0)
    row('missing columns', `${report.missingColumns.join(', ')} (required on every row; --map names yours)`)
  if (report.ignoredColumns.length > 0) row('columns not read', report.ignoredColumns.join(', '))
  if (report.fileError) row('file error', report.fileError.message)
  if (report.problems.length > 0) {
    const total = report.problems.length + report.problemsNotListed
    lines.push(`  problems (${count(total)}${report.skipInvalid ? ', their rows skipped' : ''}):`)
    for (const problem of report.problems) lines.push(`    ${problemText(problem)}`)
    if (report.problemsNotListed > 0) {
      const byRule = Object.entries(report.problemsByRule)
        .map(([rule, n]) => `${rule} ${count(n as number)}`)
        .join(', ')
      lines.push(`    … and ${count(report.problemsNotListed)} more (in all by rule: ${byRule})`)
    }
  }
  if (report.outcome === 'created' || report.outcome === 'kept') {
    if (!report.active && report.version)
      lines.push(
        `Not active: queries read the active version. Activate it with: ${activateCommand(report.version)}`,
      )
  } else lines.push('Nothing was stored: the active site data are unchanged.')
  return `${lines.join('\n')}\n`
}

/** The import report as JSON. */
export function importReportJson(report: SiteImportReport) {
  return {
    file: report.file,
    format: report.format,
    outcome: report.outcome,
    reason: report.reason,
    rows_read: report.rowsRead,
    rows_loaded: report.rowsLoaded,
    rows_invalid: report.rowsRefused,
    skip_invalid: report.skipInvalid,
    problems: report.problems.map((problem) => ({
      row: problem.row,
      feature_id: problem.featureId,
      field: problem.field,
      value: problem.value,
      rule: problem.rule,
      message: problem.message,
    })),
    problems_not_listed: report.problemsNotListed,
    problems_by_rule: report.problemsByRule,
    problems_by_field: report.problemsByField,
    file_error: report.fileError,
    missing_columns: report.missingColumns,
    ignored_columns: report.ignoredColumns,
    defaulted: report.defaulted,
    rounded: report.rounded,
    version: report.version,
    bounds: report.bounds,
    active: report.active,
    activated: report.activated,
    activate_with: report.version && !report.active ? activateCommand(report.version) : null,
    elapsed_ms: report.elapsedMs,
  }
}

/** A progress line for stderr. */
export function progressText(progress: SiteImportProgress): string {
  const seconds = `${(progress.elapsedMs / 1000).toFixed(1)} s`
  const batches = `${count(progress.batches)} batch${progress.batches === 1 ? '' : 'es'}`
  if (progress.phase === 'indexing')
    return `importing: ${count(progress.rowsLoaded)} rows loaded in ${batches}; indexing them (${seconds})`
  return `importing: ${count(progress.rowsRead)} rows read, ${count(progress.rowsValid)} valid, ${count(progress.rowsRefused)} invalid, ${count(progress.rowsLoaded)} loaded in ${batches} (${seconds})`
}

/** A version as JSON. */
export function versionJson(version: SiteDataVersion) {
  return {
    version: version.version,
    rows: version.rowCount,
    bounds: version.bounds,
    source: version.source,
    defaults: version.defaults,
    imported_at: version.importedAt.toISOString(),
    active: version.active,
    activated_at: version.activatedAt?.toISOString() ?? null,
  }
}

/** The versions as a table, the active one marked `*`. */
export function versionsTable(versions: readonly SiteDataVersion[]): string {
  if (versions.length === 0)
    return 'No site data versions: run `npm run db:seed`, or `npm run sites -- import FILE`.\n'
  const header = ['', 'version', 'rows', 'bounds (west, south, east, north)', 'imported (UTC)', 'source']
  const rows = versions.map((version) => [
    version.active ? '*' : '',
    version.version,
    count(version.rowCount),
    boundsText(version.bounds),
    version.importedAt.toISOString().slice(0, 16).replace('T', ' '),
    version.source,
  ])
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((cells) => (cells[column] as string).length)),
  )
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 2 ? cell.padStart(widths[column] as number) : cell.padEnd(widths[column] as number),
      )
      .join('  ')
      .trimEnd()
  return `${[line(header), ...rows.map(line)].join('\n')}\n* active: the version every query reads\n`
}
