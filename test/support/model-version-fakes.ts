/**
 * Calibrated versions, calibrations and defaults in memory (the ModelVersionStore port), with the
 * store's rules: a version is kept once and never changes, one calibration runs per account.
 */
import type { CalibrationRun, CalibrationRunOutcome } from '../../src/domain/ports/calibration-runs.ts'
import type { ModelVersionStore, StoredModelVersion } from '../../src/domain/ports/model-versions.ts'
import type { NewAuditEvent } from '../../src/types.ts'

export class MemoryModelVersionStore implements ModelVersionStore {
  readonly versionsKept = new Map<string, StoredModelVersion>()
  readonly runs = new Map<string, CalibrationRun>()
  readonly defaults = new Map<string, string>()
  readonly events: NewAuditEvent[] = []
  /** Reads of an account's default, to prove how often the registry asks. */
  defaultReads = 0

  constructor(private readonly now: () => Date = () => new Date()) {}

  async version(accountId: string, version: string) {
    return this.versionsKept.get(`${accountId}\n${version}`) ?? null
  }

  async versions(accountId: string) {
    return [...this.versionsKept.entries()]
      .filter(([key]) => key.startsWith(`${accountId}\n`))
      .map(([, stored]) => stored)
      .reverse()
  }

  async save(accountId: string, version: Omit<StoredModelVersion, 'createdAt'>, event: NewAuditEvent) {
    const key = `${accountId}\n${version.version}`
    const kept = this.versionsKept.get(key)
    if (kept) return kept
    const stored = { ...version, createdAt: this.now() }
    this.versionsKept.set(key, stored)
    this.events.push(event)
    return stored
  }

  async defaultVersion(accountId: string) {
    this.defaultReads += 1
    return this.defaults.get(accountId) ?? null
  }

  async setDefault(accountId: string, version: string | null, event: NewAuditEvent) {
    if (version === null) this.defaults.delete(accountId)
    else this.defaults.set(accountId, version)
    this.events.push(event)
  }

  async startRun(
    run: { id: string; accountId: string; filter: CalibrationRun['filter']; stages: number },
    staleBefore: Date,
  ) {
    for (const kept of this.runs.values()) {
      if (kept.accountId !== run.accountId || kept.status !== 'running') continue
      if (kept.heartbeatAt < staleBefore)
        Object.assign(kept, {
          status: 'failed',
          finishedAt: this.now(),
          error: {
            code: 'interrupted',
            message: 'The process running this calibration stopped; start it again',
          },
        })
      else return { running: { ...kept } }
    }
    const started: CalibrationRun = {
      ...run,
      status: 'running',
      stagesDone: 0,
      plots: null,
      version: null,
      error: null,
      createdAt: this.now(),
      heartbeatAt: this.now(),
      finishedAt: null,
    }
    this.runs.set(run.id, started)
    return { started: { ...started } }
  }

  async progress(id: string, progress: { stagesDone: number; plots: number | null }) {
    const run = this.runs.get(id)
    if (run?.status !== 'running') return
    run.stagesDone = progress.stagesDone
    run.plots = progress.plots ?? run.plots
    run.heartbeatAt = this.now()
  }

  async finishRun(id: string, outcome: CalibrationRunOutcome) {
    const run = this.runs.get(id)
    if (run?.status !== 'running') return
    if ('version' in outcome)
      Object.assign(run, { status: 'succeeded', version: outcome.version, stagesDone: run.stages })
    else Object.assign(run, { status: 'failed', error: outcome.error })
    run.finishedAt = this.now()
  }

  async run(accountId: string, id: string) {
    const run = this.runs.get(id)
    return run && run.accountId === accountId ? { ...run } : null
  }
}
