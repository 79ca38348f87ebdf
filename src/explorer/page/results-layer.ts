import { type ExplorerApi, ExplorerApiError, type JobStatus } from './api.ts'
import type { ExplorerMap, ResultsDrawing } from './map.ts'
import {
  classCounts,
  describeFeature,
  findFeature,
  kindOf,
  NO_SURVIVAL_COLOUR,
  RESULT_HORIZONS,
  RESULTS_FILE_MAX_BYTES,
  RESULTS_MAX_FEATURES,
  type ResultFeature,
  type ResultHorizon,
  type ResultsCollection,
  ResultsFileError,
  type ResultsSummary,
  resultsCollection,
  resultsFromText,
  SURVIVAL_CLASSES,
  summarize,
  survivalAt,
  survivalColour,
  VERDICT_STYLES,
  type Verdict,
  verdictOf,
} from './results-data.ts'

/**
 * The results layer: a GeoJSON job's results on the map, fetched by job id with the key entered above
 * (`GET /v1/jobs/{id}`, then `GET /v1/jobs/{id}/results` as `application/geo+json`) or read from a
 * results file (the file input, or dropped on the map). Points coloured by survival at a chosen
 * horizon, stands by whether they meet the standard at the confidence asked, both with a legend; the
 * failed features counted by error code and listed, not drawn; a feature's properties in a popup (a
 * click, or found by id from the keyboard). The section sits above the tabs: the layer stays on the
 * map whichever tab is open.
 */

export interface ResultsHost {
  api: ExplorerApi
  map: ExplorerMap
  hasKey(): boolean
  /** The page's horizon, which the points are first coloured at. */
  horizon(): ResultHorizon
  /** An API error in the page's words (a key refused, …). */
  messageFor(error: ExplorerApiError): string
  busy(region: HTMLElement, on: boolean): void
}

const FORMAT_NAMES: Record<JobStatus['format'], string> = { csv: 'CSV', ndjson: 'NDJSON', geojson: 'GeoJSON' }
/** A job id as POST /v1/jobs gives it is job_ and hex; anything that could leave the path is refused. */
const JOB_ID = /^[A-Za-z0-9_-]{1,100}$/
/** Failed features listed one by one (all are counted by error code). */
const FAILURES_LISTED = 10

const BOX_HTML = `
<summary><span class="results-heading">Results layer</span> <span id="results-badge" class="results-badge">a GeoJSON job’s results on the map</span></summary>
<div class="spinner" aria-hidden="true"></div>
<form id="results-job-form" class="results-job-form" novalidate>
  <div class="field"><label for="results-job-id">Job id</label><input id="results-job-id" name="results-job-id" spellcheck="false" autocomplete="off" autocapitalize="off" placeholder="job_…"></div>
  <button type="submit" id="results-show-job">Show job</button>
</form>
<div class="field results-file">
  <label for="results-file">Or a results file (GeoJSON; or drop it on the map)</label>
  <input id="results-file" name="results-file" type="file" accept=".geojson,.json,application/geo+json,application/json">
</div>
<p id="results-status" class="results-status" role="status" aria-live="polite"></p>
<div id="results-error" class="results-error" role="alert" hidden></div>
<div id="results-shown" class="results-shown" hidden>
  <div class="results-row">
    <div class="results-horizon"><label for="results-horizon">Colour points by survival at</label><select id="results-horizon" name="results-horizon"></select></div>
    <div class="results-buttons">
      <button type="button" id="results-fit" class="secondary">Zoom to layer</button>
      <button type="button" id="results-remove" class="secondary">Remove layer</button>
    </div>
  </div>
  <p id="results-summary" class="results-summary" aria-live="polite"></p>
  <div id="results-failed" class="results-failed" hidden>
    <table class="differential results-failed-table">
      <caption>Failed features, by error code (listed, not drawn)</caption>
      <thead><tr><th scope="col">Error code</th><th scope="col">Features</th></tr></thead>
      <tbody id="results-failed-body"></tbody>
    </table>
    <ul id="results-failed-list" class="results-failed-list"></ul>
  </div>
  <form id="results-find-form" class="results-find" novalidate>
    <div class="field"><label for="results-find">Find a feature (id or feature index)</label><input id="results-find" name="results-find" spellcheck="false" autocomplete="off"></div>
    <button type="submit" class="secondary">Show feature</button>
  </form>
  <p id="results-find-status" class="results-status" role="status" aria-live="polite"></p>
</div>`

