import { type ExplorerApi, ExplorerApiError } from './api.ts'
import { busy, elementIn, stacked, tableRow } from './dom.ts'
import { count, METHOD_LABELS, percent } from './format.ts'
import {
  ExplorerCalibrateDocument,
  type ExplorerCalibrationFragment,
  ExplorerCalibrationPollDocument,
  type ExplorerFitFragment,
  ExplorerSetDefaultModelDocument,
  type SurveyFilterInput,
} from './generated/operations.ts'
import type { ModelSelect } from './model-select.ts'
import { decimal, signed } from './survey-data.ts'

export type Calibration = ExplorerCalibrationFragment
export type CalibrationFit = ExplorerFitFragment

/** What the Calibrate action needs of the tab around it. */
export interface CalibrationHost {
  api: ExplorerApi
  models: ModelSelect
  hasKey(): boolean
  messageFor(error: unknown): string
  /** The tab's survey filter: the plots to fit on (null: every plot). */
  filter(): SurveyFilterInput | null
  /** Puts a version into the selector and the URL: every tab answers with it. */
  useModel(version: string): void
  /** The common names of the species, by code. */
  names: ReadonlyMap<string, string>
}

/** How often a running calibration is asked about. */
export const POLL_MS = 1000

const TERMS = [
  ['plantingYearSd', 'Planting-year SD'],
  ['siteSd', 'Site SD'],
  ['clumpingDispersion', 'Clumping dispersion'],
] as const

/** The filter in words: "every plot of the account", "Douglas-fir (PSME) plots, hand planting". */
export function filterText(
  filter: {
    speciesCode?: string | null
    plantingMethod?: string | null
    bbox?: readonly number[] | null
    surveyedFrom?: string | null
    surveyedTo?: string | null
  } | null,
  names: ReadonlyMap<string, string>,
): string {
  if (!filter) return 'every plot of the account'
  const parts: string[] = []
  if (filter.speciesCode)
    parts.push(`${names.get(filter.speciesCode) ?? filter.speciesCode} (${filter.speciesCode})`)
  const method = filter.plantingMethod
  if (method) {
    const known = method.toUpperCase() === 'DRONE_SEEDED' ? 'drone_seeded' : 'manual'
    parts.push(METHOD_LABELS[known].toLowerCase())
  }
  if (filter.bbox && filter.bbox.length === 4) parts.push(`inside ${filter.bbox.join(', ')}`)
  if (filter.surveyedFrom) parts.push(`surveyed from ${filter.surveyedFrom}`)
  if (filter.surveyedTo) parts.push(`surveyed to ${filter.surveyedTo}`)
  return parts.length === 0 ? 'every plot of the account' : `the plots of ${parts.join(', ')}`
}

/** "2017–2020" for consecutive years, else the years listed. */
function yearsText(years: readonly number[]): string {
  const sorted = [...years].sort((a, b) => a - b)
  const first = sorted[0]
  const last = sorted[sorted.length - 1]
  if (first === undefined || last === undefined) return 'no planting year'
  if (first === last) return `planted in ${first}`
  const consecutive = sorted.every((year, i) => i === 0 || year === (sorted[i - 1] as number) + 1)
  return consecutive ? `planted in ${first}–${last}` : `planted in ${sorted.join(', ')}`
}

/** A calibration error in the page's words: what happened and what to do. */
export function calibrationMessage(error: unknown, messageFor: (error: unknown) => string): string {
  if (!(error instanceof ExplorerApiError)) return messageFor(error)
  switch (error.code) {
    case 'not_enough_surveys':
      return `Not enough surveyed plots to calibrate. ${error.message}.`
    case 'calibration_running':
      return `A calibration of this account is already running; an account runs one at a time. Follow it below, or wait and try again. (${error.message}.)`
    default:
      return messageFor(error)
  }
}

/** The running calibration a calibration_running error names (extensions.details.calibration). */
export function runningCalibrationId(error: unknown): string | null {
  if (!(error instanceof ExplorerApiError) || error.code !== 'calibration_running') return null
  const details = error.extensions.details as { calibration?: unknown } | undefined
  return typeof details?.calibration === 'string' ? details.calibration : null
}

