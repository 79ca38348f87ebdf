/**
 * The resume file next to the output, `<out>.score-state.json`: what a rerun with the same arguments
 * needs to carry on after Ctrl-C (or a failure). Written atomically (temporary file, then rename) after
 * every step that wrote output; removed when the output is complete.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { GeoJsonJobDefaults } from '../client.ts'
import type { OutputFormat } from './output.ts'
import type { ClimateDefaults, TreatmentDefaults } from './rows.ts'

type RunDefaults = GeoJsonJobDefaults | TreatmentDefaults

export interface InputIdentity {
  path: string
  size: number
  mtime_ms: number
}

export interface ScoreState {
  version: 1
  input: InputIdentity
  out_format: OutputFormat
  base_url: string
  via: 'batch' | 'job'
  /** `--period`/`--scenario` of the run (absent: none); a rerun with others starts over. */
  climate?: ClimateDefaults
  /** `--default`s of the run (a GeoJSON input's, or CSV and NDJSON rows' treatments; absent: none); likewise. */
  defaults?: RunDefaults
  /** Output bytes known to be complete rows (the batch path truncates to this on resume). */
  bytes_written: number
  /** Batch path: input rows whose output lines are written. */
  rows_written: number
  /** Batch path: failed rows so far, by error code. */
  errors_by_code: Record<string, number>
  /** Job path: the job to re-attach to, and the results' ETag once downloading. */
  job_id?: string
  etag?: string | null
}

export const statePath = (out: string) => `${out}.score-state.json`

export function inputIdentity(file: string): InputIdentity {
  const stats = statSync(file)
  return { path: resolve(file), size: stats.size, mtime_ms: Math.trunc(stats.mtimeMs) }
}

/** `--period`/`--scenario` as the state compares them: only the ones given, in one order. */
function climateKey(climate: ClimateDefaults | undefined): string {
  return JSON.stringify({ period: climate?.period || null, scenario: climate?.scenario || null })
}

/** The `--default`s as the state compares them: by name, whatever the order they were given in. */
function defaultsKey(defaults: RunDefaults | undefined): string {
  return JSON.stringify(
    Object.entries(defaults ?? {})
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([name, value]) => [name, String(value)])
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  )
}

/**
 * The saved state for `out` when it belongs to this input, output format, climate and defaults, else
 * null.
 */
export function loadState(
  out: string,
  input: InputIdentity,
  format: OutputFormat,
  climate?: ClimateDefaults,
  defaults?: RunDefaults,
): ScoreState | null {
  let state: ScoreState
  try {
    state = JSON.parse(readFileSync(statePath(out), 'utf8')) as ScoreState
  } catch {
    return null
  }
  const same =
    state.version === 1 &&
    state.input?.path === input.path &&
    state.input.size === input.size &&
    state.input.mtime_ms === input.mtime_ms &&
    state.out_format === format &&
    climateKey(state.climate) === climateKey(climate) &&
    defaultsKey(state.defaults) === defaultsKey(defaults)
  return same ? state : null
}

export function saveState(out: string, state: ScoreState): void {
  const file = statePath(out)
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`)
  renameSync(`${file}.tmp`, file)
}

export function clearState(out: string): void {
  rmSync(statePath(out), { force: true })
}