function byId<T extends HTMLElement>(root: ParentNode, id: string): T {
  const found = root.querySelector(`#${id}`)
  if (!found) throw new Error(`the results layer has no #${id}`)
  return found as T
}

const count = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
const years = (n: number): string => `${n} year${n === 1 ? '' : 's'}`

/** Where the results shown came from: a job (by its id) or a file (by its name). */
interface Source {
  kind: 'job' | 'file'
  name: string
}

export class ResultsPanel {
  readonly box: HTMLDetailsElement
  private collection: ResultsCollection | null = null
  private summary: ResultsSummary | null = null
  private source: Source | null = null
  private horizon: ResultHorizon
  /** Each load's number: an answer or a file read after a newer one is dropped. */
  private asked = 0
  /** The open popup's content, focused when it was opened from the keyboard. */
  private popupBody: HTMLElement | null = null

  constructor(
    private readonly host: ResultsHost,
    after: HTMLElement,
  ) {
    this.horizon = host.horizon()
    this.box = document.createElement('details')
    this.box.id = 'results-box'
    this.box.className = 'results-box'
    this.box.setAttribute('aria-busy', 'false')
    this.box.innerHTML = BOX_HTML
    after.after(this.box)
    const horizon = this.el<HTMLSelectElement>('results-horizon')
    for (const value of RESULT_HORIZONS) horizon.append(new Option(years(value), String(value)))
    horizon.value = String(this.horizon)
    this.wire()
  }

  private el<T extends HTMLElement>(id: string): T {
    return byId<T>(this.box, id)
  }

  private wire(): void {
    this.el<HTMLFormElement>('results-job-form').addEventListener('submit', (event) => {
      event.preventDefault()
      void this.showJob()
    })
    const file = this.el<HTMLInputElement>('results-file')
    file.addEventListener('change', () => {
      const chosen = file.files?.[0]
      if (chosen) void this.loadFile(chosen)
      file.value = ''
    })
    this.el<HTMLSelectElement>('results-horizon').addEventListener('change', (event) => {
      this.horizon = Number((event.target as HTMLSelectElement).value) as ResultHorizon
      this.host.map.restyleResults()
      this.renderLegend()
    })
    this.el('results-fit').addEventListener('click', () => this.host.map.fitResults())
    this.el('results-remove').addEventListener('click', () => this.remove())
    this.el<HTMLFormElement>('results-find-form').addEventListener('submit', (event) => {
      event.preventDefault()
      this.find()
    })
    this.el('results-job-id').addEventListener('input', (event) =>
      (event.target as HTMLElement).removeAttribute('aria-invalid'),
    )
  }

  // ----- loading -----

  /** A job's results by its id, with the key entered above. */
  private async showJob(): Promise<void> {
    const input = this.el<HTMLInputElement>('results-job-id')
    const id = input.value.trim()
    if (!this.host.hasKey())
      return this.problem(
        'Enter your API key above first: a job’s results are read with a key of the account that uploaded it.',
        input,
      )
    if (id === '') return this.problem('Type a job id (job_…), as POST /v1/jobs answered it.', input)
    if (!JOB_ID.test(id))
      return this.problem(`“${id}” is not a job id: one reads job_ followed by letters and digits.`, input)
    const asked = this.begin(`Asking for job ${id}…`)
    try {
      const job = await this.host.api.job(id)
      if (asked !== this.asked) return
      const refused = jobRefusal(job)
      if (refused) return this.problem(refused, input)
      this.status(`Downloading the results of job ${id} (${count(job.rows_total, 'feature')})…`)
      const value = await this.host.api.jobGeoJson(id)
      if (asked !== this.asked) return
      this.show(resultsCollection(value), { kind: 'job', name: id })
    } catch (error) {
      if (asked !== this.asked) return
      if (error instanceof ResultsFileError) this.problem(`The results of job ${id}: ${error.message}`, input)
      else if (error instanceof ExplorerApiError) this.problem(this.apiMessage(error, id), input)
      else this.problem('The API could not be reached. Check your connection and try again.', input)
    } finally {
      if (asked === this.asked) this.host.busy(this.box, false)
    }
  }

