import type { SpeciesOption } from '../page-data.ts'
import { busy, elementIn, tableRow } from './dom.ts'
import { count } from './format.ts'
import {
  ExplorerSurveyPlotsDocument,
  type ExplorerSurveyPlotsQuery,
  ExplorerSurveyReportDocument,
} from './generated/operations.ts'
import type { PanelHost } from './host.ts'
import { OBSERVATIONS_PANEL_HTML, OBSERVATIONS_TAB_HTML } from './observations-html.ts'
import {
  MAX_PLOTS_DRAWN,
  plotMarks,
  plotsNote,
  SURVEY_PAGE,
  type SurveyPlot,
  type SurveyReport,
  type UploadSummary,
  uploadSummary,
} from './survey-data.ts'
import { type ModelName, SurveyReportView } from './survey-report-view.ts'

/**
 * The Observations tab: the account's field survey plots against the model. The plots on the map,
 * coloured by observed − predicted survival (`surveys`, a page of 1,000 at a time, at most 5,000
 * drawn); the report (`surveyReport`): the reliability diagram, each species × method, the scores;
 * and a survey CSV uploaded as it is to `POST /v1/surveys/uploads`, with what it stored or refused.
 */

export interface ObservationsHost extends PanelHost {
  species: readonly SpeciesOption[]
}

const NO_KEY = 'Enter your API key above (or get a free spore key) to see your survey plots.'

/** What was read of the account: its report, the plots drawn, and whether it has more than those. */
interface Read {
  report: SurveyReport
  model: ModelName
  plots: SurveyPlot[]
  more: boolean
}

export class ObservationsPanel {
  readonly tab: HTMLButtonElement
  readonly panel: HTMLElement
  private readonly view: SurveyReportView
  private read: Read | null = null
  /** Each load's number: an answer that arrives after a newer question is dropped. */
  private asked = 0
  private shown = false
  private uploading = false

  /** `tabs`: the tab list, the new tab going before `beforeTab`; the panel goes after `afterPanel`. */
  constructor(
    private readonly host: ObservationsHost,
    beforeTab: HTMLElement,
    afterPanel: HTMLElement,
  ) {
    beforeTab.insertAdjacentHTML('beforebegin', OBSERVATIONS_TAB_HTML)
    this.tab = elementIn(beforeTab.parentElement as HTMLElement, 'tab-observations', 'the tabs')
    this.panel = document.createElement('section')
    this.panel.id = 'panel-observations'
    this.panel.className = 'panel observations-panel'
    this.panel.setAttribute('role', 'tabpanel')
    this.panel.setAttribute('aria-labelledby', 'tab-observations')
    this.panel.setAttribute('aria-busy', 'false')
    this.panel.hidden = true
    this.panel.innerHTML = OBSERVATIONS_PANEL_HTML
    afterPanel.after(this.panel)
    this.view = new SurveyReportView(this.panel, host.species)
    this.wire()
    this.host.map.surveys.setVisible(false)
    this.render()
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the observations panel')
  }

  private wire(): void {
    this.el<HTMLFormElement>('observations-upload-form').addEventListener('submit', (event) => {
      event.preventDefault()
      void this.upload()
    })
    this.el('observations-reload').addEventListener('click', () => void this.load())
    this.el('observations-file').addEventListener('change', () => this.clearProblem())
  }

  // ----- what the page around it tells -----

  /** The tab was opened or closed: the plots are on the map while it is open; opened, it reads them once. */
  setShown(shown: boolean, load = true): void {
    const opened = shown && !this.shown
    this.shown = shown
    this.host.map.surveys.setVisible(shown)
    if (!opened) return
    // Drawn while hidden, the chart had no width: drawn again at the panel's.
    this.render()
    if (load && !this.read) void this.load()
  }

  /** Another key, maybe another account: what was read is forgotten (the page reads it again if the tab is open). */
  forget(): void {
    this.asked++
    this.read = null
    this.host.map.surveys.clear()
    this.el('observations-drawn').textContent = ''
    this.el('observations-upload-result').hidden = true
    this.clearProblem()
    this.status('')
    busy(this.panel, false)
    this.render()
  }

  // ----- reading the account's plots -----

  /** The report and the plots, read afresh (both at once); the map shows the plots and fits them. */
  async load(): Promise<void> {
    if (!this.host.hasKey()) {
      this.render()
      return
    }
    const asked = ++this.asked
    if (!this.uploading) this.clearProblem()
    this.status('Reading the account’s survey plots…')
    busy(this.panel, true)
    try {
      const [report, plots] = await Promise.all([
        this.host.api.query(ExplorerSurveyReportDocument, {}),
        this.readPlots(asked),
      ])
      if (asked !== this.asked || !plots) return
      this.read = { report: report.data.surveyReport, model: report.data.model, ...plots }
      this.status('')
      this.render()
      this.drawPlots()
    } catch (error) {
      if (asked !== this.asked) return
      this.status('')
      this.problem(this.host.messageFor(error))
    } finally {
      if (asked === this.asked) busy(this.panel, false)
    }
  }

