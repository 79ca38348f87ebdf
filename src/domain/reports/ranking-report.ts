import { CLIMATE_DATA_NOTE } from '../climate.ts'
import type { SpeciesRanking } from '../prediction-types.ts'
import { probabilityAxis } from './chart-axes.ts'
import type { BarsChart, ReportBlock, ReportDocument } from './report-document.ts'
import type { Messages } from './report-messages.ts'
import { commonName } from './report-notes.ts'
import type { ReportNumbers } from './report-numbers.ts'
import {
  calibrationTable,
  climateSection,
  factorName,
  madeAt,
  methodName,
  notesSection,
  pointPlace,
  pointSummary,
  reportFrame,
  yearsText,
} from './report-parts.ts'
import type { ReportRequest } from './report-request.ts'
import { treatmentsSection } from './treatment-parts.ts'

/** What a species ranking's report holds (docs/reports.md → Species ranking). */
export function rankingReport(
  ranking: SpeciesRanking,
  request: ReportRequest,
  context: { text: Messages; numbers: ReportNumbers; synthetic: boolean },
): ReportDocument {
  const { text, numbers } = context
  const { site } = ranking
  const place = pointPlace(text, numbers, site)
  const method = methodName(text, ranking.plantingMethod)
  const blocks: ReportBlock[] = [
    { kind: 'heading', text: text('heading.where') },
    pointSummary(
      text,
      numbers,
      site,
      [
        [text('fact.method'), method],
        [text('fact.horizon'), yearsText(text, ranking.horizonYears)],
      ],
      { climate: ranking.climate, model: ranking.model },
    ),
    { kind: 'chart', chart: rankingChart(ranking, text, numbers) },
    { kind: 'heading', text: text('heading.ranking') },
    {
      kind: 'table',
      table: {
        caption: text('caption.ranking'),
        columns: [
          { label: text('column.rank'), align: 'right' },
          { label: text('column.species'), align: 'left' },
          { label: text('column.commonName'), align: 'left' },
          { label: text('column.survival'), align: 'right' },
          ...(ranking.treatments ? [{ label: text('column.untreated'), align: 'right' } as const] : []),
          { label: text('column.native'), align: 'left' },
          { label: text('column.topFactor'), align: 'left' },
          { label: text('column.impact'), align: 'left' },
          { label: text('column.magnitude'), align: 'right' },
        ],
        rows: ranking.ranking.map((entry) => [
          String(entry.rank),
          entry.species.code,
          commonName(text, entry.species),
          numbers.probability(entry.survivalProbability),
          ...(ranking.treatments ? [numbers.probability(entry.untreatedSurvivalProbability ?? 0)] : []),
          text(entry.nativeRange ? 'value.yes' : 'value.no'),
          factorName(text, request.language, entry.topFactor),
          text(`impact.${entry.topFactor.impact}`),
          numbers.logOdds(entry.topFactor.magnitude),
        ]),
      },
    },
    ...(ranking.treatments ? treatmentsSection(text, numbers, request.language, ranking.treatments) : []),
    ...(ranking.climate ? climateSection(text, numbers, ranking.climate) : []),
    ...calibrationTable(
      text,
      numbers,
      text('column.species'),
      ranking.ranking.flatMap((entry) =>
        entry.calibration ? [{ label: entry.species.code, shift: entry.calibration }] : [],
      ),
    ),
    { kind: 'heading', text: text('heading.assumptions') },
    { kind: 'paragraph', text: text('assumptions.prediction') },
    ...(ranking.climate ? [{ kind: 'paragraph', text: text('assumptions.climate') } as const] : []),
    ...notesSection(text, numbers, ranking.climate ? [CLIMATE_DATA_NOTE] : []),
  ]
  return reportFrame(request, text, {
    title: text('title.ranking', { place }),
    subtitle: text('subtitle.ranking', {
      method,
      horizon: ranking.horizonYears,
      time: madeAt(request.language, ranking.generatedAt),
    }),
    createdAt: ranking.generatedAt,
    synthetic: context.synthetic,
    dataVersion: site.dataVersion,
    model: ranking.model,
    blocks,
  })
}

function rankingChart(ranking: SpeciesRanking, text: Messages, numbers: ReportNumbers): BarsChart {
  return {
    kind: 'bars',
    title: text('chart.ranking.title', { horizon: ranking.horizonYears }),
    alt: text('chart.ranking.alt', { horizon: ranking.horizonYears }),
    legend: [
      { label: text('chart.ranking.native'), mark: 'bar' },
      { label: text('chart.ranking.outside'), mark: 'mutedBar' },
    ],
    value: probabilityAxis(text('chart.ranking.value'), (value) => numbers.upTo(value, 1)),
    bars: ranking.ranking.map((entry) => ({
      label: `${entry.species.code} · ${commonName(text, entry.species)}`,
      value: entry.survivalProbability,
      valueLabel: numbers.probability(entry.survivalProbability),
      muted: !entry.nativeRange,
    })),
  }
}