  /** A results file, from the file input or dropped on the map; only its parsed collection is kept. */
  async loadFile(file: File): Promise<void> {
    this.box.open = true
    const input = this.el<HTMLInputElement>('results-file')
    if (file.size > RESULTS_FILE_MAX_BYTES)
      return this.problem(
        `${file.name} is ${(file.size / 1e6).toFixed(0)} MB; the browser reads results files of at most ${RESULTS_FILE_MAX_BYTES / 1024 / 1024} MiB. Open it in QGIS or with GDAL.`,
        input,
      )
    const asked = this.begin(`Reading ${file.name}…`)
    try {
      const collection = resultsFromText(await file.text())
      if (asked !== this.asked) return
      this.show(collection, { kind: 'file', name: file.name })
    } catch (error) {
      if (asked !== this.asked) return
      if (!(error instanceof ResultsFileError)) throw error
      this.problem(`${file.name}: ${error.message}`, input)
    } finally {
      if (asked === this.asked) this.host.busy(this.box, false)
    }
  }

  private begin(status: string): number {
    this.clearProblem()
    this.status(status)
    this.host.busy(this.box, true)
    return ++this.asked
  }

  private apiMessage(error: ExplorerApiError, id: string): string {
    if (error.code === 'not_found')
      return `No job ${id} belongs to this key’s account: check the id and the key (a job is kept for a limited time after it finishes).`
    return this.host.messageFor(error)
  }

  // ----- the layer -----

  private show(collection: ResultsCollection, source: Source): void {
    const summary = summarize(collection, FAILURES_LISTED)
    this.clearProblem()
    try {
      this.host.map.showResults(this.drawing(collection))
    } catch (error) {
      // A position Leaflet cannot place (not two numbers): nothing of this collection stays.
      this.forget()
      throw new ResultsFileError(
        `Its features could not be drawn (${error instanceof Error ? error.message : String(error)}).`,
      )
    }
    this.collection = collection
    this.source = source
    this.summary = summary
    this.el<HTMLInputElement>('results-find').value = ''
    this.renderLegend()
    this.renderShown()
    // Once the legend is drawn: the map fits the layer above it.
    this.host.map.fitResults()
    // The summary under the controls says what is shown (and is announced).
    this.status('')
    this.host.map.hideHint()
  }

  private drawing(collection: ResultsCollection): ResultsDrawing {
    return {
      collection: collection as GeoJSON.FeatureCollection,
      kind: kindOf,
      pointColour: (feature) => survivalColour(survivalAt(feature, this.horizon)),
      standStyle: (feature) => VERDICT_STYLES[verdictOf(feature)],
      popup: (feature) => this.popup(feature),
    }
  }

  /** Takes the layer off the map and forgets its collection. */
  remove(): void {
    if (!this.collection) return
    const what = this.source?.kind === 'job' ? `job ${this.source.name}` : this.source?.name
    this.forget()
    this.status(`The results layer (${what}) was removed from the map.`)
    this.el('results-job-id').focus()
  }

  private forget(): void {
    this.host.map.clearResults()
    this.collection = null
    this.summary = null
    this.source = null
    this.popupBody = null
    this.renderShown()
  }

  private renderShown(): void {
    const summary = this.summary
    const source = this.source
    this.el('results-shown').hidden = !summary
    const badge = this.el('results-badge')
    badge.textContent = source
      ? `${source.kind === 'job' ? source.name : source.name}, on the map`
      : 'a GeoJSON job’s results on the map'
    badge.dataset.shown = String(Boolean(source))
    this.box.dataset.shown = String(Boolean(source))
    this.el('results-find-status').textContent = ''
    if (!summary || !source) return
    this.el<HTMLSelectElement>('results-horizon').value = String(this.horizon)
    const parts = [`${count(summary.points, 'point')} and ${count(summary.stands, 'stand')} drawn`]
    if (summary.failed > 0) parts.push(`${count(summary.failed, 'feature')} failed (below, not drawn)`)
    if (summary.other > 0)
      parts.push(`${count(summary.other, 'feature')} neither a point nor a stand (not drawn)`)
    this.el('results-summary').textContent =
      `${source.kind === 'job' ? `Job ${source.name}` : source.name}: ${parts.join('; ')}.`
    const failed = this.el('results-failed')
    failed.hidden = summary.failed === 0
    this.el('results-failed-body').replaceChildren(
      ...summary.errors.map(([code, n]) => {
        const tr = document.createElement('tr')
        tr.dataset.code = code
        const name = document.createElement('td')
        const codeText = document.createElement('code')
        codeText.textContent = code
        name.append(codeText)
        const number = document.createElement('td')
        number.textContent = n.toLocaleString('en-US')
        tr.append(name, number)
        return tr
      }),
    )
    const list = summary.failures.map((failure) => {
      const li = document.createElement('li')
      const code = document.createElement('code')
      code.textContent = failure.code
      li.append(
        `Feature ${failure.index}${failure.id !== null ? ` (${failure.id})` : ''}: `,
        code,
        failure.message ? ` — ${failure.message}` : '',
      )
      return li
    })
    if (summary.failed > summary.failures.length) {
      const more = document.createElement('li')
      more.className = 'more'
      more.textContent = `and ${count(summary.failed - summary.failures.length, 'more failed feature')}.`
      list.push(more)
    }
    this.el('results-failed-list').replaceChildren(...list)
  }

