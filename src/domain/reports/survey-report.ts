import type { VersionedReport } from '../surveys/survey-service.ts'
import type { Interval, SurveyGroup, SurveyReport } from '../surveys/survey-statistics.ts'
import { INTERVAL_LEVEL } from '../surveys/survey-statistics.ts'
import { probabilityAxis } from './chart-axes.ts'
import type { DataTable, ReliabilityChart, ReportBlock, ReportDocument } from './report-document.ts'
import type { Messages } from './report-messages.ts'
import type { ReportNumbers } from './report-numbers.ts'
import { madeAt, methodName, notesSection, REQUEST_FILE, reportFrame, requestJson } from './report-parts.ts'
import type { ReportRequest } from './report-request.ts'

/*
 * What the survey check's report holds (docs/reports.md → The survey check): the model version the surveys are
 * compared with, the reliability diagram, the scores, each group's observed and predicted survival and
 * their difference, the reliability bins and the notes; every number the JSON answer's.
 */

/** The query as asked, e.g. `species_code=PSME, model_version=0.2+cal.1a2b3c4d`; what the report prints. */
function queryText(text: Messages, query: Readonly<Record<string, string>>): string {
  const entries = Object.entries(query).filter(([name]) => name !== 'model_version')
  return entries.length === 0 ? text('value.allSurveys') : entries.map(([n, v]) => `${n}=${v}`).join(', ')
}

function groupName(text: Messages, group: SurveyGroup): string {
  if (group.scope === 'overall') return text('group.overall')
  const base = `${group.speciesCode ?? ''} · ${methodName(text, group.plantingMethod ?? '')}`
  return group.ageBand ? `${base} · ${text(`ageBand.${group.ageBand}`)}` : base
}

export function surveyReport(
  versioned: VersionedReport,
  request: ReportRequest & { body: Readonly<Record<string, string>> },
  context: { text: Messages; numbers: ReportNumbers; synthetic: boolean; now: Date },
): ReportDocument {
  const { text, numbers } = context
  const { report } = versioned
  const model = versioned.modelVersion ?? '—'
  const overall = report?.groups[0]
  const blocks: ReportBlock[] = [
    { kind: 'heading', text: text('heading.survey') },
    {
      kind: 'facts',
      table: {
        rows: [
          [text('fact.model'), model],
          [text('fact.surveys'), queryText(text, request.body)],
          [text('fact.intervalLevel'), numbers.probability(INTERVAL_LEVEL)],
          [text('fact.plots'), numbers.count(overall?.plots ?? 0)],
          ...(overall
            ? ([
                [text('fact.treesPlanted'), numbers.count(overall.planted)],
                [text('fact.treesAlive'), numbers.count(overall.alive)],
                [text('fact.observed'), numbers.probability(overall.observed)],
                [text('fact.predicted'), numbers.probability(overall.meanPredicted)],
              ] as const)
            : []),
        ],
      },
    },
    ...(report ? reportSections(text, numbers, report) : []),
    { kind: 'heading', text: text('heading.assumptions') },
    { kind: 'paragraph', text: text('assumptions.survey') },
    ...notesSection(text, numbers, report?.notes ?? [text('survey.none')]),
  ]
  return reportFrame(request, text, {
    title: text('title.survey', { model }),
    subtitle: text('subtitle.survey', {
      plots: numbers.count(overall?.plots ?? 0),
      time: madeAt(request.language, context.now),
    }),
    createdAt: context.now,
    synthetic: context.synthetic,
    dataVersion: null,
    blocks,
    reproduce: {
      blocks: [
        { kind: 'heading', text: text('heading.reproduce') },
        { kind: 'paragraph', text: text('reproduce.survey', { model, file: REQUEST_FILE }) },
        { kind: 'code', text: `${request.method} ${request.path}\nAccept: application/pdf` },
      ],
      attachment: {
        name: REQUEST_FILE,
        description: text('attachment.survey'),
        mediaType: 'application/json',
        content: `${requestJson(request.body)}\n`,
      },
    },
  })
}