  /** The account's plots a page at a time, up to MAX_PLOTS_DRAWN; null when a newer load began. */
  private async readPlots(asked: number): Promise<{ plots: SurveyPlot[]; more: boolean } | null> {
    const plots: SurveyPlot[] = []
    let cursor: string | null = null
    do {
      const { data }: { data: ExplorerSurveyPlotsQuery } = await this.host.api.query(
        ExplorerSurveyPlotsDocument,
        { cursor, limit: Math.min(SURVEY_PAGE, MAX_PLOTS_DRAWN - plots.length) },
      )
      if (asked !== this.asked) return null
      plots.push(...data.surveys.plots)
      cursor = data.surveys.nextCursor
    } while (cursor !== null && plots.length < MAX_PLOTS_DRAWN)
    return { plots, more: cursor !== null }
  }

  private drawPlots(): void {
    const read = this.read
    const layer = this.host.map.surveys
    const drawn = this.el('observations-drawn')
    if (!read || read.plots.length === 0) {
      layer.clear()
      drawn.textContent = ''
      return
    }
    const note = plotsNote(read.plots.length, read.more)
    layer.show(plotMarks(read.plots), note)
    drawn.textContent = `On the map while this tab is open: ${note.charAt(0).toLowerCase()}${note.slice(1)}`
    layer.setVisible(this.shown)
    if (!this.shown) return
    layer.fit(this.host.map.legendsHeight)
    this.host.map.hideHint()
  }

  // ----- uploading a survey CSV -----

  private async upload(): Promise<void> {
    if (this.uploading) return
    const input = this.el<HTMLInputElement>('observations-file')
    const file = input.files?.[0]
    this.clearProblem()
    if (!this.host.hasKey()) return this.problem(NO_KEY)
    if (!file) return this.problem('Choose a survey CSV first.', input)
    const skipInvalid = this.el<HTMLInputElement>('observations-skip-invalid').checked
    this.uploading = true
    this.el<HTMLButtonElement>('observations-upload').disabled = true
    this.status(`Uploading ${file.name}…`)
    busy(this.panel, true)
    try {
      const outcome = await this.host.api.uploadSurveys(file, skipInvalid)
      const summary = uploadSummary(outcome, file.name)
      this.status('')
      this.showUpload(summary)
      if (outcome.kind === 'stored' && outcome.upload.stored > 0) await this.load()
    } catch (error) {
      this.status('')
      this.el('observations-upload-result').hidden = true
      this.problem(`${file.name}: ${this.host.messageFor(error)}`, input)
    } finally {
      this.uploading = false
      this.el<HTMLButtonElement>('observations-upload').disabled = false
      busy(this.panel, false)
    }
  }

  private showUpload(summary: UploadSummary): void {
    const box = this.el('observations-upload-result')
    box.hidden = false
    box.dataset.stored = String(summary.stored)
    box.dataset.upload = summary.uploadId
    this.el('observations-upload-summary').textContent = summary.text
    this.el('observations-refused').hidden = summary.refused.length === 0
    this.el('observations-refused-body').replaceChildren(
      ...summary.refused.map((refusal) => {
        const tr = tableRow([String(refusal.row), refusal.plot_id ?? '—', refusal.field, refusal.reason])
        tr.dataset.code = refusal.code
        tr.title = refusal.code
        return tr
      }),
    )
    const more = this.el('observations-refused-more')
    more.hidden = summary.notListed === 0
    more.textContent =
      summary.notListed === 0
        ? ''
        : `And ${count(summary.notListed, 'more refused row')}: GET /v1/surveys/uploads/${summary.uploadId} lists them all.`
  }

  // ----- drawing -----

  /** Draws what was read (again, at the panel's width), or says what to do while there is nothing. */
  render(): void {
    const read = this.read
    this.view.render(
      read?.report ?? null,
      read?.model ?? null,
      this.host.hasKey() ? 'Reading the account’s survey plots when the tab opens.' : NO_KEY,
    )
  }

  private status(text: string): void {
    this.el('observations-status').textContent = text
  }

  private problem(message: string, input?: HTMLElement): void {
    const box = this.el('observations-error')
    box.textContent = message
    box.hidden = false
    input?.setAttribute('aria-invalid', 'true')
  }

  private clearProblem(): void {
    const box = this.el('observations-error')
    box.hidden = true
    box.textContent = ''
    this.el('observations-file').removeAttribute('aria-invalid')
  }
}