  /** The legend on the map: points by survival class at the horizon, stands by verdict, with counts. */
  private renderLegend(): void {
    const legend = this.host.map.resultsLegend
    const collection = this.collection
    const summary = this.summary
    if (!collection || !summary) {
      legend.hidden = true
      legend.replaceChildren()
      return
    }
    const parts: HTMLElement[] = []
    if (summary.points > 0) {
      const counts = classCounts(collection, this.horizon)
      const items = SURVIVAL_CLASSES.map((c, i) =>
        legendItem('dot', c.colour, c.label, counts[i] ?? 0, { class: String(i) }),
      )
      const none = counts[SURVIVAL_CLASSES.length] ?? 0
      if (none > 0)
        items.push(
          legendItem('dot', NO_SURVIVAL_COLOUR, `none at ${years(this.horizon)}`, none, { class: 'none' }),
        )
      parts.push(
        legendTitle(`Points: survival at ${years(this.horizon)}`),
        legendList('results-legend-points', items),
      )
    }
    if (summary.stands > 0) {
      const verdicts: Verdict[] = ['meets', 'fails']
      if (summary.verdicts.unknown > 0) verdicts.push('unknown')
      parts.push(
        legendTitle('Stands: the standard at the confidence asked'),
        legendList(
          'results-legend-stands',
          verdicts.map((verdict) => {
            const style = VERDICT_STYLES[verdict]
            const item = legendItem('area', style.fill, style.label, summary.verdicts[verdict], { verdict })
            const swatch = item.querySelector('.swatch') as HTMLElement
            swatch.style.borderColor = style.line
            swatch.style.borderStyle = style.dashArray ? 'dashed' : 'solid'
            return item
          }),
        ),
      )
    }
    if (summary.failed > 0) {
      const note = document.createElement('p')
      note.className = 'legend-note'
      note.textContent = `${count(summary.failed, 'failed feature')}: listed, not drawn.`
      parts.push(note)
    }
    legend.replaceChildren(...parts)
    legend.dataset.horizon = String(this.horizon)
    legend.hidden = parts.length === 0
  }

  // ----- a feature's properties -----

