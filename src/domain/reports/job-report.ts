import type { JobResultsSummary } from '../jobs/job-results-summary.ts'
import type { JobView } from '../jobs/job-service.ts'
import { valueAxis } from './chart-axes.ts'
import type { BarsChart, DataTable, HistogramChart, ReportBlock, ReportDocument } from './report-document.ts'
import type { Messages } from './report-messages.ts'
import type { ReportNumbers } from './report-numbers.ts'
import { madeAt, printedRequest, REQUEST_FILE, reportFrame, requestJson, yearsText } from './report-parts.ts'
import type { ReportRequest } from './report-request.ts'

/*
 * What a finished job's report holds (docs/reports.md → A finished job): the job as recorded, its failed rows by
 * code, the distribution of survival at each horizon, and a GeoJSON job's stands against their
 * standard. The numbers are sums over the results as the owner downloads them.
 */

const SERIES_MARKS = ['series1', 'series2', 'series3'] as const

/** The job's settings as recorded when it was uploaded: what the report prints and attaches to redo it. */
export function jobSettings(job: JobView) {
  return {
    job: job.id,
    format: job.format,
    model_version: job.modelVersion,
    defaults: job.defaults,
    columns: job.columns,
    rows_total: job.rowsTotal,
    chunk_rows: job.chunkRows,
    created_at: job.createdAt.toISOString(),
    finished_at: job.finishedAt?.toISOString() ?? null,
  }
}

function defaultsText(text: Messages, defaults: Readonly<Record<string, string>>): string {
  const entries = Object.entries(defaults)
  if (entries.length === 0) return text('value.noDefaults')
  return entries.map(([name, value]) => `${name}=${value}`).join(', ')
}

function binLabel(numbers: ReportNumbers, from: number, to: number): string {
  return `${numbers.fixed(from, 1)}–${numbers.fixed(to, 1)}`
}

export function jobReport(
  job: JobView,
  summary: JobResultsSummary,
  request: ReportRequest,
  context: { text: Messages; numbers: ReportNumbers; synthetic: boolean; now: Date },
): ReportDocument {
  const { text, numbers } = context
  const language = request.language
  const when = (at: Date | null) => (at ? madeAt(language, at) : '—')
  const dataVersions = job.dataVersions.length > 0 ? job.dataVersions.join(', ') : '—'
  const blocks: ReportBlock[] = [
    { kind: 'heading', text: text('heading.job') },
    {
      kind: 'facts',
      table: {
        rows: [
          [text('fact.job'), job.id],
          [text('fact.format'), job.format],
          [text('fact.status'), text('value.succeeded')],
          [text('fact.uploaded'), when(job.createdAt)],
          [text('fact.finished'), when(job.finishedAt)],
          [text('fact.expires'), when(job.expiresAt)],
          [text('fact.rows'), numbers.count(summary.rows)],
          [text('fact.rowsScored'), numbers.count(summary.rows - summary.failed)],
          [text('fact.rowsFailed'), numbers.count(summary.failed)],
          [text('fact.model'), job.modelVersion],
          [text('fact.dataVersions'), dataVersions],
          [text('fact.defaults'), defaultsText(text, job.defaults)],
        ],
      },
    },
    ...failuresSection(text, numbers, summary),
    ...distributionSection(text, numbers, summary),
    ...standsSection(text, numbers, summary),
    { kind: 'heading', text: text('heading.assumptions') },
    { kind: 'paragraph', text: text('assumptions.job', { job: job.id }) },
  ]
  const settings = jobSettings(job)
  return reportFrame(request, text, {
    title: text('title.job', { job: job.id }),
    subtitle: text('subtitle.job', {
      rows: numbers.count(summary.rows),
      model: job.modelVersion,
      time: madeAt(language, context.now),
    }),
    createdAt: context.now,
    synthetic: context.synthetic,
    dataVersion: dataVersions,
    blocks,
    reproduce: {
      blocks: [
        { kind: 'heading', text: text('heading.reproduce') },
        {
          kind: 'paragraph',
          text: text('reproduce.job', { model: job.modelVersion, file: REQUEST_FILE }),
        },
        {
          kind: 'code',
          text: `${request.method} ${request.path}\nAccept: application/pdf\n\n${printedRequest(text, settings)}`,
        },
      ],
      attachment: {
        name: REQUEST_FILE,
        description: text('attachment.job'),
        mediaType: 'application/json',
        content: `${requestJson(settings)}\n`,
      },
    },
  })
}

