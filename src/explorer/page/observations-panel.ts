import type { SpeciesOption } from '../page-data.ts'
import { CalibrationBox } from './calibration-box.ts'
import { busy, elementIn, tableRow } from './dom.ts'
import { count, METHOD_LABELS, type ModelName } from './format.ts'
import {
  ExplorerSurveyPlotsDocument,
  type ExplorerSurveyPlotsQuery,
  ExplorerSurveyReportDocument,
  type SurveyFilterInput,
} from './generated/operations.ts'
import type { PanelHost } from './host.ts'
import { OBSERVATIONS_PANEL_HTML, OBSERVATIONS_TAB_HTML } from './observations-html.ts'
import { GRAPHQL_METHOD, METHODS, type Method } from './state.ts'
import {
  MAX_PLOTS_DRAWN,
  plotMarks,
  plotsNote,
  SURVEY_PAGE,
  type SurveyPlot,
  type UploadSummary,
  uploadSummary,
} from './survey-data.ts'
import { type ShownReport, SurveyReportView } from './survey-report-view.ts'

/**
 * The Observations tab: the account's field survey plots (those its filter keeps) against the model
 * version chosen. The plots on the map, coloured by observed − predicted survival (`surveys`, a page
 * of 1,000 at a time, at most 5,000 drawn); the report (`surveyReport`): the reliability diagram, each
 * species × method, the scores, and under a calibrated version its base version's beside it; a survey
 * CSV uploaded as it is to `POST /v1/surveys/uploads`, with what it stored or refused; and Calibrate.
 */

export interface ObservationsHost extends PanelHost {
  species: readonly SpeciesOption[]
  /** Puts a version into the selector and the URL (the calibration's "Use this version"). */
  useModel(version: string): void
}

const NO_KEY = 'Enter your API key above (or get a free spore key) to see your survey plots.'

/**
 * What was read of the account: its report (and its base version's beside a calibration), the plots
 * drawn, and whether it has more than those.
 */
interface Read {
  shown: ShownReport
  plots: SurveyPlot[]
  more: boolean
}

export class ObservationsPanel {
  readonly tab: HTMLButtonElement
  readonly panel: HTMLElement
  private readonly view: SurveyReportView
  private readonly calibration: CalibrationBox
  private read: Read | null = null
  /** What was read is for another model version than the one chosen now: read again when opened. */
  private stale = false
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
    this.fillFilter(host.species)
    this.calibration = new CalibrationBox(this.panel, {
      ...host,
      filter: () => this.filter(),
      names: new Map(host.species.map((s) => [s.code, s.commonName])),
    })
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
    this.el<HTMLFormElement>('observations-filter-form').addEventListener('submit', (event) =>
      event.preventDefault(),
    )
    for (const id of ['observations-filter-species', 'observations-filter-method'])
      this.el(id).addEventListener('change', () => {
        this.calibration.filterChanged()
        void this.load()
      })
  }

  private fillFilter(species: readonly SpeciesOption[]): void {
    this.el<HTMLSelectElement>('observations-filter-species').append(
      new Option('All species', ''),
      ...species.map(({ code, commonName }) => new Option(`${commonName} (${code})`, code)),
    )
    this.el<HTMLSelectElement>('observations-filter-method').append(
      new Option('Both methods', ''),
      ...METHODS.map((method) => new Option(METHOD_LABELS[method], method)),
    )
  }

  /** The plots the tab covers: the report, the map, and a calibration; null: every plot. */
  filter(): SurveyFilterInput | null {
    const species = this.el<HTMLSelectElement>('observations-filter-species').value
    const method = this.el<HTMLSelectElement>('observations-filter-method').value as Method | ''
    if (!species && !method) return null
    return {
      ...(species ? { speciesCode: species } : {}),
      ...(method ? { plantingMethod: GRAPHQL_METHOD[method] } : {}),
    }
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
    if (load && (!this.read || this.stale)) void this.load()
  }

  /** Another model version was chosen: the report is read again with it (now, or when the tab opens). */
  modelChanged(): void {
    if (this.shown) void this.load()
    else this.stale = this.read !== null
    this.calibration.reflect()
  }

  /** Another key, maybe another account: what was read is forgotten (the page reads it again if the tab is open). */
  forget(): void {
    this.asked++
    this.read = null
    this.calibration.forget()
    this.host.map.surveys.clear()
    this.el('observations-drawn').textContent = ''
    this.el('observations-upload-result').hidden = true
    this.clearProblem()
    this.status('')
    busy(this.panel, false)
    this.render()
  }

  // ----- reading the account's plots -----

  /**
   * The report and the plots, read afresh (at once); the map shows the plots and fits them. Under a
   * calibrated version (chosen, or the account's default) its parent's report is read beside it.
   */
  async load(): Promise<void> {
    if (!this.host.hasKey()) {
      this.render()
      return
    }
    const asked = ++this.asked
    this.stale = false
    if (!this.uploading) this.clearProblem()
    this.status('Reading the account’s survey plots…')
    busy(this.panel, true)
    try {
      const filter = this.filter()
      const chosen = this.host.view().model
      // The selector's versions say whether the version that answers is a calibration, and its parent.
      await this.host.models.ready()
      const answering = this.host.models.answering()
      const parent = answering?.kind === 'CALIBRATED' ? (answering.parent ?? null) : null
      const report = (modelVersion: string | null) =>
        this.host.api.query(ExplorerSurveyReportDocument, {
          ...(filter ? { filter } : {}),
          ...(modelVersion === null ? {} : { modelVersion }),
        })
      const [main, base, plots] = await Promise.all([
        report(chosen),
        parent === null ? null : report(parent),
        this.readPlots(asked, filter),
      ])
      if (asked !== this.asked || !plots) return
      const version = main.data.surveyReport.modelVersion
      const listed = version ? this.host.models.find(version) : undefined
      const model: ModelName | null = listed ?? (version ? { ...main.data.model, version } : main.data.model)
      this.read = {
        shown: {
          report: main.data.surveyReport,
          model,
          base: base && parent !== null ? { report: base.data.surveyReport, version: parent } : null,
        },
        ...plots,
      }
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
  private async readPlots(
    asked: number,
    filter: SurveyFilterInput | null,
  ): Promise<{ plots: SurveyPlot[]; more: boolean } | null> {
    const plots: SurveyPlot[] = []
    let cursor: string | null = null
    do {
      const { data }: { data: ExplorerSurveyPlotsQuery } = await this.host.api.query(
        ExplorerSurveyPlotsDocument,
        {
          cursor,
          limit: Math.min(SURVEY_PAGE, MAX_PLOTS_DRAWN - plots.length),
          ...(filter ? { filter } : {}),
        },
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
      read?.shown ?? null,
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
