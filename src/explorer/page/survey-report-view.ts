import type { SpeciesOption } from '../page-data.ts'
import { elementIn, placeholder, tableRow } from './dom.ts'
import { count, METHOD_LABELS, percent, points, trees } from './format.ts'
import { filledBins, reliabilityChart } from './reliability-chart.ts'
import {
  decimal,
  differenceInterval,
  methodOf,
  type SurveyGroup,
  type SurveyReport,
  signed,
  speciesMethodGroups,
  survivalInterval,
} from './survey-data.ts'

/** The model that made the predictions, as every operation's `model` names it. */
export interface ModelName {
  series: string
  version: string
  codename: string
}

/** Room under the chart for the x axis's label. */
const CHART_SLACK = 4
/** The reliability diagram is about square: no wider than this. */
const CHART_MAX_WIDTH = 420

/**
 * The survey report in the Observations tab: the overall line, the reliability diagram with its bins
 * as a table, one row per species × method, the scores, the notes; or, for an account with no plots,
 * how to add some.
 */
export class SurveyReportView {
  private readonly names: ReadonlyMap<string, string>

  constructor(
    private readonly panel: HTMLElement,
    species: readonly SpeciesOption[],
  ) {
    this.names = new Map(species.map((s) => [s.code, s.commonName]))
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the observations panel')
  }

  /** Draws the report (again, at the panel's width); null: nothing read yet, `waiting` says why. */
  render(report: SurveyReport | null, model: ModelName | null, waiting: string): void {
    const result = this.el('observations-result')
    const empty = this.el('observations-empty')
    const chart = this.el('observations-chart')
    const overall = report?.overall ?? null
    result.dataset.state = !report ? 'waiting' : overall ? 'report' : 'empty'
    this.el('observations-model').textContent = model
      ? `Predictions by model ${model.series} ${model.version} (${model.codename}).`
      : ''
    if (!report || !overall) {
      this.el('observations-summary').textContent = report ? '' : waiting
      empty.hidden = !report
      if (report) empty.replaceChildren(...noPlotsYet())
      this.el('observations-report').hidden = true
      chart.replaceChildren()
      return
    }
    empty.hidden = true
    this.el('observations-report').hidden = false
    this.el('observations-summary').textContent = overallText(overall, report.intervalLevel)
    this.drawChart(report)
    this.renderBins(report)
    this.renderGroups(report)
    this.renderScores(report)
    this.el('observations-notes-heading').hidden = report.notes.length === 0
    this.el('observations-notes').replaceChildren(
      ...report.notes.map((note) => {
        const li = document.createElement('li')
        li.textContent = note
        return li
      }),
    )
  }

  private drawChart(report: SurveyReport): void {
    const chart = this.el('observations-chart')
    if (filledBins(report.reliability).length === 0) {
      chart.replaceChildren(placeholder('No bin of predicted survival has plots.'))
      return
    }
    const height = Math.max(240, Math.floor(chart.clientHeight) - CHART_SLACK)
    const width = Math.max(260, Math.min(CHART_MAX_WIDTH, Math.floor(chart.clientWidth)))
    chart.replaceChildren(reliabilityChart(report.reliability, width, height))
  }

  private renderBins(report: SurveyReport): void {
    this.el('observations-bins-body').replaceChildren(
      ...report.reliability.map((bin) =>
        tableRow([
          `${percent(bin.from, 0)}–${percent(bin.to, 0)}`,
          bin.plots.toLocaleString('en-US'),
          trees(bin.trees),
          bin.meanPredictedSurvival === null ? '—' : percent(bin.meanPredictedSurvival),
          bin.observedSurvival === null ? '—' : percent(bin.observedSurvival),
        ]),
      ),
    )
  }

  private renderGroups(report: SurveyReport): void {
    const level = percent(report.intervalLevel, 0)
    this.el('observations-groups-caption').textContent =
      `Observed survival with its ${level} interval beside the mean prediction (weighted by trees); ⚑ differs: the interval of the difference excludes 0`
    this.el('observations-groups-body').replaceChildren(
      ...speciesMethodGroups(report).map((group) => this.groupRow(group)),
    )
  }

