import { ExplorerApiError } from './api.ts'
import { busy, elementIn } from './dom.ts'
import { count, years } from './format.ts'
import { API_UNREACHABLE, type PanelHost } from './host.ts'
import type { ResultsDrawing } from './map-results.ts'
import {
  describeFeature,
  findFeature,
  jobRefusal,
  kindOf,
  RESULT_HORIZONS,
  RESULTS_FILE_MAX_BYTES,
  type ResultFeature,
  type ResultHorizon,
  type ResultsCollection,
  ResultsFileError,
  type ResultsSummary,
  resultsCollection,
  resultsFromText,
  summarize,
  survivalAt,
  survivalColour,
  VERDICT_STYLES,
  verdictOf,
} from './results-data.ts'
import { RESULTS_BOX_HTML } from './results-html.ts'
import { renderResultsLegend } from './results-legend.ts'

/**
 * The results layer: a GeoJSON job's results on the map, fetched by job id with the key entered above
 * (`GET /v1/jobs/{id}`, then `GET /v1/jobs/{id}/results` as `application/geo+json`) or read from a
 * results file (the file input, or dropped on the map). Points coloured by survival at a chosen
 * horizon (first the page's), stands by whether they meet the standard at the confidence asked, both
 * with a legend; the failed features counted by error code and listed, not drawn; a feature's
 * properties in a popup (a click, or found by id from the keyboard). The box sits above the tabs: the
 * layer stays on the map whichever tab is open.
 */

/** A job id as POST /v1/jobs gives it is job_ and hex; anything that could leave the path is refused. */
const JOB_ID = /^[A-Za-z0-9_-]{1,100}$/
/** Failed features listed one by one (all are counted by error code). */
const FAILURES_LISTED = 10

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
    private readonly host: PanelHost,
    after: HTMLElement,
  ) {
    this.horizon = host.view().horizon
    this.box = document.createElement('details')
    this.box.id = 'results-box'
    this.box.className = 'results-box'
    this.box.setAttribute('aria-busy', 'false')
    this.box.innerHTML = RESULTS_BOX_HTML
    after.after(this.box)
    const horizon = this.el<HTMLSelectElement>('results-horizon')
    for (const value of RESULT_HORIZONS) horizon.append(new Option(years(value), String(value)))
    horizon.value = String(this.horizon)
    this.wire()
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.box, id, 'the results layer')
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
      this.host.map.results.restyle()
      this.renderLegend()
    })
    this.el('results-fit').addEventListener('click', () => this.host.map.results.fit())
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
      else this.problem(API_UNREACHABLE, input)
    } finally {
      if (asked === this.asked) busy(this.box, false)
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
      if (asked === this.asked) busy(this.box, false)
    }
  }

  private begin(status: string): number {
    this.clearProblem()
    this.status(status)
    busy(this.box, true)
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
      this.host.map.results.show(this.drawing(collection))
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
    this.host.map.results.fit()
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
    this.host.map.results.clear()
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

  private renderLegend(): void {
    renderResultsLegend(this.host.map.results.legend, this.collection, this.summary, this.horizon)
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
      this.host.map.results.clearSelection()
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
    if (kind === 'other' || !this.host.map.results.open(feature)) {
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
    busy(this.box, false)
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