/**
 * The Calibrate action of the Observations tab: `calibrateModel` on the tab's filter, polled with
 * `calibration(id)` every POLL_MS while it runs (a progress bar and its stage), then the fit's summary
 * and its two actions, "Use this version" (the selector and the URL) and "Make default"
 * (`setDefaultModel`). Errors (not_enough_surveys, calibration_running, a failed fit) read as messages.
 */
export class CalibrationBox {
  private readonly root: HTMLElement
  private shown: Calibration | null = null
  /** Each run's number: a poll answering an older run (or after forget) is dropped. */
  private run = 0
  private timer: ReturnType<typeof setTimeout> | null = null
  private runningId: string | null = null

  constructor(
    panel: HTMLElement,
    private readonly host: CalibrationHost,
  ) {
    this.root = elementIn(panel, 'calibration', 'the observations panel')
    this.el('calibration-start').addEventListener('click', () => void this.start())
    this.el('calibration-follow').addEventListener('click', () => {
      if (this.runningId) this.follow(this.runningId)
    })
    this.el('calibration-use').addEventListener('click', () => void this.use())
    this.el('calibration-default').addEventListener('click', () => void this.makeDefault())
    this.filterChanged()
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.root, id, 'the calibration box')
  }

  /** Another key, maybe another account: a poll under way stops, the summary goes. */
  forget(): void {
    this.stop()
    this.shown = null
    this.el('calibration-result').hidden = true
    this.clearProblem()
    this.status('')
    this.running(null)
  }

  /** The tab's filter changed: the action names the plots it would fit on. */
  filterChanged(): void {
    this.el('calibration-filter').textContent = filterText(this.host.filter(), this.host.names)
  }

  /** The selector changed, or the default did: the actions say what they would change. */
  reflect(): void {
    const version = this.shown?.model?.version
    if (!version) return
    const listed = this.host.models.find(version)
    const isDefault = listed?.isDefault ?? this.shown?.model?.isDefault ?? false
    const makeDefault = this.el<HTMLButtonElement>('calibration-default')
    makeDefault.disabled = isDefault
    makeDefault.textContent = isDefault ? 'The account’s default' : 'Make default'
  }

  private async start(): Promise<void> {
    this.clearProblem()
    this.el('calibration-done').textContent = ''
    if (!this.host.hasKey()) {
      this.problem('Enter your API key above (or get a free spore key) to calibrate on your surveys.')
      return
    }
    const run = this.begin()
    this.status('Starting the calibration…')
    try {
      const filter = this.host.filter()
      const { data } = await this.host.api.query(ExplorerCalibrateDocument, filter ? { filter } : {})
      if (run !== this.run) return
      this.answered(run, data.calibrateModel)
    } catch (error) {
      if (run !== this.run) return
      this.end()
      this.status('')
      this.runningId = runningCalibrationId(error)
      this.problem(calibrationMessage(error, this.host.messageFor), this.runningId !== null)
    }
  }

  /** Polls a calibration already running (one another request started). */
  private follow(id: string): void {
    this.clearProblem()
    const run = this.begin()
    this.status('Following the running calibration…')
    this.poll(run, id)
  }

  /** A new run: older polls stop, the button waits. */
  private begin(): number {
    this.stop()
    busy(this.root, true)
    this.el<HTMLButtonElement>('calibration-start').disabled = true
    return ++this.run
  }

  private end(): void {
    busy(this.root, false)
    this.el<HTMLButtonElement>('calibration-start').disabled = false
    this.running(null)
  }

  private stop(): void {
    this.run++
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    busy(this.root, false)
    this.el<HTMLButtonElement>('calibration-start').disabled = false
  }

  private poll(run: number, id: string): void {
    this.timer = setTimeout(async () => {
      this.timer = null
      try {
        const { data } = await this.host.api.query(ExplorerCalibrationPollDocument, { id })
        if (run !== this.run) return
        this.answered(run, data.calibration)
      } catch (error) {
        if (run !== this.run) return
        this.end()
        this.status('')
        this.problem(calibrationMessage(error, this.host.messageFor))
      }
    }, POLL_MS)
  }

  /** A calibration as it stands: still running (polled again), failed, or its version fitted. */
  private answered(run: number, calibration: Calibration): void {
    if (calibration.status === 'RUNNING') {
      this.running(calibration)
      this.poll(run, calibration.id)
      return
    }
    this.end()
    if (calibration.status === 'FAILED' || !calibration.model?.fit) {
      this.status('')
      this.problem(
        `The calibration failed: ${calibration.errorMessage ?? 'the server gave no reason'}. Nothing was kept.`,
      )
      return
    }
    this.shown = calibration
    this.status(
      `Calibrated: ${calibration.model.version}, fitted on ${count(calibration.model.fit.plots, 'plot')}.`,
    )
    this.render(calibration.model.version, calibration.model.parent ?? null, calibration.model.fit)
    this.reflect()
    // A new version: the selector lists it.
    void this.host.models.load().then(() => this.reflect())
  }

  /** The progress bar and its words while a calibration runs; null hides them. */
  private running(calibration: Calibration | null): void {
    const box = this.el('calibration-running')
    box.hidden = calibration === null
    if (!calibration) return
    const progress = this.el<HTMLProgressElement>('calibration-progress')
    progress.max = Math.max(1, calibration.stages)
    progress.value = calibration.stagesDone
    const stage =
      calibration.stagesDone === 0
        ? 'fitting on every plot'
        : `cross-validating: fold ${calibration.stagesDone} of ${calibration.stages - 1}`
    this.status(
      `Calibrating${calibration.plots === null || calibration.plots === undefined ? '' : ` on ${count(calibration.plots, 'plot')}`}: ${stage} (${calibration.stagesDone} of ${calibration.stages} stages done).`,
    )
  }

  // ----- the fit's summary -----

  private render(version: string, parent: string | null, fit: CalibrationFit): void {
    this.el('calibration-result').hidden = false
    this.el('calibration-version').textContent = `${version}, calibrated from ${parent ?? 'the base version'}`
    const level = percent(fit.intervalLevel, 0)
    const warnings = this.el('calibration-warnings')
    warnings.hidden = fit.warnings.length === 0
    this.el('calibration-warnings-list').replaceChildren(...fit.warnings.map(listItem))
    this.el('calibration-data').textContent =
      `Fitted on ${filterText(fit.filter, this.host.names)}: ${count(fit.plots, 'plot')}, ${count(fit.trees, 'tree')} ${yearsText(fit.plantingYears)}. Method ${fit.method}.`
    this.renderOffsets(fit, level)
    this.renderTerms(fit, level)
    this.renderCrossValidation(fit)
    this.el('calibration-notes-heading').hidden = fit.notes.length === 0
    this.el('calibration-notes').replaceChildren(...fit.notes.map(listItem))
    const result = this.el('calibration-result')
    result.dataset.version = version
    result.dataset.beatsBase = String(fit.crossValidation.beatsBase)
  }

  private renderOffsets(fit: CalibrationFit, level: string): void {
    const withPlots = fit.offsets.filter((offset) => offset.plots > 0)
    this.el('calibration-offsets-caption').textContent =
      `Offsets of the species × method with plots, added to the base version’s logit, with their ${level} interval; shrinkage: how far pooling moved each from what its own plots say toward its method’s mean`
    this.el('calibration-offsets-body').replaceChildren(
      ...withPlots.map((offset) => {
        const method = METHOD_LABELS[offset.plantingMethod === 'drone_seeded' ? 'drone_seeded' : 'manual']
        const tr = document.createElement('tr')
        tr.dataset.species = offset.speciesCode
        tr.dataset.method = offset.plantingMethod
        tr.append(
          stacked(
            this.host.names.get(offset.speciesCode) ?? offset.speciesCode,
            `${offset.speciesCode}, ${method.toLowerCase()}`,
          ),
          stacked(offset.plots.toLocaleString('en-US'), count(offset.trees, 'tree')),
          stacked(signed(offset.offset), intervalText(offset.interval)),
          stacked(
            percent(offset.shrinkage, 0),
            offset.ownEstimate === null || offset.ownEstimate === undefined
              ? ''
              : `own plots ${signed(offset.ownEstimate)}`,
          ),
        )
        return tr
      }),
    )
    const pooled = fit.offsets.length - withPlots.length
    this.el('calibration-pooled').textContent =
      pooled > 0
        ? `${count(pooled, 'other species × method', 'other species × methods')} without plots take their method’s pooled mean.`
        : ''
  }

  private renderTerms(fit: CalibrationFit, level: string): void {
    this.el('calibration-terms-caption').textContent =
      `Uncertainty terms: the SDs on the logit scale, the dispersion as the variance over the binomial’s; the ${level} interval of each estimated one`
    this.el('calibration-terms-body').replaceChildren(
      ...TERMS.map(([key, label]) => {
        const term = fit[key]
        const tr = document.createElement('tr')
        tr.append(
          stacked(label, ''),
          stacked(
            decimal(term.value, 3),
            term.interval ? intervalText(term.interval, false, 3) : 'no interval: an assumption',
          ),
          stacked(term.status, ''),
        )
        tr.dataset.term = key
        tr.dataset.status = term.status
        return tr
      }),
    )
  }

  private renderCrossValidation(fit: CalibrationFit): void {
    const cv = fit.crossValidation
    const verdict = cv.beatsBase
      ? 'The calibration beats the base version on held-out plots.'
      : 'The calibration does not beat the base version on held-out plots: prefer the base version.'
    const cvText = this.el('calibration-cv')
    cvText.textContent = `${cv.folds}-fold, each plot held out once (${count(cv.plots, 'plot')}): held-out log loss ${cv.calibrated.logLoss.toFixed(3)} calibrated against ${cv.base.logLoss.toFixed(3)} for the base version. ${verdict}`
    cvText.dataset.beatsBase = String(cv.beatsBase)
    const slope = (value: number | null | undefined) =>
      value === null || value === undefined ? 'not estimated' : decimal(value)
    this.el('calibration-cv-body').replaceChildren(
      tableRow(['Log loss', cv.base.logLoss.toFixed(3), cv.calibrated.logLoss.toFixed(3)]),
      tableRow(['Brier score', cv.base.brier.toFixed(3), cv.calibrated.brier.toFixed(3)]),
      tableRow([
        'Calibration in the large',
        signed(cv.base.calibrationInTheLarge),
        signed(cv.calibrated.calibrationInTheLarge),
      ]),
      tableRow(['Calibration slope', slope(cv.base.calibrationSlope), slope(cv.calibrated.calibrationSlope)]),
    )
  }

  // ----- its actions -----

  private async use(): Promise<void> {
    const version = this.shown?.model?.version
    if (!version) return
    // The selector lists the new version once the versions are read again (begun when it was made).
    await this.host.models.ready()
    this.host.useModel(version)
    this.el('calibration-done').textContent =
      `Every tab now answers with ${version} (it is in the URL); the diagram above shows it beside the base version.`
  }

  private async makeDefault(): Promise<void> {
    const version = this.shown?.model?.version
    if (!version) return
    const button = this.el<HTMLButtonElement>('calibration-default')
    button.disabled = true
    this.clearProblem()
    try {
      const { data } = await this.host.api.query(ExplorerSetDefaultModelDocument, { modelVersion: version })
      const made = data.setDefaultModel
      this.el('calibration-done').textContent =
        `${made.version} is now the account’s default: every request that names no version answers with it.`
      await this.host.models.load()
      this.reflect()
    } catch (error) {
      button.disabled = false
      this.problem(this.host.messageFor(error))
    }
  }

  private status(text: string): void {
    this.el('calibration-status').textContent = text
  }

  private problem(message: string, canFollow = false): void {
    this.el('calibration-error').hidden = false
    this.el('calibration-error-text').textContent = message
    this.el('calibration-follow').hidden = !canFollow
  }

  private clearProblem(): void {
    this.el('calibration-error').hidden = true
    this.el('calibration-error-text').textContent = ''
    this.el('calibration-follow').hidden = true
  }
}

function listItem(text: string): HTMLLIElement {
  const li = document.createElement('li')
  li.textContent = text
  return li
}

/** "−1.52 to −0.88" (signed: offsets), or "0.210 to 0.520" (terms). */
function intervalText(interval: readonly number[], withSign = true, digits = 2): string {
  const [low, high] = interval
  if (low === undefined || high === undefined) return '—'
  const format = withSign ? signed : decimal
  return `${format(low, digits)} to ${format(high, digits)}`
}
