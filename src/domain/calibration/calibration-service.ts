import { randomUUID } from 'node:crypto'
import type { PlantingMethod, SurvivalModel } from '../../types.ts'
import { apiError } from '../errors.ts'
import { type Holder, holderActor } from '../holder-actor.ts'
import type { CalibrationRun } from '../ports/calibration-runs.ts'
import type { ModelVersionStore } from '../ports/model-versions.ts'
import type { CalibrationPlotColumns, SurveyFilter, SurveyStore } from '../ports/surveys.ts'
import { SPECIES } from '../species.ts'
import { TREATMENTS } from '../treatments.ts'
import {
  CALIBRATION_STAGES,
  type CalibrationFit,
  type CalibrationInput,
  calibrationText,
  calibrationVersion,
  fitCalibration,
  MIN_CALIBRATION_PLOTS,
} from './calibration-fit.ts'
import type { CalibrationPlot } from './offset-fit.ts'

/*
 * POST /v1/models/calibrations: fits a calibrated version on an account's surveys. The plots are read
 * in one snapshot, the fit runs off the request's thread (FitRunner), and the version is kept once,
 * whole. The answer comes at once when the fit is quick; otherwise the caller polls the calibration.
 * An account runs one calibration at a time.
 */

/** What a fit needs that can cross to another thread: the plots as columns, and plain values. */
export interface FitRequest {
  parent: CalibrationInput['parent']
  filter: SurveyFilter
  columns: CalibrationPlotColumns
  wanted: CalibrationInput['wanted']
}

/** Runs a fit (off the event loop in the server), reporting each stage done. */
export type FitRunner = (request: FitRequest, onStage: (done: number) => void) => Promise<CalibrationFit>

const METHODS: readonly PlantingMethod[] = ['manual', 'drone_seeded']
/** Every species × method of the catalogue: the fit gives each an offset, pooled where no plot informs it. */
export const CATALOGUE_GROUPS = SPECIES.flatMap((species) =>
  METHODS.map((plantingMethod) => ({ speciesCode: species.code, plantingMethod })),
)

/** The plots of a FitRequest's columns, as the fit takes them. */
export function calibrationInput(request: FitRequest): CalibrationInput {
  const plots: CalibrationPlot[] = []
  for (const group of request.columns.groups) {
    for (let i = 0; i < group.planted.length; i++) {
      const treatmentSlopes = group.treatmentSlopes?.[i]
      plots.push({
        speciesCode: group.speciesCode,
        plantingMethod: group.plantingMethod,
        planted: group.planted[i] as number,
        alive: group.alive[i] as number,
        predicted: group.predicted[i] as number,
        ageYears: group.ageYears[i] as number,
        plantingYear: group.plantingYear[i] as number,
        ...(treatmentSlopes ? { treatmentSlopes } : {}),
      })
    }
  }
  return {
    parent: request.parent,
    filter: request.filter,
    plots,
    wanted: request.wanted,
    otherVersionPlots: request.columns.otherVersionPlots,
    dataVersions: request.columns.dataVersions,
    treatments: TREATMENTS.byEffect,
  }
}

export interface CalibrationOptions {
  /** How long a request waits for its fit before answering 202. */
  waitMs?: number
  /** A running calibration whose heartbeat is older than this has lost its process. */
  staleMs?: number
  heartbeatMs?: number
  onError?: (error: unknown, run: CalibrationRun) => void
}

export const CALIBRATION_WAIT_MS = 2000
const STALE_MS = 60_000
const HEARTBEAT_MS = 10_000

export class CalibrationService {
  private readonly running = new Set<Promise<void>>()
  private readonly waitMs: number
  private readonly staleMs: number
  private readonly heartbeatMs: number