  private popup(feature: ResultFeature): HTMLElement {
    const { title, verdict, rows } = describeFeature(feature)
    const body = document.createElement('div')
    body.className = 'result-popup-body'
    body.tabIndex = -1
    body.setAttribute('role', 'group')
    body.setAttribute('aria-label', title)
    const kind = kindOf(feature)
    body.dataset.kind = kind
    if (kind === 'stand') body.dataset.verdict = verdictOf(feature)
    const heading = document.createElement('h3')
    heading.textContent = title
    const list = document.createElement('dl')
    for (const [label, text] of rows) {
      const dt = document.createElement('dt')
      dt.textContent = label
      const dd = document.createElement('dd')
      dd.textContent = text
      list.append(dt, dd)
    }
    body.append(heading)
    if (verdict) {
      const line = document.createElement('p')
      line.className = 'result-verdict'
      line.dataset.verdict = verdictOf(feature)
      line.textContent = verdict
      body.append(line)
    }
    body.append(list)
    // Escape closes it and goes back to where the feature was asked for.
    body.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return
      event.preventDefault()
      this.host.map.clearSelection()
      this.el('results-find').focus()
    })
    this.popupBody = body
    return body
  }

  /** A feature by its id or index, from the keyboard: its popup opens and takes the focus. */
  private find(): void {
    const input = this.el<HTMLInputElement>('results-find')
    const status = this.el('results-find-status')
    input.removeAttribute('aria-invalid')
    const collection = this.collection
    const query = input.value.trim()
    if (!collection || query === '') return
    const feature = findFeature(collection, query)
    if (!feature) {
      input.setAttribute('aria-invalid', 'true')
      status.textContent = `No feature “${query}” in this layer (an id, or a feature index from 0).`
      return
    }
    const { title } = describeFeature(feature)
    const kind = kindOf(feature)
    if (kind === 'failed') {
      const properties = feature.properties ?? {}
      status.textContent = `${title}: ${String(properties.error_code)} — ${String(properties.error_message ?? '')}. Failed features are not drawn.`
      return
    }
    if (kind === 'other' || !this.host.map.openResult(feature)) {
      status.textContent = `${title} is neither a point nor a stand: it is not drawn.`
      return
    }
    status.textContent = `${title}: shown on the map (Escape closes it).`
    this.popupBody?.focus()
  }

  // ----- messages -----

  private status(text: string): void {
    this.el('results-status').textContent = text
  }

  private problem(message: string, input: HTMLElement): void {
    this.host.busy(this.box, false)
    this.status('')
    const box = this.el('results-error')
    box.textContent = message
    box.hidden = false
    input.setAttribute('aria-invalid', 'true')
  }

  private clearProblem(): void {
    const box = this.el('results-error')
    box.hidden = true
    box.textContent = ''
    for (const input of this.box.querySelectorAll('[aria-invalid="true"]'))
      input.removeAttribute('aria-invalid')
  }
}

/** Why a job's results cannot be shown (not GeoJSON, not finished, too large), or null when they can. */
export function jobRefusal(job: JobStatus): string | null {
  const id = job.id
  if (job.format !== 'geojson')
    return `Job ${id} is a ${FORMAT_NAMES[job.format] ?? job.format} job, not a GeoJSON job: its results have no geometry to draw (GET /v1/jobs/${id}/results downloads them).`
  switch (job.status) {
    case 'succeeded':
      break
    case 'queued':
    case 'running':
      return `Job ${id} is not finished: it is ${job.status}, ${job.rows_done.toLocaleString('en-US')} of ${count(job.rows_total, 'feature')} done. Its results can be shown once it has succeeded; press Show job again then.`
    case 'cancelled':
      return `Job ${id} was cancelled: it has no results to show.`
    default:
      return `Job ${id} failed${typeof job.failure === 'string' && job.failure ? ` (${job.failure})` : ''}: it has no results to show.`
  }
  if (job.rows_total > RESULTS_MAX_FEATURES)
    return `Job ${id} has ${count(job.rows_total, 'feature')}; the browser draws at most ${RESULTS_MAX_FEATURES.toLocaleString('en-US')}. Download its results and open them in QGIS or with GDAL.`
  return null
}

function legendTitle(text: string): HTMLElement {
  const title = document.createElement('p')
  title.className = 'legend-title'
  title.textContent = text
  return title
}

function legendList(className: string, items: HTMLElement[]): HTMLElement {
  const list = document.createElement('ul')
  list.className = `results-legend-list ${className}`
  list.append(...items)
  return list
}

function legendItem(
  shape: 'dot' | 'area',
  colour: string,
  label: string,
  n: number,
  data: Record<string, string>,
): HTMLElement {
  const li = document.createElement('li')
  li.className = 'legend-item'
  Object.assign(li.dataset, data, { colour, count: String(n) })
  const swatch = document.createElement('span')
  swatch.className = `swatch swatch-${shape}`
  // An area's swatch is filled as the stands are, see-through.
  swatch.style.backgroundColor = shape === 'area' ? `${colour}73` : colour
  swatch.setAttribute('aria-hidden', 'true')
  const text = document.createElement('span')
  text.className = 'legend-label'
  text.textContent = label
  const number = document.createElement('span')
  number.className = 'legend-count'
  number.textContent = `(${n.toLocaleString('en-US')})`
  if (n === 0) number.dataset.zero = ''
  li.append(swatch, text, number)
  return li
}
