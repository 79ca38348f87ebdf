import type { NewAuditEvent } from '../../types.ts'
import type { CalibrationRun, CalibrationRunOutcome } from './calibration-runs.ts'
import type { SurveyFilter } from './surveys.ts'

/** A calibrated model version as kept: its fit's JSON, exactly as written. */
export interface StoredModelVersion {
  version: string
  parent: string
  /** The fit's JSON; its SHA-256 names the version. */
  fit: string
  createdAt: Date
}

/** Where calibrated versions, calibrations and account defaults are kept (PostgreSQL). */
export interface ModelVersionStore {
  version(accountId: string, version: string): Promise<StoredModelVersion | null>
  versions(accountId: string): Promise<StoredModelVersion[]>
  /** Keeps the version (and appends `event`) unless the account has it already; the version as kept. */
  save(
    accountId: string,
    version: Omit<StoredModelVersion, 'createdAt'>,
    event: NewAuditEvent,
  ): Promise<StoredModelVersion>
  defaultVersion(accountId: string): Promise<string | null>
  setDefault(accountId: string, version: string | null, event: NewAuditEvent): Promise<void>
  startRun(
    run: { id: string; accountId: string; filter: SurveyFilter; stages: number },
    staleBefore: Date,
  ): Promise<{ started: CalibrationRun } | { running: CalibrationRun }>
  progress(id: string, progress: { stagesDone: number; plots: number | null }): Promise<void>
  finishRun(id: string, outcome: CalibrationRunOutcome): Promise<void>
  run(accountId: string, id: string): Promise<CalibrationRun | null>
}