function failuresSection(text: Messages, numbers: ReportNumbers, summary: JobResultsSummary): ReportBlock[] {
  const heading: ReportBlock = { kind: 'heading', text: text('heading.failures') }
  if (summary.errors.length === 0) return [heading, { kind: 'paragraph', text: text('failures.none') }]
  return [
    heading,
    {
      kind: 'table',
      table: {
        caption: text('caption.failures'),
        columns: [
          { label: text('column.errorCode'), align: 'left' },
          { label: text('column.rows'), align: 'right' },
          { label: text('column.shareOfRows'), align: 'right' },
        ],
        rows: summary.errors.map(({ code, rows }) => [
          code,
          numbers.count(rows),
          numbers.probability(rows / summary.rows),
        ]),
      },
    },
  ]
}

function distributionSection(
  text: Messages,
  numbers: ReportNumbers,
  summary: JobResultsSummary,
): ReportBlock[] {
  const heading: ReportBlock = { kind: 'heading', text: text('heading.distribution') }
  const present = summary.horizons.filter((horizon) => horizon.rows > 0)
  if (present.length === 0) return [heading, { kind: 'paragraph', text: text('distribution.none') }]
  const binCount = present[0]?.bins.length ?? 0
  const bins = Array.from({ length: binCount }, (_, k) => ({ from: k / binCount, to: (k + 1) / binCount }))
  const chart: HistogramChart = {
    kind: 'histogram',
    title: text('chart.job.title'),
    alt: text('chart.job.alt', { rows: numbers.count(summary.rows - summary.failed) }),
    legend: present.map((horizon, index) => ({
      label: yearsText(text, horizon.horizonYears),
      mark: SERIES_MARKS[index] ?? 'series1',
    })),
    x: {
      label: text('chart.job.x'),
      min: 0,
      max: 1,
      ticks: Array.from({ length: binCount + 1 }, (_, k) => ({
        value: k / binCount,
        label: numbers.fixed(k / binCount, 1),
      })),
    },
    y: valueAxis(
      text('chart.job.y'),
      present.flatMap((horizon) => horizon.bins),
      (value) => numbers.upTo(value, 0),
      { count: 4, whole: true },
    ),
    bins,
    series: present.map((horizon) => ({
      label: yearsText(text, horizon.horizonYears),
      counts: horizon.bins,
    })),
  }
  const right = 'right' as const
  const byBin: DataTable = {
    caption: text('caption.distribution'),
    columns: [
      { label: text('column.survivalBin'), align: 'left' },
      ...present.map((horizon) => ({ label: yearsText(text, horizon.horizonYears), align: right })),
    ],
    rows: bins.map((bin, k) => [
      binLabel(numbers, bin.from, bin.to),
      ...present.map((horizon) => numbers.count(horizon.bins[k] ?? 0)),
    ]),
  }
  const statistics: DataTable = {
    caption: text('caption.survivalSummary'),
    columns: [
      { label: text('column.horizon'), align: 'right' },
      { label: text('column.rows'), align: right },
      { label: text('column.mean'), align: right },
      { label: text('column.lowest'), align: right },
      { label: text('column.highest'), align: right },
    ],
    rows: present.map((horizon) => [
      String(horizon.horizonYears),
      numbers.count(horizon.rows),
      numbers.probability(horizon.mean ?? 0),
      numbers.probability(horizon.lowest ?? 0),
      numbers.probability(horizon.highest ?? 0),
    ]),
  }
  return [
    heading,
    { kind: 'chart', chart },
    { kind: 'table', table: byBin },
    { kind: 'table', table: statistics },
  ]
}

function standsSection(text: Messages, numbers: ReportNumbers, summary: JobResultsSummary): ReportBlock[] {
  const { stands } = summary
  if (stands.planned === 0) return []
  const chart: BarsChart = {
    kind: 'bars',
    title: text('chart.stands.title'),
    alt: text('chart.stands.alt', {
      meeting: numbers.count(stands.meeting),
      failing: numbers.count(stands.failing),
    }),
    legend: [
      { label: text('chart.stands.meeting'), mark: 'bar' },
      { label: text('chart.stands.failing'), mark: 'mutedBar' },
    ],
    value: valueAxis(
      text('chart.stands.value'),
      [stands.meeting, stands.failing],
      (value) => numbers.upTo(value, 0),
      { whole: true },
    ),
    bars: [
      {
        label: text('chart.stands.meeting'),
        value: stands.meeting,
        valueLabel: numbers.count(stands.meeting),
        muted: false,
      },
      {
        label: text('chart.stands.failing'),
        value: stands.failing,
        valueLabel: numbers.count(stands.failing),
        muted: true,
      },
    ],
  }
  return [
    { kind: 'heading', text: text('heading.stands') },
    {
      kind: 'facts',
      table: {
        rows: [
          [text('fact.standsPlanned'), numbers.count(stands.planned)],
          [text('fact.standsMeeting'), numbers.count(stands.meeting)],
          [text('fact.standsFailing'), numbers.count(stands.failing)],
          [text('fact.standsShare'), numbers.probability(stands.meeting / stands.planned)],
        ],
      },
    },
    { kind: 'chart', chart },
  ]
}
