import type { CostDefaultOption, SpeciesOption } from '../page-data.ts'
import { ExplorerApiError } from './api.ts'
import { pointFileLabel } from './csv.ts'
import { busy, elementIn } from './dom.ts'
import { climateLabel, METHOD_LABELS } from './format.ts'
import { ExplorerStockingPlanDocument, type StockingPlanInput } from './generated/operations.ts'
import { API_UNREACHABLE, type PanelHost } from './host.ts'
import { planFieldOf } from './plan-error-fields.ts'
import { PlanForm, type Target } from './plan-form.ts'
import { PLAN_TAB_HTML, planPanelHtml } from './plan-html.ts'
import { PlanOptions } from './plan-options.ts'
import { PlanResult, type StockingPlanAnswer } from './plan-result.ts'
import {
  type LoadedStand,
  positionCount,
  STAND_FILE_MAX_BYTES,
  StandFileError,
  standFromText,
} from './plan-stand.ts'
import { StandDrawing } from './plan-stand-drawing.ts'
import { planReport } from './report-bodies.ts'
import { ReportDownload } from './report-download.ts'
import { pinned } from './state.ts'

/**
 * The Plan tab: how many trees to plant. A planted density of a species mix, a planting method and a
 * confidence, at the chosen point or for a stand (loaded from a GeoJSON file, dropped on the map, or
 * drawn on it), asked of `stockingPlan`: surviving trees per acre at 1, 3 and 5 years with the
 * interval, whether the standard is met at the confidence, and the density that would meet it.
 */

/** What the plan needs of the page around it, besides what every panel does. */
export interface PlanHost extends PanelHost {
  species: readonly SpeciesOption[]
  costDefaults: readonly CostDefaultOption[]
  /** Opens the Plan tab (a file dropped on the map while another tab is open). */
  open(): void
}

type Why = 'submit' | 'auto'

const STALE = 'Inputs changed: press Plan to update the plan.'

export class PlanPanel {
  readonly tab: HTMLButtonElement
  readonly panel: HTMLElement
  private readonly form: PlanForm
  private readonly result: PlanResult
  private readonly options: PlanOptions
  private readonly drawing: StandDrawing
  private target: Target = 'point'
  private stand: LoadedStand | null = null
  private answer: StockingPlanAnswer | null = null
  /** What the plan shown was asked for: a stand's source or a point, for its summary. */
  private answered: { target: Target; stand: LoadedStand | null } | null = null
  /** The input the plan shown was asked with (its report asks the same, with the version that answered). */
  private plannedInput: StockingPlanInput | null = null
  private readonly report: ReportDownload
  private asked = 0
  private shown = false