function reportSections(text: Messages, numbers: ReportNumbers, report: SurveyReport): ReportBlock[] {
  const p = (value: number) => numbers.probability(value)
  const low = (interval: Interval) => p(interval[0])
  const high = (interval: Interval) => p(interval[1])
  const right = 'right' as const
  const slope = report.calibrationSlope
  const scores: DataTable = {
    caption: text('caption.scores'),
    columns: [
      { label: text('column.score'), align: 'left' },
      { label: text('column.estimate'), align: right },
      { label: text('column.intervalLow'), align: right },
      { label: text('column.intervalHigh'), align: right },
    ],
    rows: [
      [text('score.brier'), p(report.brier), '', ''],
      [text('score.logLoss'), p(report.logLoss), '', ''],
      [
        text('score.inTheLarge'),
        p(report.calibrationInTheLarge.estimate),
        low(report.calibrationInTheLarge.interval),
        high(report.calibrationInTheLarge.interval),
      ],
      slope
        ? [text('score.slope'), p(slope.slope), low(slope.slopeInterval), high(slope.slopeInterval)]
        : [text('score.slope'), '—', '', ''],
      ...(slope ? [[text('score.intercept'), p(slope.intercept), '', ''] as const] : []),
    ],
  }
  const groups: DataTable = {
    caption: text('caption.surveyGroups'),
    columns: [
      { label: text('column.group'), align: 'left' },
      { label: text('column.plots'), align: right },
      { label: text('column.planted'), align: right },
      { label: text('column.alive'), align: right },
      { label: text('column.observed'), align: right },
      { label: text('column.intervalLow'), align: right },
      { label: text('column.intervalHigh'), align: right },
      { label: text('column.predicted'), align: right },
    ],
    rows: report.groups.map((group) => [
      groupName(text, group),
      numbers.count(group.plots),
      numbers.count(group.planted),
      numbers.count(group.alive),
      p(group.observed),
      low(group.observedInterval),
      high(group.observedInterval),
      p(group.meanPredicted),
    ]),
  }
  const differences: DataTable = {
    caption: text('caption.surveyDifferences'),
    columns: [
      { label: text('column.group'), align: 'left' },
      { label: text('column.difference'), align: right },
      { label: text('column.intervalLow'), align: right },
      { label: text('column.intervalHigh'), align: right },
      { label: text('column.differs'), align: 'left' },
      { label: text('column.dispersion'), align: right },
      { label: text('column.correlation'), align: right },
    ],
    rows: report.groups.map((group) => [
      groupName(text, group),
      p(group.difference),
      low(group.differenceInterval),
      high(group.differenceInterval),
      text(group.differs ? 'value.yes' : 'value.no'),
      p(group.dispersion),
      p(group.plotCorrelation),
    ]),
  }
  const bins: DataTable = {
    caption: text('caption.reliability'),
    columns: [
      { label: text('column.predictedBin'), align: 'left' },
      { label: text('column.plots'), align: right },
      { label: text('column.trees'), align: right },
      { label: text('column.predicted'), align: right },
      { label: text('column.observed'), align: right },
    ],
    rows: report.reliability.map((bin) => [
      `${numbers.fixed(bin.from, 1)}–${numbers.fixed(bin.to, 1)}`,
      numbers.count(bin.plots),
      numbers.count(bin.trees),
      bin.meanPredicted === null ? '—' : p(bin.meanPredicted),
      bin.observed === null ? '—' : p(bin.observed),
    ]),
  }
  const chart: ReliabilityChart = {
    kind: 'reliability',
    title: text('chart.reliability.title'),
    alt: text('chart.reliability.alt'),
    legend: [
      { label: text('chart.reliability.bins'), mark: 'point' },
      { label: text('chart.reliability.perfect'), mark: 'dashed' },
    ],
    x: probabilityAxis(text('chart.reliability.x'), (value) => numbers.upTo(value, 1)),
    y: probabilityAxis(text('chart.reliability.y'), (value) => numbers.upTo(value, 1)),
    points: report.reliability.flatMap((bin) =>
      bin.meanPredicted === null || bin.observed === null
        ? []
        : [{ x: bin.meanPredicted, y: bin.observed, weight: bin.trees }],
    ),
  }
  return [
    { kind: 'chart', chart },
    { kind: 'heading', text: text('heading.scores') },
    { kind: 'table', table: scores },
    { kind: 'heading', text: text('heading.surveyGroups') },
    { kind: 'table', table: groups },
    { kind: 'table', table: differences },
    { kind: 'heading', text: text('heading.reliability') },
    { kind: 'table', table: bins },
  ]
}
