import type { SpeciesOption } from '../page-data.ts'
import { elementIn, placeholder, stacked, tableRow } from './dom.ts'
import { count, METHOD_LABELS, type ModelName, modelName, percent, points, trees } from './format.ts'
import {
  filledBins,
  legendMarker,
  type ReliabilitySeries,
  reliabilityChart,
  SERIES_DESCRIPTION,
} from './reliability-chart.ts'
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

/**
 * The report shown: its predictions' version, and, when that version is a calibration, its base
 * version's report on the same plots beside it (the diagram's second series, the scores side by side).
 */
export interface ShownReport {
  report: SurveyReport
  model: ModelName | null
  base: { report: SurveyReport; version: string } | null
}

type Scores = NonNullable<SurveyReport['scores']>

/** Room under the chart for the x axis's label. */
const CHART_SLACK = 4
/** The reliability diagram is about square: no wider than this. */
const CHART_MAX_WIDTH = 420

/**
 * The survey report in the Observations tab: the overall line, the reliability diagram with its bins
 * as a table, one row per species × method, the scores, the notes; or, for an account with no plots,
 * how to add some. Under a calibrated version, the diagram, its table and the scores show the base
 * version beside it.
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
  render(shown: ShownReport | null, waiting: string): void {
    const result = this.el('observations-result')
    const empty = this.el('observations-empty')
    const chart = this.el('observations-chart')
    const report = shown?.report ?? null
    const overall = report?.overall ?? null
    result.dataset.state = !report ? 'waiting' : overall ? 'report' : 'empty'
    result.dataset.version = report?.modelVersion ?? ''
    result.dataset.base = shown?.base?.version ?? ''
    this.el('observations-model').textContent = modelLine(shown)
    if (!report || !overall || !shown) {
      this.el('observations-summary').textContent = report ? '' : waiting
      empty.hidden = !report
      if (report) empty.replaceChildren(...noPlotsYet())
      this.el('observations-report').hidden = true
      this.el('observations-legend').hidden = true
      chart.replaceChildren()
      return
    }
    empty.hidden = true
    this.el('observations-report').hidden = false
    this.el('observations-summary').textContent = overallText(overall, report.intervalLevel)
    const series = seriesOf(shown)
    this.drawChart(series)
    this.renderLegend(series)
    this.renderBins(series)
    this.renderGroups(report)
    this.renderScores(shown)
    this.el('observations-notes-heading').hidden = report.notes.length === 0
    this.el('observations-notes').replaceChildren(
      ...report.notes.map((note) => {
        const li = document.createElement('li')
        li.textContent = note
        return li
      }),
    )
  }

  private drawChart(series: readonly ReliabilitySeries[]): void {
    const chart = this.el('observations-chart')
    if (series.every((s) => filledBins(s.bins).length === 0)) {
      chart.replaceChildren(placeholder('No bin of predicted survival has plots.'))
      return
    }
    const height = Math.max(240, Math.floor(chart.clientHeight) - CHART_SLACK)
    const width = Math.max(260, Math.min(CHART_MAX_WIDTH, Math.floor(chart.clientWidth)))
    chart.replaceChildren(reliabilityChart(series, width, height))
  }

  /** Two series: which marker is which version, in words beside each marker. */
  private renderLegend(series: readonly ReliabilitySeries[]): void {
    const legend = this.el('observations-legend')
    legend.hidden = series.length < 2
    legend.replaceChildren(
      ...(series.length < 2
        ? []
        : series.map((s) => {
            const li = document.createElement('li')
            li.className = 'reliability-legend-item'
            li.dataset.series = SERIES_DESCRIPTION[s.role]
            const text = document.createElement('span')
            text.textContent = `${s.label} (${s.role === 'base' ? 'hollow circles' : 'triangles'})`
            li.append(legendMarker(s.role), text)
            return li
          })),
    )
  }

  /** Each series' ten bins; two series each under a heading row naming its version. */
  private renderBins(series: readonly ReliabilitySeries[]): void {
    const rows = (s: ReliabilitySeries) =>
      s.bins.map((bin) =>
        tableRow([
          `${percent(bin.from, 0)}–${percent(bin.to, 0)}`,
          bin.plots.toLocaleString('en-US'),
          trees(bin.trees),
          bin.meanPredictedSurvival === null ? '—' : percent(bin.meanPredictedSurvival),
          bin.observedSurvival === null ? '—' : percent(bin.observedSurvival),
        ]),
      )
    this.el('observations-bins-body').replaceChildren(
      ...(series.length < 2
        ? series.flatMap(rows)
        : series.flatMap((s) => {
            const heading = document.createElement('tr')
            heading.className = 'series-row'
            const th = document.createElement('th')
            th.scope = 'rowgroup'
            th.colSpan = 5
            th.textContent = s.label
            heading.append(th)
            return [heading, ...rows(s)]
          })),
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

  /** One version: its scores as a list. A calibration: a table, the base version's beside it. */
  private renderScores(shown: ShownReport): void {
    const { report, base } = shown
    const compare = this.el('observations-scores-compare')
    const list = this.el('observations-scores')
    compare.hidden = !base
    list.hidden = !!base
    if (base) {
      this.el('observations-scores-base').textContent = base.version
      this.el('observations-scores-calibrated').textContent = report.modelVersion ?? ''
      const [before, after] = [base.report.scores, report.scores]
      const cell = (scores: Scores | null | undefined, value: (s: Scores) => [string, string]) => {
        if (!scores) return stacked('—', 'no plots')
        const [main, under] = value(scores)
        return stacked(main, under)
      }
      this.el('observations-scores-compare-body').replaceChildren(
        ...SCORE_ROWS.map(([label, value, note]) => {
          const tr = document.createElement('tr')
          const th = document.createElement('th')
          th.scope = 'row'
          th.textContent = label
          if (note) {
            const small = document.createElement('small')
            small.textContent = note
            th.append(small)
          }
          tr.append(th, cell(before, value), cell(after, value))
          return tr
        }),
      )
      list.replaceChildren()
      return
    }
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

/** The scores side by side: each row's label, its value and interval, and what a good value is. */
const SCORE_ROWS: [string, (s: Scores) => [string, string], string][] = [
  ['Brier score', (s) => [s.brier.toFixed(3), ''], '0 is perfect'],
  ['Log loss', (s) => [s.logLoss.toFixed(3), ''], 'lower is better'],
  [
    'Calibration in the large',
    (s) => [
      signed(s.calibrationInTheLarge.estimate),
      `${signed(s.calibrationInTheLarge.interval.low)} to ${signed(s.calibrationInTheLarge.interval.high)}`,
    ],
    'logit; 0 when calibrated',
  ],
  [
    'Calibration slope',
    (s) =>
      s.calibrationSlope
        ? [
            decimal(s.calibrationSlope.estimate),
            `${decimal(s.calibrationSlope.interval.low)} to ${decimal(s.calibrationSlope.interval.high)}`,
          ]
        : ['—', 'not estimated'],
    '1 when calibrated',
  ],
]

/** The diagram's series: the report alone, or the base version's and the calibration's. */
function seriesOf(shown: ShownReport): ReliabilitySeries[] {
  if (!shown.base)
    return [{ role: 'only', label: shown.report.modelVersion ?? '', bins: shown.report.reliability }]
  return [
    { role: 'base', label: `Base ${shown.base.version}`, bins: shown.base.report.reliability },
    {
      role: 'calibrated',
      label: `Calibrated ${shown.report.modelVersion ?? ''}`.trim(),
      bins: shown.report.reliability,
    },
  ]
}

/** Which version's predictions the report compares with (and the base beside a calibration). */
function modelLine(shown: ShownReport | null): string {
  if (!shown?.model) return ''
  const line = `Predictions by model ${modelName(shown.model)}`
  return shown.base
    ? `${line}: the stored predictions shifted by its offsets; beside them in the diagram and the scores, the base version ${shown.base.version}’s.`
    : `${line}.`
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
