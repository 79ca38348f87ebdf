import type { SurveyFilter } from './surveys.ts'

export type CalibrationRunStatus = 'running' | 'succeeded' | 'failed'

/** A calibration asked for: running, or finished with a version or an error. */
export interface CalibrationRun {
  id: string
  accountId: string
  status: CalibrationRunStatus
  filter: SurveyFilter
  stagesDone: number
  stages: number
  /** The plots it fits on, once they are read. */
  plots: number | null
  version: string | null
  error: { code: string; message: string } | null
  createdAt: Date
  heartbeatAt: Date
  finishedAt: Date | null
}

export type CalibrationRunOutcome = { version: string } | { error: { code: string; message: string } }