  constructor(
    /** The version a calibration starts from: the current base version. */
    private readonly parent: Pick<SurvivalModel, 'version' | 'uncertainty'>,
    private readonly store: ModelVersionStore,
    private readonly surveys: SurveyStore,
    private readonly fit: FitRunner,
    private readonly addressHashKey: string,
    private readonly options: CalibrationOptions = {},
  ) {
    this.waitMs = options.waitMs ?? CALIBRATION_WAIT_MS
    this.staleMs = options.staleMs ?? STALE_MS
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS
  }

  /**
   * Starts a calibration of the current base version on the filter's plots, and answers it as it
   * stands after at most waitMs: succeeded (with its version), or still running.
   */
  async start(holder: Holder, filter: SurveyFilter): Promise<CalibrationRun> {
    const { accountId } = holder
    const { parent } = this
    const columns = await this.surveys.calibrationPlots(accountId, filter, parent.version)
    const plots = columns.groups.reduce((sum, group) => sum + group.planted.length, 0)
    if (plots < MIN_CALIBRATION_PLOTS)
      throw apiError('not_enough_surveys', { plots, needed: MIN_CALIBRATION_PLOTS })
    const outcome = await this.store.startRun(
      { id: randomUUID(), accountId, filter, stages: CALIBRATION_STAGES },
      new Date(Date.now() - this.staleMs),
    )
    if ('running' in outcome)
      throw apiError(
        'calibration_running',
        { calibration: outcome.running.id },
        { details: { calibration: outcome.running.id } },
      )
    const run = outcome.started
    const request: FitRequest = {
      parent: { version: parent.version, uncertainty: parent.uncertainty },
      filter,
      columns,
      wanted: CATALOGUE_GROUPS,
    }
    const work = this.execute(run, holder, request, plots)
    this.running.add(work)
    void work.finally(() => this.running.delete(work))
    let timer: NodeJS.Timeout | undefined
    await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, this.waitMs)))])
    clearTimeout(timer)
    const now = (await this.store.run(accountId, run.id)) ?? run
    // A fit that failed within the wait kept nothing: the request failed (logged by onError).
    if (now.status === 'failed') throw new Error(`calibration ${run.id} failed: ${now.error?.message}`)
    return now
  }

  /** One of the account's calibrations; not_found for any other id. */
  async status(accountId: string, id: string): Promise<CalibrationRun> {
    const run = UUID.test(id) ? await this.store.run(accountId, id) : null
    if (!run) throw apiError('not_found', { calibration: id })
    return run
  }

  /** Waits for the calibrations this process is running (on shutdown, and in tests). */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running])
  }

  private async execute(
    run: CalibrationRun,
    holder: Holder,
    request: FitRequest,
    plots: number,
  ): Promise<void> {
    let stagesDone = 0
    const heartbeat = setInterval(() => {
      void this.store.progress(run.id, { stagesDone, plots }).catch(() => {})
    }, this.heartbeatMs)
    heartbeat.unref()
    try {
      await this.store.progress(run.id, { stagesDone, plots })
      const fit = await this.fit(request, (done) => {
        stagesDone = done
        void this.store.progress(run.id, { stagesDone, plots }).catch(() => {})
      })
      const text = calibrationText(fit)
      const version = calibrationVersion(request.parent.version, text)
      await this.store.save(
        holder.accountId,
        { version, parent: request.parent.version, fit: text },
        {
          accountId: holder.accountId,
          kind: 'model.calibrated',
          actor: holderActor(this.addressHashKey, holder),
          details: { version, calibration: run.id, plots },
        },
      )
      await this.store.finishRun(run.id, { version })
    } catch (error) {
      this.options.onError?.(error, run)
      await this.store
        .finishRun(run.id, {
          error: { code: 'internal_error', message: 'The fit failed; nothing was kept. Try again later' },
        })
        .catch(() => {})
    } finally {
      clearInterval(heartbeat)
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Runs the fit on the calling thread: for tests, and scripts that have nothing else to serve. */
export const fitHere: FitRunner = async (request, onStage) =>
  fitCalibration(calibrationInput(request), onStage)
