import type { ExplorerApi } from './api.ts'
import { ExplorerApiError } from './api.ts'
import { climateLabel, METHOD_LABELS, percent, stockingChart } from './charts.ts'
import {
  ExplorerStockingPlanDocument,
  type ExplorerStockingPlanQuery,
  type PlantingMethod,
  type StockingPlanInput,
} from './generated/operations.ts'
import { type ExplorerMap, MIN_STAND_VERTICES } from './map.ts'
import {
  CONFIDENCE_MAX_PERCENT,
  CONFIDENCE_MIN_PERCENT,
  formatShare,
  type LoadedStand,
  type MixRow,
  mixProblem,
  type PlanField,
  planFieldOf,
  polygonOfVertices,
  positionCount,
  SPECIES_MIX_MAX,
  STAND_FILE_MAX_BYTES,
  StandFileError,
  shareSum,
  standFromText,
  TREES_PER_ACRE_MAX,
  TREES_PER_HECTARE_PER_ACRE,
} from './plan-input.ts'
import { type Climate, climateOf, type Method, type Point } from './state.ts'

/**
 * The Plan tab: how many trees to plant. A planted density of a species mix, a planting method and a
 * confidence, at the chosen point or for a stand (loaded from a GeoJSON file, dropped on the map, or
 * drawn on it), asked of `stockingPlan`: surviving trees per acre at 1, 3 and 5 years with the
 * interval, whether the standard is met at the confidence, and the density that would meet it.
 */

export type StockingPlanAnswer = NonNullable<ExplorerStockingPlanQuery['stockingPlan']>

/** What the plan needs of the page around it. */
export interface PlanHost {
  api: ExplorerApi
  map: ExplorerMap
  species: readonly { code: string; commonName: string }[]
  /** The page's choices the plan shares: the point, the method and the climate (the controls above). */
  view(): { point: Point | null; method: Method; climate: Climate | null; species: string }
  hasKey(): boolean
  /** An API error in the page's words (outside coverage, no nearby data, …). */
  messageFor(error: ExplorerApiError): string
  /** Opens the Plan tab (a file dropped on the map while another tab is open). */
  open(): void
  busy(region: HTMLElement, on: boolean): void
}

type Target = 'point' | 'stand'
type DensityUnit = 'acre' | 'hectare'
type Why = 'submit' | 'auto'

const GRAPHQL_METHOD: Record<Method, PlantingMethod> = { manual: 'MANUAL', drone_seeded: 'DRONE_SEEDED' }
const DEFAULT_DENSITY_TPA = 300
const DEFAULT_CONFIDENCE_PERCENT = 90
const RULE_SETS: [string, string][] = [
  ['', 'From the location'],
  ['or_fpa', 'Oregon (or_fpa)'],
  ['wa_fpa_west', 'Washington, west of the crest (wa_fpa_west)'],
  ['wa_fpa_east', 'Washington, east of the crest (wa_fpa_east)'],
]
const SITE_CLASSES: [string, string][] = [
  ['', 'The modelled class'],
  ['I-III', 'I–III'],
  ['IV-V', 'IV–V'],
  ['VI', 'VI'],
]

const TAB_HTML = `<button type="button" id="tab-plan" role="tab" aria-controls="panel-plan">Plan</button>`

