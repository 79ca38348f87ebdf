/** What both scoring paths are given and what they report. */
import type { GeoJsonJobDefaults, SurvivalClient } from '../client.ts'
import type { OutputFormat } from './output.ts'
import type { Progress } from './progress.ts'
import type { ClimateDefaults, InputFormat, TreatmentDefaults } from './rows.ts'
import type { ScoreState } from './state.ts'

export interface RunContext {
  client: SurvivalClient
  input: string
  inputFormat: InputFormat
  /** `--period`/`--scenario`: the climate of the rows that name none (CSV and NDJSON input). */
  climate?: ClimateDefaults
  /** A GeoJSON input's defaults (`--default`, `--period`, `--scenario`), sent as query parameters. */
  defaults?: GeoJsonJobDefaults
  /**
   * `--default`s of CSV and NDJSON input: the treatments of the rows that name none. A job takes them
   * as query parameters; batch calls put them in each row's request.
   */
  treatments?: TreatmentDefaults
  out: string
  outFormat: OutputFormat
  /** The state to carry on from (a fresh one when starting); the path updates and saves it. */
  state: ScoreState
  progress: Progress
  /** Aborted by Ctrl-C: the path stops, leaving the state saved, and reports `interrupted`. */
  signal: AbortSignal
  /** Informational lines for the user (stderr). */
  note: (line: string) => void
}

export interface RunOutcome {
  interrupted: boolean
  rows: number
  failed: number
  errorsByCode: Record<string, number>
}

export function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [code, count] of Object.entries(from)) into[code] = (into[code] ?? 0) + count
}