  private groupRow(group: SurveyGroup): HTMLTableRowElement {
    const code = group.speciesCode ?? ''
    const method = group.plantingMethod ? METHOD_LABELS[methodOf(group.plantingMethod)] : ''
    const tr = document.createElement('tr')
    tr.dataset.species = code
    tr.dataset.method = group.plantingMethod ? methodOf(group.plantingMethod) : ''
    tr.dataset.differs = String(group.differs)
    tr.append(
      stacked(this.names.get(code) ?? code, `${code}, ${method.toLowerCase()}`),
      stacked(count(group.plots, 'plot'), count(group.treesPlanted, 'tree')),
      stacked(percent(group.observedSurvival), survivalInterval(group.observedInterval)),
      stacked(percent(group.meanPredictedSurvival), ''),
      // Percentage points, as the column's heading says.
      stacked(
        `${points(group.difference).replace(' pp', '')}${group.differs ? ' ⚑' : ''}`,
        differenceInterval(group.differenceInterval).replace(' pp', ''),
      ),
    )
    if (group.differs) tr.classList.add('differs')
    return tr
  }

  private renderScores(report: SurveyReport): void {
    const scores = report.scores
    const rows: [string, string][] = scores
      ? [
          ['Brier score', `${scores.brier.toFixed(3)} (0 is perfect)`],
          ['Log loss', scores.logLoss.toFixed(3)],
          [
            'Calibration in the large',
            `${signed(scores.calibrationInTheLarge.estimate)} (${signed(scores.calibrationInTheLarge.interval.low)} to ${signed(scores.calibrationInTheLarge.interval.high)}), logit scale; 0 when calibrated`,
          ],
          [
            'Calibration slope',
            scores.calibrationSlope
              ? `${decimal(scores.calibrationSlope.estimate)} (${decimal(scores.calibrationSlope.interval.low)} to ${decimal(scores.calibrationSlope.interval.high)}); 1 when calibrated`
              : 'not estimated (see the notes)',
          ],
        ]
      : []
    this.el('observations-scores').replaceChildren(
      ...rows.flatMap(([label, value]) => {
        const dt = document.createElement('dt')
        dt.textContent = label
        const dd = document.createElement('dd')
        dd.textContent = value
        return [dt, dd]
      }),
    )
  }
}

/** A table cell of a value with a second, quieter line under it (a method, an interval). */
function stacked(value: string, under: string): HTMLTableCellElement {
  const td = document.createElement('td')
  td.textContent = value
  if (under) {
    const small = document.createElement('small')
    small.textContent = under
    td.append(small)
  }
  return td
}

function overallText(overall: SurveyGroup, level: number): string {
  const flag = overall.differs ? ': the model differs from your plots ⚑' : ''
  return `${count(overall.plots, 'plot survey')}, ${count(overall.treesPlanted, 'tree')} planted: ${percent(overall.observedSurvival)} survived (${percent(level, 0)} interval ${survivalInterval(overall.observedInterval)}) where the model predicted ${percent(overall.meanPredictedSurvival)}; observed − predicted ${points(overall.difference)} (${differenceInterval(overall.differenceInterval)})${flag}.`
}

/** What an account without plots reads: that it has none, and how to add some. */
function noPlotsYet(): HTMLElement[] {
  const first = document.createElement('p')
  first.innerHTML =
    '<strong>This account has no survey plots yet</strong>, so there is nothing to compare with the model.'
  const how = document.createElement('p')
  how.innerHTML =
    'Add some: upload a survey CSV above, or send them to <code>POST /v1/surveys</code> (or GraphQL <code>storeSurveys</code>), 1 to 1,000 plots a call. To try the tab without field data, <code>npm run surveys:simulate -- --plots 200 --out plots.csv</code> makes plots from the model and a stated truth.'
  return [first, how]
}