const PANEL_HTML = `
<div class="spinner" aria-hidden="true"></div>
<h2 class="plan-title">How many trees to plant?</h2>
<form id="plan-form" class="plan-form" novalidate>
  <fieldset class="plan-target">
    <legend>Plan for</legend>
    <div class="plan-choices">
      <label><input type="radio" name="plan-target" id="plan-target-point" value="point" checked> The chosen point</label>
      <label><input type="radio" name="plan-target" id="plan-target-stand" value="stand"> A stand</label>
    </div>
    <p id="plan-where" class="plan-where"></p>
    <div id="plan-stand-tools" class="stand-tools" hidden>
      <div class="stand-buttons">
        <button type="button" id="plan-draw" class="secondary">Draw on the map</button>
        <button type="button" id="plan-clear-stand" class="secondary">Clear stand</button>
      </div>
      <div id="plan-drawing" class="drawing" hidden>
        <p id="plan-drawing-status" class="drawing-status" role="status" aria-live="polite"></p>
        <div class="stand-buttons">
          <button type="button" id="plan-finish">Close stand</button>
          <button type="button" id="plan-undo" class="secondary">Undo vertex</button>
          <button type="button" id="plan-add-centre" class="secondary">Add map centre</button>
          <button type="button" id="plan-cancel" class="secondary">Cancel</button>
        </div>
      </div>
      <div class="field plan-file">
        <label for="plan-file">Stand from a GeoJSON file (or drop it on the map)</label>
        <input id="plan-file" name="plan-file" type="file" accept=".geojson,.json,application/geo+json,application/json">
      </div>
    </div>
  </fieldset>
  <div class="plan-grid">
    <div class="field"><label for="plan-density">Planted density</label><input id="plan-density" name="plan-density" type="number" inputmode="decimal" min="1" step="any" required></div>
    <div class="field"><label for="plan-density-unit">Density unit</label><select id="plan-density-unit" name="plan-density-unit"><option value="acre">trees per acre</option><option value="hectare">trees per hectare</option></select></div>
    <div class="field"><label for="plan-confidence">Confidence (%)</label><input id="plan-confidence" name="plan-confidence" type="number" inputmode="numeric" min="${CONFIDENCE_MIN_PERCENT}" max="${CONFIDENCE_MAX_PERCENT}" step="1" required></div>
    <p id="plan-uses" class="plan-uses"></p>
  </div>
  <fieldset id="plan-mix" class="plan-mix">
    <legend>Species mix</legend>
    <div class="mix-head" aria-hidden="true"><span>Species</span><span>Share (0–1)</span></div>
    <div id="plan-mix-rows" class="mix-rows"></div>
    <div class="mix-footer">
      <button type="button" id="plan-add-species" class="secondary">Add species</button>
      <button type="button" id="plan-even" class="secondary">Equal shares</button>
      <span id="plan-mix-sum" class="mix-sum" aria-live="polite"></span>
    </div>
  </fieldset>
  <details id="plan-standard" class="plan-standard">
    <summary>Standard (optional)</summary>
    <div class="plan-grid">
      <div class="field"><label for="plan-rule-set">Rule set</label><select id="plan-rule-set" name="plan-rule-set"></select></div>
      <div class="field"><label for="plan-site-class">Site class (Oregon)</label><select id="plan-site-class" name="plan-site-class"></select></div>
      <div class="field"><label for="plan-custom-target">Custom target (trees per acre)</label><input id="plan-custom-target" name="plan-custom-target" type="number" inputmode="decimal" min="1" step="any" placeholder="the rule’s minimum"></div>
    </div>
  </details>
  <div class="plan-actions">
    <button type="submit" id="plan-submit">Plan</button>
    <p id="plan-status" class="plan-status" role="status" aria-live="polite"></p>
  </div>
  <div id="plan-error" class="plan-error" role="alert" hidden></div>
</form>
<div id="plan-result" class="plan-result">
  <p id="plan-verdict" class="verdict"></p>
  <p id="plan-required" class="required"></p>
  <h2>Surviving trees per acre</h2>
  <div id="plan-chart" class="chart chart-plan"></div>
  <p id="plan-verify" class="verify-flag" hidden></p>
  <p id="plan-rule" class="summary plan-rule"></p>
  <p id="plan-site" class="summary plan-site"></p>
  <table id="plan-species" class="differential plan-species" hidden>
    <caption id="plan-species-caption">By species</caption>
    <thead><tr><th scope="col">Species</th><th scope="col">Share</th><th scope="col">Survival</th><th scope="col">Trees per acre</th></tr></thead>
    <tbody id="plan-species-body"></tbody>
  </table>
  <h2>Notes</h2>
  <ul id="plan-notes" class="plan-notes"></ul>
</div>`

function byId<T extends HTMLElement>(root: ParentNode, id: string): T {
  const found = root.querySelector(`#${id}`)
  if (!found) throw new Error(`the plan panel has no #${id}`)
  return found as T
}

const STALE = 'Inputs changed: press Plan to update the plan.'

/** Room above the plot for the chart's legend (one line of swatches; two are measured and made room for). */
const LEGEND_ALLOWANCE = 30

const trees = (value: number): string => Math.round(value).toLocaleString('en-US')
const years = (n: number): string => `${n} year${n === 1 ? '' : 's'}`

/** A problem the page found before asking, or the API's answer to one it did not. */
interface Problem {
  message: string
  field: PlanField | null
  /** Mix rows (0-based) the problem is about, and whether their species or their shares are wrong. */
  rows?: number[]
  mixSpecies?: boolean
}

interface MixRowElements {
  row: HTMLElement
  select: HTMLSelectElement
  share: HTMLInputElement
  remove: HTMLButtonElement
  labels: { species: HTMLLabelElement; share: HTMLLabelElement }
}

export class PlanPanel {
  readonly tab: HTMLButtonElement
  readonly panel: HTMLElement
  private target: Target = 'point'
  private stand: LoadedStand | null = null
  private answer: StockingPlanAnswer | null = null
  /** What the plan shown was asked for: a stand's source or a point, for its summary. */
  private answered: { target: Target; stand: LoadedStand | null } | null = null
  private asked = 0
  private rowCounter = 0
  private shown = false