  constructor(
    private readonly host: PlanHost,
    tabs: HTMLElement,
    after: HTMLElement,
  ) {
    tabs.insertAdjacentHTML('beforeend', PLAN_TAB_HTML)
    this.tab = elementIn(tabs, 'tab-plan', 'the tabs')
    this.panel = document.createElement('section')
    this.panel.id = 'panel-plan'
    this.panel.className = 'panel plan-panel'
    this.panel.setAttribute('role', 'tabpanel')
    this.panel.setAttribute('aria-labelledby', 'tab-plan')
    this.panel.setAttribute('aria-busy', 'false')
    this.panel.hidden = true
    this.panel.innerHTML = planPanelHtml(host.costDefaults)
    after.after(this.panel)
    this.form = new PlanForm(
      this.panel,
      host.species,
      host.view().species,
      () => host.map.stand.drawing,
      () => this.inputsChanged(),
    )
    this.result = new PlanResult(this.panel)
    this.options = new PlanOptions(
      this.panel,
      host,
      (focus) => this.readInput(focus),
      () => this.render(),
    )
    this.report = new ReportDownload(host, 'report-plan', 'report-plan-status', () => {
      const input = this.plannedInput
      if (!this.answer || !input) return null
      const { latitude, longitude } = input
      const where =
        latitude === null || latitude === undefined || longitude === null || longitude === undefined
          ? 'stand'
          : pointFileLabel({ latitude, longitude })
      return { report: planReport(input, this.answer.model.version), label: where }
    })
    this.drawing = new StandDrawing(this.panel, host.map, {
      starting: () => {
        this.form.clear()
        this.chooseTarget('stand')
      },
      changed: () => this.reflect(),
      drawn: (geometry) => {
        this.setStand({ geometry, source: 'drawn on the map' }, false)
        void this.request('auto')
      },
      abandoned: () => this.showStandOnMap(false),
    })
    this.wire()
    this.reflect()
    this.render()
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  private wire(): void {
    const form = this.el<HTMLFormElement>('plan-form')
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      void this.request('submit')
    })
    // Any change of an input makes the plan shown stale until planned again.
    form.addEventListener('input', () => this.inputsChanged())
    form.addEventListener('change', () => this.inputsChanged())
    for (const radio of form.querySelectorAll<HTMLInputElement>('input[name="plan-target"]'))
      radio.addEventListener('change', () => {
        if (radio.checked) this.chooseTarget(radio.value as Target)
      })
    this.el('plan-clear-stand').addEventListener('click', () => {
      this.stand = null
      this.host.map.stand.clear()
      this.reflect()
      this.inputsChanged()
    })
    const file = this.el<HTMLInputElement>('plan-file')
    file.addEventListener('change', () => {
      const chosen = file.files?.[0]
      if (chosen) void this.loadFile(chosen)
      file.value = ''
    })
    // A file dropped beside the map must not replace the page with the file.
    for (const type of ['dragover', 'drop'] as const)
      window.addEventListener(type, (event) => {
        const isFileInput = event.target instanceof HTMLInputElement && event.target.type === 'file'
        if (!isFileInput && [...(event.dataTransfer?.types ?? [])].includes('Files')) event.preventDefault()
      })
  }

  private chooseTarget(target: Target): void {
    if (target === this.target) return
    this.target = target
    if (target === 'point') this.drawing.cancel()
    this.el<HTMLInputElement>(`plan-target-${target}`).checked = true
    this.reflect()
    this.showStandOnMap(false)
  }

  private showStandOnMap(fit: boolean): void {
    // Planning a stand, the chosen point and its matched site (with their label) would hide it.
    this.host.map.showPointMarks(!(this.shown && this.target === 'stand'))
    if (this.target === 'stand' && this.stand) this.host.map.stand.show(this.stand.geometry, fit)
    else this.host.map.stand.clear()
    if (this.target === 'stand' && this.stand && this.answer?.stand && this.answered?.stand === this.stand)
      this.host.map.stand.showSites(this.answer.stand.sites)
  }

  // ----- stands -----

  /** A stand file dropped on the map (the page sends a job's results to the results layer instead). */
  dropFile(file: File): void {
    this.host.open()
    void this.loadFile(file)
  }

  private async loadFile(file: File): Promise<void> {
    this.form.clear()
    this.chooseTarget('stand')
    this.drawing.cancel()
    try {
      if (file.size > STAND_FILE_MAX_BYTES)
        throw new StandFileError(
          `${file.name} is ${(file.size / 1e6).toFixed(1)} MB; a stand file may be at most ${STAND_FILE_MAX_BYTES / 1e6} MB.`,
        )
      const geometry = standFromText(await file.text())
      this.setStand({ geometry, source: file.name }, true)
      await this.request('auto')
    } catch (error) {
      if (!(error instanceof StandFileError)) throw error
      this.form.show({ message: `${file.name}: ${error.message}`, field: 'stand' }, false)
    }
  }

  private setStand(stand: LoadedStand, fit: boolean): void {
    this.stand = stand
    this.chooseTarget('stand')
    this.reflect()
    this.showStandOnMap(fit)
  }

  // ----- what the page around it tells -----

  /** The page's point, method or climate changed: the summary says so (and an open plan asks again). */
  reflect(): void {
    const { point, method, climate } = this.host.view()
    const where = this.el('plan-where')
    if (this.target === 'point')
      where.textContent = point
        ? `The chosen point: ${point.latitude.toFixed(5)}, ${point.longitude.toFixed(5)} (click the map to move it).`
        : 'No point yet: click the map, or enter coordinates above.'
    else if (this.host.map.stand.drawing) where.textContent = 'Drawing a new stand on the map.'
    else
      where.textContent = this.stand
        ? `Stand ${this.stand.source.startsWith('drawn') ? this.stand.source : `from ${this.stand.source}`}: ${standShape(this.stand)}.`
        : 'No stand yet: draw one on the map, or load a GeoJSON file (Polygon or MultiPolygon).'
    this.el('plan-stand-tools').hidden = this.target !== 'stand'
    this.el<HTMLButtonElement>('plan-clear-stand').disabled = this.stand === null
    this.el('plan-uses').textContent =
      `${METHOD_LABELS[method]}, ${climateLabel(climate)}: the method and climate chosen above.`
    this.form.treatments.reflect(method)
  }

  /** The panel was opened or closed. Opened with nothing planned yet, it plans what it can. */
  setShown(shown: boolean, plan = true): void {
    const opened = shown && !this.shown
    this.shown = shown
    if (!shown) this.drawing.cancel()
    this.host.map.showPointMarks(!(shown && this.target === 'stand'))
    // Drawn while hidden, the chart had no width: drawn again at the panel's.
    if (opened) this.render()
    if (plan && opened && !this.answer && this.ready()) void this.request('auto')
  }

  /** A new point was chosen on the map or typed in. */
  pointChanged(): void {
    this.reflect()
    if (this.shown && this.target === 'point') {
      void this.request('auto')
      this.options.contextChanged()
    }
  }

  /** The method or the climate changed. */
  contextChanged(): void {
    this.reflect()
    if (this.shown && this.ready()) {
      void this.request('auto')
      this.options.contextChanged()
    }
  }

  private ready(): boolean {
    return (
      this.host.hasKey() && (this.target === 'point' ? this.host.view().point !== null : this.stand !== null)
    )
  }

  private inputsChanged(): void {
    this.form.mix.showSum()
    if (this.answer) this.el('plan-status').textContent = STALE
    this.options.stale()
  }

  // ----- asking -----

  /** The plan's input the form describes (pinned), or null with the problem shown (`focus`ed). */
  private readInput(focus: boolean): StockingPlanInput | null {
    const built = this.form.read({ ...this.host.view(), target: this.target, stand: this.stand })
    if ('problem' in built) {
      this.form.show(built.problem, focus)
      return null
    }
    this.form.clear()
    return { ...built.input, ...pinned(this.host.view()) }
  }

  private async request(why: Why): Promise<void> {
    if (!this.host.hasKey()) {
      this.form.show(
        { message: 'Enter your API key above (or get a free spore key) to plan.', field: null },
        why === 'submit',
      )
      return
    }
    // A newer question: an answer still on its way to an older one is dropped.
    const asked = ++this.asked
    const built = this.form.read({ ...this.host.view(), target: this.target, stand: this.stand })
    if ('problem' in built) {
      busy(this.panel, false)
      this.el('plan-status').textContent = this.answer ? STALE : ''
      this.form.show(built.problem, why === 'submit')
      return
    }
    this.form.clear()
    const target = this.target
    const stand = this.target === 'stand' ? this.stand : null
    const status = this.el('plan-status')
    status.textContent = 'Planning…'
    busy(this.panel, true)
    try {
      const input: StockingPlanInput = { ...built.input, ...pinned(this.host.view()) }
      const { data, errors } = await this.host.api.query(ExplorerStockingPlanDocument, { input })
      if (asked !== this.asked) return
      const plan = data.stockingPlan ?? null
      this.plannedInput = plan ? input : null
      if (!plan) {
        const error = errors[0]
        this.answer = null
        this.answered = null
        this.render()
        this.showApiError(error ?? null, why)
        status.textContent = ''
        return
      }
      this.answer = plan
      this.answered = { target, stand }
      status.textContent = `Planned ${target === 'point' ? 'for the chosen point' : 'for the stand'} at ${new Date().toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })}.`
      this.render()
      if (target === 'stand' && plan.stand) this.host.map.stand.showSites(plan.stand.sites)
      if (why === 'submit') this.revealResult()
    } catch (error) {
      if (asked !== this.asked) return
      status.textContent = ''
      this.showApiError(error, why)
    } finally {
      if (asked === this.asked) busy(this.panel, false)
    }
  }

  /** After a plan asked for by its button: the answer in view (the form is above it). */
  private revealResult(): void {
    const result = this.el('plan-result')
    const box = result.getBoundingClientRect()
    if (box.top < 0 || box.top > window.innerHeight - 120) result.scrollIntoView({ block: 'start' })
  }

  private showApiError(error: unknown, why: Why): void {
    if (error instanceof ExplorerApiError) {
      const details = error.extensions.details as { field?: unknown } | undefined
      const field = planFieldOf(details?.field)
      const refused = error.code === 'invalid_request' ? 'The API refused the plan: ' : ''
      this.form.show({ message: `${refused}${this.host.messageFor(error)}`, field }, why === 'submit')
      return
    }
    this.form.show({ message: API_UNREACHABLE, field: null }, why === 'submit')
  }

  /** Draws the plan shown (again, at the panel's width). */
  render(): void {
    this.result.render(this.answer, this.answered?.stand?.source ?? null)
    this.options.render()
    this.report.reflect()
  }
}

function standShape(stand: LoadedStand): string {
  const polygons = stand.geometry.type === 'Polygon' ? 1 : stand.geometry.coordinates.length
  const positions = positionCount(stand.geometry)
  if (stand.source.startsWith('drawn')) return `${Math.max(0, positions - 1)} vertices`
  return `${polygons} polygon${polygons === 1 ? '' : 's'}, ${positions.toLocaleString('en-US')} positions`
}
