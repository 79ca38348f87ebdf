import type { HorizonPrediction } from '../../types.ts'
import { CLIMATE_DATA_NOTE } from '../climate.ts'
import type { Comparison } from '../prediction-types.ts'
import { horizonAxis, probabilityAxis } from './chart-axes.ts'
import type { LinesChart, ReportBlock, ReportDocument, ReportLanguage } from './report-document.ts'
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
  speciesName,
} from './report-parts.ts'
import type { ReportRequest } from './report-request.ts'
import { treatmentsSection } from './treatment-parts.ts'

/** Risk factors a comparison's report lists per method and horizon: the API contract's top 3. */
const FACTORS_SHOWN = 3

/** What a comparison's report holds (docs/reports.md → Method comparison). */
export function comparisonReport(
  comparison: Comparison,
  request: ReportRequest,
  context: { text: Messages; numbers: ReportNumbers; synthetic: boolean },
): ReportDocument {
  const { text, numbers } = context
  const { site } = comparison
  const place = pointPlace(text, numbers, site)
  const horizons = comparison.methodDifferential.map((d) => d.horizonYears)
  const blocks: ReportBlock[] = [
    { kind: 'heading', text: text('heading.where') },
    pointSummary(
      text,
      numbers,
      site,
      [
        [text('fact.species'), speciesName(text, comparison.species)],
        [text('fact.horizons'), horizons.join(', ')],
      ],
      { climate: comparison.climate, model: comparison.model },
    ),
    { kind: 'chart', chart: methodsChart(comparison, text, numbers) },
    { kind: 'heading', text: text('heading.differential') },
    {
      kind: 'table',
      table: {
        caption: text('caption.differential'),
        columns: [
          { label: text('column.horizon'), align: 'right' },
          { label: text('column.manual'), align: 'right' },
          { label: text('column.droneSeeded'), align: 'right' },
          { label: text('column.difference'), align: 'right' },
        ],
        rows: comparison.methodDifferential.map((d) => [
          String(d.horizonYears),
          numbers.probability(d.manual),
          numbers.probability(d.droneSeeded),
          numbers.probability(d.difference),
        ]),
      },
    },
    { kind: 'heading', text: text('heading.factors') },
    {
      kind: 'table',
      table: {
        caption: text('caption.factors'),
        columns: [
          { label: text('column.method'), align: 'left' },
          { label: text('column.horizon'), align: 'right' },
          { label: text('column.factor'), align: 'left' },
          { label: text('column.impact'), align: 'left' },
          { label: text('column.magnitude'), align: 'right' },
        ],
        rows: [
          ...factorRows(comparison.manual, methodName(text, 'manual'), text, request.language, numbers),
          ...factorRows(
            comparison.droneSeeded,
            methodName(text, 'drone_seeded'),
            text,
            request.language,
            numbers,
          ),
        ],
      },
    },
    ...(comparison.treatments
      ? [
          ...treatmentsSection(text, numbers, request.language, comparison.treatments.manual, {
            method: methodName(text, 'manual'),
            horizons: comparison.manual,
          }),
          ...treatmentsSection(text, numbers, request.language, comparison.treatments.droneSeeded, {
            method: methodName(text, 'drone_seeded'),
            horizons: comparison.droneSeeded,
            // Drone seeding takes a subset of hand planting's treatments, resting on the same sources.
            sources: !comparison.treatments.droneSeeded.effects.every((effect) =>
              comparison.treatments?.manual.effects.some((own) => own.effectId === effect.effectId),
            ),
          }),
        ]
      : []),
    ...(comparison.climate ? climateSection(text, numbers, comparison.climate) : []),
    ...calibrationTable(
      text,
      numbers,
      text('column.method'),
      comparison.manual[0]?.calibration && comparison.droneSeeded[0]?.calibration
        ? [
            { label: methodName(text, 'manual'), shift: comparison.manual[0].calibration },
            { label: methodName(text, 'drone_seeded'), shift: comparison.droneSeeded[0].calibration },
          ]
        : [],
    ),
    { kind: 'heading', text: text('heading.assumptions') },
    { kind: 'paragraph', text: text('assumptions.prediction') },
    ...(comparison.climate ? [{ kind: 'paragraph', text: text('assumptions.climate') } as const] : []),
    ...notesSection(text, numbers, comparison.climate ? [CLIMATE_DATA_NOTE] : []),
  ]
  return reportFrame(request, text, {
    title: text('title.comparison', { place }),
    subtitle: text('subtitle.comparison', {
      species: `${comparison.species.code} · ${commonName(text, comparison.species)}`,
      time: madeAt(request.language, comparison.generatedAt),
    }),
    createdAt: comparison.generatedAt,
    synthetic: context.synthetic,
    dataVersion: site.dataVersion,
    model: comparison.model,
    blocks,
  })
}

function factorRows(
  horizons: readonly HorizonPrediction[],
  method: string,
  text: Messages,
  language: ReportLanguage,
  numbers: ReportNumbers,
): string[][] {
  return horizons.flatMap((horizon) =>
    horizon
      .topContributions(FACTORS_SHOWN)
      .map((factor) => [
        method,
        String(horizon.horizonYears),
        factorName(text, language, factor),
        text(`impact.${factor.impact}`),
        numbers.logOdds(factor.magnitude),
      ]),
  )
}

function methodsChart(comparison: Comparison, text: Messages, numbers: ReportNumbers): LinesChart {
  const series = (label: string, horizons: readonly HorizonPrediction[]) => ({
    label,
    points: horizons.map((h) => ({
      x: h.horizonYears,
      y: h.survivalProbability,
      label: numbers.probability(h.survivalProbability),
    })),
  })
  return {
    kind: 'lines',
    title: text('chart.comparison.title'),
    alt: text('chart.comparison.alt'),
    legend: [
      { label: methodName(text, 'manual'), mark: 'line' },
      { label: methodName(text, 'drone_seeded'), mark: 'dashed' },
    ],
    x: horizonAxis(
      text('chart.comparison.x'),
      comparison.methodDifferential.map((d) => d.horizonYears),
    ),
    y: probabilityAxis(text('chart.comparison.y'), (value) => numbers.upTo(value, 1)),
    series: [
      series(methodName(text, 'manual'), comparison.manual),
      series(methodName(text, 'drone_seeded'), comparison.droneSeeded),
    ],
  }
}