  constructor(
    private readonly host: PlanHost,
    tabs: HTMLElement,
    after: HTMLElement,
  ) {
    tabs.insertAdjacentHTML('beforeend', TAB_HTML)
    this.tab = byId(tabs, 'tab-plan')
    this.panel = document.createElement('section')
    this.panel.id = 'panel-plan'
    this.panel.className = 'panel plan-panel'
    this.panel.setAttribute('role', 'tabpanel')
    this.panel.setAttribute('aria-labelledby', 'tab-plan')
    this.panel.setAttribute('aria-busy', 'false')
    this.panel.hidden = true
    this.panel.innerHTML = PANEL_HTML
    after.after(this.panel)
    this.fill()
    this.wire()
    this.reflect()
    this.render()
  }

  private el<T extends HTMLElement>(id: string): T {
    return byId<T>(this.panel, id)
  }

  // ----- the form -----

  private fill(): void {
    this.el<HTMLInputElement>('plan-density').value = String(DEFAULT_DENSITY_TPA)
    this.el<HTMLInputElement>('plan-confidence').value = String(DEFAULT_CONFIDENCE_PERCENT)
    const ruleSet = this.el<HTMLSelectElement>('plan-rule-set')
    for (const [value, label] of RULE_SETS) ruleSet.append(new Option(label, value))
    const siteClass = this.el<HTMLSelectElement>('plan-site-class')
    for (const [value, label] of SITE_CLASSES) siteClass.append(new Option(label, value))
    this.addMixRow(this.host.view().species, 1)
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
    this.el('plan-add-species').addEventListener('click', () => {
      const used = new Set(this.mixElements().map((row) => row.select.value))
      const code = this.host.species.find((s) => !used.has(s.code))?.code ?? this.host.species[0]?.code ?? ''
      const rest = Math.max(0, 1 - shareSum(this.mixRows()))
      const row = this.addMixRow(code, Number(rest.toFixed(3)))
      row.select.focus()
      this.inputsChanged()
    })
    this.el('plan-even').addEventListener('click', () => {
      const rows = this.mixElements()
      const each = Math.floor((1 / rows.length) * 1000) / 1000
      rows.forEach((row, i) => {
        const share = i === rows.length - 1 ? 1 - each * (rows.length - 1) : each
        row.share.value = String(Number(share.toFixed(3)))
      })
      this.inputsChanged()
    })
    const unit = this.el<HTMLSelectElement>('plan-density-unit')
    unit.addEventListener('change', () => {
      // The density keeps its meaning when its unit changes.
      const density = this.el<HTMLInputElement>('plan-density')
      const value = Number(density.value)
      if (density.value.trim() !== '' && Number.isFinite(value)) {
        const converted =
          unit.value === 'hectare' ? value * TREES_PER_HECTARE_PER_ACRE : value / TREES_PER_HECTARE_PER_ACRE
        density.value = String(Math.round(converted))
      }
    })
    this.el('plan-draw').addEventListener('click', () => this.startDrawing())
    this.el('plan-finish').addEventListener('click', () => {
      if (!this.host.map.finishSketch()) this.drawingStatus(this.vertexCount, true)
    })
    this.el('plan-undo').addEventListener('click', () => this.host.map.undoVertex())
    this.el('plan-add-centre').addEventListener('click', () => this.host.map.addCentreVertex())
    this.el('plan-cancel').addEventListener('click', () => this.cancelDrawing(true))
    this.el('plan-clear-stand').addEventListener('click', () => {
      this.stand = null
      this.host.map.clearStand()
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
    // While drawing: Escape gives up, Enter closes the ring (on the map, which keeps the arrow keys).
    this.host.map.container.addEventListener('keydown', (event) => {
      if (!this.host.map.drawing) return
      if (event.key === 'Escape') {
        event.preventDefault()
        this.cancelDrawing(true)
      } else if (event.key === 'Enter') {
        event.preventDefault()
        if (!this.host.map.finishSketch()) this.drawingStatus(this.vertexCount, true)
      }
    })
  }

  private addMixRow(code: string, share: number): MixRowElements {
    const n = ++this.rowCounter
    const row = document.createElement('div')
    row.className = 'mix-row'
    const speciesLabel = document.createElement('label')
    speciesLabel.className = 'visually-hidden'
    speciesLabel.htmlFor = `plan-species-${n}`
    const select = document.createElement('select')
    select.id = `plan-species-${n}`
    select.className = 'mix-species'
    for (const species of this.host.species)
      select.append(new Option(`${species.commonName} (${species.code})`, species.code))
    select.value = code
    const shareLabel = document.createElement('label')
    shareLabel.className = 'visually-hidden'
    shareLabel.htmlFor = `plan-share-${n}`
    const input = document.createElement('input')
    input.id = `plan-share-${n}`
    input.className = 'mix-share'
    input.type = 'number'
    input.inputMode = 'decimal'
    input.min = '0'
    input.max = '1'
    input.step = '0.05'
    input.value = String(share)
    const remove = document.createElement('button')
    remove.type = 'button'
    remove.className = 'mix-remove secondary'
    remove.textContent = '✕'
    remove.addEventListener('click', () => {
      const rows = this.mixElements()
      const index = rows.findIndex((r) => r.row === row)
      row.remove()
      const left = this.mixElements()
      this.renumberMix()
      ;(left[index]?.select ?? this.el('plan-add-species')).focus()
      this.inputsChanged()
    })
    row.append(speciesLabel, select, shareLabel, input, remove)
    this.el('plan-mix-rows').append(row)
    this.renumberMix()
    return { row, select, share: input, remove, labels: { species: speciesLabel, share: shareLabel } }
  }

  private mixElements(): MixRowElements[] {
    return [...this.el('plan-mix-rows').querySelectorAll<HTMLElement>('.mix-row')].map((row) => {
      const [species, share] = [...row.querySelectorAll('label')] as [HTMLLabelElement, HTMLLabelElement]
      return {
        row,
        select: row.querySelector('select') as HTMLSelectElement,
        share: row.querySelector('input') as HTMLInputElement,
        remove: row.querySelector('button') as HTMLButtonElement,
        labels: { species, share },
      }
    })
  }

  private mixRows(): MixRow[] {
    return this.mixElements().map(({ select, share }) => ({
      speciesCode: select.value,
      share: share.value.trim() === '' ? Number.NaN : Number(share.value),
    }))
  }

  /** Labels say "Species 2", "Share of species 2" in the order shown; one species cannot be removed. */
  private renumberMix(): void {
    const rows = this.mixElements()
    rows.forEach(({ labels, remove }, i) => {
      labels.species.textContent = `Species ${i + 1}`
      labels.share.textContent = `Share of species ${i + 1}`
      remove.setAttribute('aria-label', `Remove species ${i + 1}`)
      remove.title = `Remove species ${i + 1}`
      remove.disabled = rows.length === 1
    })
    this.el<HTMLButtonElement>('plan-add-species').disabled = rows.length >= SPECIES_MIX_MAX
    this.el<HTMLButtonElement>('plan-even').disabled = rows.length < 2
    this.showSum()
  }

  private showSum(): void {
    const sum = shareSum(this.mixRows())
    const ok = Math.abs(sum - 1) <= 0.001
    const text = this.el('plan-mix-sum')
    text.textContent = ok
      ? `Shares sum to ${formatShare(sum)}`
      : `Shares sum to ${formatShare(sum)}: must be 1`
    text.dataset.valid = String(ok)
  }

  private speciesName = (code: string): string =>
    this.host.species.find((s) => s.code === code)?.commonName ?? code

  private chooseTarget(target: Target): void {
    if (target === this.target) return
    this.target = target
    if (target === 'point') this.cancelDrawing()
    this.el<HTMLInputElement>(`plan-target-${target}`).checked = true
    this.reflect()
    this.showStandOnMap(false)
  }

  private showStandOnMap(fit: boolean): void {
    // Planning a stand, the chosen point and its matched site (with their label) would hide it.
    this.host.map.showPointMarks(!(this.shown && this.target === 'stand'))
    if (this.target === 'stand' && this.stand) this.host.map.showStand(this.stand.geometry, fit)
    else this.host.map.clearStand()
    if (this.target === 'stand' && this.stand && this.answer?.stand && this.answered?.stand === this.stand)
      this.host.map.showStandSites(this.answer.stand.sites)
  }

  // ----- stands -----

  private vertexCount = 0

  private startDrawing(): void {
    this.clearProblem()
    this.chooseTarget('stand')
    this.host.map.clearStand()
    this.host.map.startSketch({
      onChange: (count) => {
        this.vertexCount = count
        this.drawingStatus(count, false)
      },
      onClose: (vertices) => {
        this.drawingShown(false)
        this.reflect()
        this.host.map.say(null)
        this.setStand({ geometry: polygonOfVertices(vertices), source: 'drawn on the map' }, false)
        void this.request('auto')
      },
    })
    this.drawingShown(true)
    this.reflect()
    this.host.map.say(
      'Drawing a stand: click the map to add its vertices; double-click, or click the first vertex, to close it.',
    )
    // On a phone the map is above the panel: brought into view, to be drawn on.
    const map = this.host.map.container.getBoundingClientRect()
    if (map.top < 0 || map.bottom > window.innerHeight)
      this.host.map.container.scrollIntoView({ block: 'start' })
    this.el('plan-finish').focus({ preventScroll: true })
  }

  /** Gives up drawing (the stand before comes back); `focus`: the user did, and goes back to Draw. */
  private cancelDrawing(focus = false): void {
    if (!this.host.map.drawing) return
    this.host.map.stopSketch()
    this.host.map.say(null)
    this.drawingShown(false)
    this.reflect()
    this.showStandOnMap(false)
    if (focus) this.el('plan-draw').focus({ preventScroll: true })
  }

  private drawingShown(on: boolean): void {
    this.el('plan-drawing').hidden = !on
    this.el<HTMLButtonElement>('plan-draw').disabled = on
  }

  private drawingStatus(count: number, tooFew: boolean): void {
    const more = MIN_STAND_VERTICES - count
    this.el('plan-drawing-status').textContent =
      `${count} ${count === 1 ? 'vertex' : 'vertices'}. ` +
      (more > 0
        ? `${tooFew ? 'A stand needs at least 3: add' : 'Add'} ${more} more, then close the stand.`
        : 'Double-click the map, click the first vertex, or press “Close stand” (Enter on the map) to close it.')
    this.el<HTMLButtonElement>('plan-finish').disabled = count < MIN_STAND_VERTICES
    this.el<HTMLButtonElement>('plan-undo').disabled = count === 0
  }

  /** A stand file dropped on the map (the page sends a job's results to the results layer instead). */
  dropFile(file: File): void {
    this.host.open()
    void this.loadFile(file)
  }

  private async loadFile(file: File): Promise<void> {
    this.clearProblem()
    this.chooseTarget('stand')
    this.cancelDrawing()
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
      this.showProblem({ message: `${file.name}: ${error.message}`, field: 'stand' }, false)
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
    else if (this.host.map.drawing) where.textContent = 'Drawing a new stand on the map.'
    else
      where.textContent = this.stand
        ? `Stand ${this.stand.source.startsWith('drawn') ? this.stand.source : `from ${this.stand.source}`}: ${standShape(this.stand)}.`
        : 'No stand yet: draw one on the map, or load a GeoJSON file (Polygon or MultiPolygon).'
    this.el('plan-stand-tools').hidden = this.target !== 'stand'
    this.el<HTMLButtonElement>('plan-clear-stand').disabled = this.stand === null
    this.el('plan-uses').textContent =
      `${METHOD_LABELS[method]}, ${climateLabel(climate)}: the method and climate chosen above.`
  }

  /** The panel was opened or closed. Opened with nothing planned yet, it plans what it can. */
  setShown(shown: boolean, plan = true): void {
    const opened = shown && !this.shown
    this.shown = shown
    if (!shown) this.cancelDrawing()
    this.host.map.showPointMarks(!(shown && this.target === 'stand'))
    // Drawn while hidden, the chart had no width: drawn again at the panel's.
    if (opened) this.render()
    if (plan && opened && !this.answer && this.ready()) void this.request('auto')
  }

  /** A new point was chosen on the map or typed in. */
  pointChanged(): void {
    this.reflect()
    if (this.shown && this.target === 'point') void this.request('auto')
  }

  /** The method or the climate changed. */
  contextChanged(): void {
    this.reflect()
    if (this.shown && this.ready()) void this.request('auto')
  }

  private ready(): boolean {
    return (
      this.host.hasKey() && (this.target === 'point' ? this.host.view().point !== null : this.stand !== null)
    )
  }

  private inputsChanged(): void {
    this.showSum()
    if (this.answer) this.el('plan-status').textContent = STALE
  }

  // ----- asking -----

  /** The input of the plan the form describes, or the first problem with it. */
  private input(): { input: StockingPlanInput } | { problem: Problem } {
    const { point, method, climate } = this.host.view()
    let where: Partial<StockingPlanInput>
    if (this.target === 'point') {
      if (!point)
        return {
          problem: {
            message: 'Choose a point first: click the map, or enter its coordinates above.',
            field: 'point',
          },
        }
      where = { latitude: point.latitude, longitude: point.longitude }
    } else {
      if (this.host.map.drawing)
        return {
          problem: {
            message: 'Close the stand first: double-click the map, or press “Close stand”.',
            field: 'stand',
          },
        }
      if (!this.stand)
        return {
          problem: { message: 'Draw a stand on the map, or load a GeoJSON file, first.', field: 'stand' },
        }
      where = { stand: this.stand.geometry }
    }
    const unit = this.el<HTMLSelectElement>('plan-density-unit').value as DensityUnit
    const densityText = this.el<HTMLInputElement>('plan-density').value.trim()
    const density = Number(densityText)
    const maxDensity =
      unit === 'acre' ? TREES_PER_ACRE_MAX : Math.round(TREES_PER_ACRE_MAX * TREES_PER_HECTARE_PER_ACRE)
    if (densityText === '' || !(density > 0 && density <= maxDensity))
      return {
        problem: {
          message: `The planted density must be above 0 and at most ${maxDensity.toLocaleString('en-US')} trees per ${unit}.`,
          field: 'density',
        },
      }
    const confidenceText = this.el<HTMLInputElement>('plan-confidence').value.trim()
    const confidence = Number(confidenceText)
    if (
      confidenceText === '' ||
      !(confidence >= CONFIDENCE_MIN_PERCENT && confidence <= CONFIDENCE_MAX_PERCENT)
    )
      return {
        problem: {
          message: `The confidence must be from ${CONFIDENCE_MIN_PERCENT} to ${CONFIDENCE_MAX_PERCENT} %.`,
          field: 'confidence',
        },
      }
    const rows = this.mixRows()
    const mix = mixProblem(rows, this.speciesName)
    if (mix)
      return {
        problem: { message: mix.message, field: 'mix', rows: mix.rows, mixSpecies: mix.kind === 'species' },
      }
    const targetText = this.el<HTMLInputElement>('plan-custom-target').value.trim()
    const target = Number(targetText)
    if (targetText !== '' && !(target > 0 && target <= TREES_PER_ACRE_MAX))
      return {
        problem: {
          message: `A custom target must be above 0 and at most ${TREES_PER_ACRE_MAX.toLocaleString('en-US')} trees per acre.`,
          field: 'target',
        },
      }
    const ruleSet = this.el<HTMLSelectElement>('plan-rule-set').value
    const siteClass = this.el<HTMLSelectElement>('plan-site-class').value
    return {
      input: {
        ...where,
        plantingMethod: GRAPHQL_METHOD[method],
        speciesMix: rows.map(({ speciesCode, share }) => ({ speciesCode, share })),
        ...(unit === 'acre' ? { treesPerAcre: density } : { treesPerHectare: density }),
        confidence: Math.round(confidence) / 100,
        ...(ruleSet ? { ruleSet } : {}),
        ...(siteClass ? { siteClass } : {}),
        ...(targetText !== '' ? { targetTreesPerAcre: target } : {}),
        ...(climate ? { climate } : {}),
      },
    }
  }

  private async request(why: Why): Promise<void> {
    if (!this.host.hasKey()) {
      this.showProblem(
        { message: 'Enter your API key above (or get a free spore key) to plan.', field: null },
        why === 'submit',
      )
      return
    }
    // A newer question: an answer still on its way to an older one is dropped.
    const asked = ++this.asked
    const built = this.input()
    if ('problem' in built) {
      this.host.busy(this.panel, false)
      this.el('plan-status').textContent = this.answer ? STALE : ''
      this.showProblem(built.problem, why === 'submit')
      return
    }
    this.clearProblem()
    const target = this.target
    const stand = this.target === 'stand' ? this.stand : null
    const status = this.el('plan-status')
    status.textContent = 'Planning…'
    this.host.busy(this.panel, true)
    try {
      const { data, errors } = await this.host.api.query(ExplorerStockingPlanDocument, { input: built.input })
      if (asked !== this.asked) return
      const plan = data.stockingPlan ?? null
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
      if (target === 'stand' && plan.stand) this.host.map.showStandSites(plan.stand.sites)
      if (why === 'submit') this.revealResult()
    } catch (error) {
      if (asked !== this.asked) return
      status.textContent = ''
      this.showApiError(error, why)
    } finally {
      if (asked === this.asked) this.host.busy(this.panel, false)
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
      this.showProblem({ message: `${refused}${this.host.messageFor(error)}`, field }, why === 'submit')
      return
    }
    this.showProblem(
      { message: 'The API could not be reached. Check your connection and try again.', field: null },
      why === 'submit',
    )
  }

  /** The problem under the form, the inputs it is about marked invalid (and, asked by the button, focused). */
  private showProblem(problem: Problem, focus: boolean): void {
    this.clearProblem()
    const box = this.el('plan-error')
    box.textContent = problem.message
    box.dataset.field = problem.field ?? ''
    box.hidden = false
    const inputs = this.inputsOf(problem)
    for (const input of inputs) input.setAttribute('aria-invalid', 'true')
    if (focus) (inputs[0] ?? box).focus()
  }

  private clearProblem(): void {
    const box = this.el('plan-error')
    box.hidden = true
    box.textContent = ''
    for (const input of this.panel.querySelectorAll('[aria-invalid="true"]'))
      input.removeAttribute('aria-invalid')
  }

  private inputsOf(problem: Problem): HTMLElement[] {
    const mix = this.mixElements()
    switch (problem.field) {
      case 'mix': {
        const rows = problem.rows ?? mix.map((_, i) => i)
        return rows.flatMap((i): HTMLElement[] => {
          const row = mix[i]
          if (!row) return []
          return [problem.mixSpecies ? row.select : row.share]
        })
      }
      case 'density':
        return [this.el('plan-density')]
      case 'confidence':
        return [this.el('plan-confidence')]
      case 'target':
        return this.openStandard([this.el('plan-custom-target')])
      case 'ruleSet':
        return this.openStandard([this.el('plan-rule-set')])
      case 'siteClass':
        return this.openStandard([this.el('plan-site-class')])
      case 'stand':
        return this.host.map.drawing ? [this.el('plan-finish')] : [this.el('plan-file')]
      default:
        return []
    }
  }

  private openStandard(inputs: HTMLElement[]): HTMLElement[] {
    this.el<HTMLDetailsElement>('plan-standard').open = true
    return inputs
  }

  // ----- the answer -----

  /** Draws the plan shown (again, at the panel's width). */
  render(): void {
    const chart = this.el('plan-chart')
    const plan = this.answer
    this.el('plan-result').dataset.state = plan ? 'planned' : 'empty'
    for (const id of ['plan-verdict', 'plan-required', 'plan-rule', 'plan-site'])
      this.el(id).replaceChildren()
    this.el('plan-notes').replaceChildren()
    this.el('plan-verify').hidden = true
    this.el('plan-species').hidden = true
    if (!plan) {
      delete this.el('plan-verdict').dataset.meets
      chart.replaceChildren(
        placeholder(
          'Choose a point on the map (or a stand), set the density, the species mix and the confidence, then press Plan.',
        ),
      )
      return
    }
    const { rule } = plan
    const confidence = percent(plan.confidence, 0)
    const verdict = this.el('plan-verdict')
    verdict.dataset.meets = String(plan.meetsAtConfidence)
    const strong = document.createElement('strong')
    strong.textContent = plan.meetsAtConfidence
      ? `Meets the standard at ${confidence} confidence`
      : `Does not meet the standard at ${confidence} confidence`
    verdict.append(
      strong,
      `: a ${percent(plan.meetsProbability)} probability of at least ${trees(rule.targetTreesPerAcre)} surviving trees per acre at ${years(rule.horizonYears)}, with ${trees(plan.plantedTreesPerAcre)} planted per acre (${trees(plan.plantedTreesPerHectare)} per hectare).`,
    )
    const required = this.el('plan-required')
    if (plan.requiredTreesPerAcre === null || plan.requiredTreesPerAcre === undefined)
      required.textContent = `Required density: none up to ${trees(TREES_PER_ACRE_MAX)} trees per acre meets ${trees(rule.targetTreesPerAcre)} per acre at ${confidence} confidence here; choose other species or another method.`
    else
      required.textContent = `Required density at ${confidence} confidence: ${trees(plan.requiredTreesPerAcre)} trees per acre${plan.requiredTreesPerHectare ? ` (${trees(plan.requiredTreesPerHectare)} per hectare)` : ''}${plan.overplantingFactor ? `, an overplanting factor of ${plan.overplantingFactor.toFixed(2)} over the target of ${trees(rule.targetTreesPerAcre)}` : ''}.`
    this.drawChart(plan)
    const verify = this.el('plan-verify')
    verify.hidden = !rule.verify
    verify.textContent = rule.verify
      ? `Verify: the minimum of ${trees(rule.minimumTreesPerAcre)} trees per acre${rule.siteClass ? ` for site class ${rule.siteClass}` : ''} came from secondary summaries; check it against ${rule.citation} before relying on it.`
      : ''
    const target = rule.customTarget
      ? `a custom target of ${trees(rule.targetTreesPerAcre)} trees per acre (the rule’s minimum is ${trees(rule.minimumTreesPerAcre)})`
      : `${trees(rule.minimumTreesPerAcre)} trees per acre`
    this.el('plan-rule').textContent =
      `Standard: ${rule.name}${rule.siteClass ? `, site class ${rule.siteClass}` : ''}: ${target} at ${years(rule.horizonYears)} (${rule.citation}). Status: ${rule.status}.`
    this.el('plan-site').textContent = this.whereText(plan)
    this.renderSpecies(plan)
    this.el('plan-notes').replaceChildren(
      ...plan.notes.map((note) => {
        const li = document.createElement('li')
        li.textContent = note
        return li
      }),
    )
  }

  /**
   * The chart fills its box (of fixed height: an answer moves nothing below it). The legend above the
   * plot may take one line or two, so a plot that would overflow the box is drawn again, shorter.
   */
  private drawChart(plan: StockingPlanAnswer): void {
    const chart = this.el('plan-chart')
    const width = Math.max(260, Math.floor(chart.clientWidth))
    // A few pixels to spare: the x-axis label's descenders reach just past the plot's bottom edge.
    const box = Math.floor(chart.clientHeight) - 6
    const draw = (height: number) => {
      const figure = stockingChart(
        {
          horizons: plan.horizons,
          targetTreesPerAcre: plan.rule.targetTreesPerAcre,
          ruleHorizonYears: plan.rule.horizonYears,
          plantedTreesPerAcre: plan.plantedTreesPerAcre,
          confidence: plan.confidence,
        },
        width,
        height,
      )
      chart.replaceChildren(figure)
      return figure
    }
    const first = draw(Math.max(160, box - LEGEND_ALLOWANCE))
    const overflow = first.getBoundingClientRect().height - box
    if (box > 0 && overflow > 0.5) draw(Math.max(160, box - LEGEND_ALLOWANCE - Math.ceil(overflow)))
  }

  private whereText(plan: StockingPlanAnswer): string {
    const method = METHOD_LABELS[plan.plantingMethod === 'DRONE_SEEDED' ? 'drone_seeded' : 'manual']
    const how = `${method}, ${climateLabel(climateOf(plan.climatePeriod ?? null, plan.climateScenario ?? null))}`
    if (plan.site) {
      const s = plan.site
      return `Point ${s.latitude.toFixed(5)}, ${s.longitude.toFixed(5)}: matched data site ${s.siteId}, ${s.matchDistanceKm.toFixed(2)} km away (${s.zone.replaceAll('_', ' ')}, site class ${s.siteClass}${s.state ? `, ${s.state}` : ''}). ${how}.`
    }
    if (plan.stand) {
      const s = plan.stand
      const source = this.answered?.stand?.source
      const from = source ? (source.startsWith('drawn') ? ` ${source}` : ` from ${source}`) : ''
      const sites = s.nearestSiteUsed
        ? `no data site inside; the nearest, ${s.nearestSiteDistanceKm?.toFixed(2)} km from its centre, stands for it`
        : `${s.sitesInside} data site${s.sitesInside === 1 ? '' : 's'} inside`
      return `Stand${from}: ${s.areaHa.toLocaleString('en-US', { maximumFractionDigits: 2 })} ha, ${sites} (site class ${s.siteClass}${s.state ? `, ${s.state}` : ''}). ${how}.`
    }
    return how
  }

  private renderSpecies(plan: StockingPlanAnswer): void {
    const atRule =
      plan.horizons.find((h) => h.horizonYears === plan.rule.horizonYears) ??
      plan.horizons[plan.horizons.length - 1]
    if (!atRule) return
    this.el('plan-species').hidden = false
    const capped = atRule.bySpecies.some((s) => !s.countsInFull)
    this.el('plan-species-caption').textContent =
      `By species at ${years(atRule.horizonYears)}${capped ? '; ‡ counts toward the standard only up to the hardwood cap' : ''}`
    this.el('plan-species-body').replaceChildren(
      ...atRule.bySpecies.map((s) => {
        const tr = document.createElement('tr')
        const cells = [
          `${s.species.commonName}${s.countsInFull ? '' : ' ‡'}`,
          formatShare(s.share),
          percent(s.survivalProbability),
          `${trees(s.expectedTreesPerAcre)} of ${trees(s.plantedTreesPerAcre)}`,
        ]
        for (const text of cells) {
          const td = document.createElement('td')
          td.textContent = text
          tr.append(td)
        }
        return tr
      }),
    )
  }
}

function standShape(stand: LoadedStand): string {
  const polygons = stand.geometry.type === 'Polygon' ? 1 : stand.geometry.coordinates.length
  const positions = positionCount(stand.geometry)
  if (stand.source.startsWith('drawn')) return `${Math.max(0, positions - 1)} vertices`
  return `${polygons} polygon${polygons === 1 ? '' : 's'}, ${positions.toLocaleString('en-US')} positions`
}

function placeholder(text: string): HTMLElement {
  const p = document.createElement('p')
  p.className = 'placeholder'
  p.textContent = text
  return p
}
