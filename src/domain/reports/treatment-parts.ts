import type { HorizonPrediction } from '../../types.ts'
import type { AppliedEffect, AppliedTreatments, TreatmentSource } from '../treatment-types.ts'
import { TREATMENT_NAMES } from '../treatment-values.ts'
import type { DataTable, ReportBlock, ReportLanguage } from './report-document.ts'
import { type Messages, textOr } from './report-messages.ts'
import type { ReportNumbers } from './report-numbers.ts'

/*
 * The treatments of an answer that carries them (docs/treatments.md): what was asked for, each effect
 * with its figure, the share of its factors' penalty it removes and its status, the sources it rests
 * on, and for a prediction the survival with and without them at each horizon.
 */

/** A treatment's or a value's name in the report's language when the catalogue knows it, else as sent. */
function named(text: Messages, _language: ReportLanguage, key: string, fallback: string): string {
  return textOr(text, key, fallback)
}

function factorLabel(text: Messages, language: ReportLanguage, key: string): string {
  return named(text, language, `factor.${key}`, key)
}

function effectFigure(text: Messages, numbers: ReportNumbers, effect: AppliedEffect): string {
  const { figure } = effect
  const values = {
    value: numbers.ratio(figure.value),
    low: numbers.ratio(figure.range[0]),
    high: numbers.ratio(figure.range[1]),
  }
  return figure.kind === 'odds_ratio' ? text('value.figureOdds', values) : text('value.figurePoints', values)
}

/** A treatment's value in the report's language (as sent where the catalogue lacks it). */
const valueName = (text: Messages, value: string) => textOr(text, `treatmentValue.${value}`, value)

/** A treatment and its value, as a table's first cell. */
function effectName(text: Messages, language: ReportLanguage, effect: AppliedEffect): string {
  return `${named(text, language, `treatment.${effect.treatment}`, effect.treatment)}: ${valueName(text, effect.value)}`
}

/** What each effect rests on: the factors, the status of its figure, and the figure. */
function effectsTable(
  text: Messages,
  numbers: ReportNumbers,
  language: ReportLanguage,
  applied: AppliedTreatments,
): DataTable {
  return {
    caption: text('caption.treatmentEffects'),
    columns: [
      { label: text('column.treatment'), align: 'left' },
      { label: text('column.actsOn'), align: 'left' },
      { label: text('column.status'), align: 'left' },
      { label: text('column.figure'), align: 'left' },
    ],
    rows: applied.effects.map((effect) => [
      effectName(text, language, effect),
      effect.factors.map((key) => factorLabel(text, language, key)).join(', '),
      named(text, language, `status.${effect.status}`, effect.status),
      effectFigure(text, numbers, effect),
    ]),
  }
}

/** Each effect as the model applies it: the odds ratio and the share of the penalty removed, with ranges. */
function sharesTable(
  text: Messages,
  numbers: ReportNumbers,
  language: ReportLanguage,
  applied: AppliedTreatments,
): DataTable {
  const right = 'right' as const
  return {
    caption: text('caption.treatmentShares'),
    columns: [
      { label: text('column.treatment'), align: 'left' },
      { label: text('column.oddsRatio'), align: right },
      { label: text('column.rangeLow'), align: right },
      { label: text('column.rangeHigh'), align: right },
      { label: text('column.shareRemoved'), align: right },
      { label: text('column.rangeLow'), align: right },
      { label: text('column.rangeHigh'), align: right },
      { label: text('column.sd'), align: right },
    ],
    rows: applied.effects.map((effect) => [
      effectName(text, language, effect),
      numbers.ratio(effect.oddsRatio),
      numbers.ratio(effect.oddsRatioRange[0]),
      numbers.ratio(effect.oddsRatioRange[1]),
      numbers.probability(effect.reduction),
      numbers.probability(effect.reductionRange[0]),
      numbers.probability(effect.reductionRange[1]),
      numbers.probability(effect.reductionSd),
    ]),
  }
}

/** Sources, each once, as the answer names them (title, publisher, year). */
export function sourceLines(sources: Iterable<TreatmentSource>): string[] {
  const seen = new Set<string>()
  const lines: string[] = []
  for (const source of sources) {
    const by = [source.publisher, source.year === null ? null : String(source.year)].filter(Boolean)
    const line = by.length > 0 ? `${source.title} (${by.join(', ')})` : source.title
    if (seen.has(line)) continue
    seen.add(line)
    lines.push(line)
  }
  return lines
}

/** The effects' sources, each once. */
const sourcesList = (applied: AppliedTreatments) =>
  sourceLines(applied.effects.flatMap((effect) => effect.sources))

/**
 * The treatments section of one answer: `method` names the planting method when the answer has one
 * block per method (a comparison); `horizons`, a prediction's, adds treated and untreated survival and
 * the treated factors at each horizon.
 */
export function treatmentsSection(
  text: Messages,
  numbers: ReportNumbers,
  language: ReportLanguage,
  applied: AppliedTreatments,
  options: {
    method?: string
    horizons?: readonly HorizonPrediction[]
    /** false: the sources are listed by another section of the report (a comparison's first method). */
    sources?: boolean
  } = {},
): ReportBlock[] {
  const right = 'right' as const
  const blocks: ReportBlock[] = [
    {
      kind: 'heading',
      text: options.method
        ? text('heading.treatmentsFor', { method: options.method })
        : text('heading.treatments'),
    },
    {
      kind: 'facts',
      table: {
        rows: [
          ...TREATMENT_NAMES.map((name): readonly [string, string] => {
            const value = applied.values[name]
            return [
              named(text, language, `treatment.${name}`, name),
              value === null ? text('value.notAsked') : valueName(text, value),
            ]
          }),
          [text('fact.treatmentData'), applied.dataVersion],
        ],
      },
    },
  ]
  if (applied.effects.length > 0)
    blocks.push(
      { kind: 'table', table: effectsTable(text, numbers, language, applied) },
      { kind: 'table', table: sharesTable(text, numbers, language, applied) },
    )
  else blocks.push({ kind: 'paragraph', text: text('treatments.noEffect') })
  const treated = (options.horizons ?? []).flatMap((h) => (h.treatment ? [{ h, t: h.treatment }] : []))
  if (treated.length > 0) {
    blocks.push({
      kind: 'table',
      table: {
        caption: text('caption.treatedSurvival'),
        columns: [
          { label: text('column.horizon'), align: right },
          { label: text('column.treated'), align: right },
          { label: text('column.untreated'), align: right },
          { label: text('column.effectSd'), align: right },
          { label: text('column.factor'), align: 'left' },
          { label: text('column.with'), align: right },
          { label: text('column.without'), align: right },
        ],
        rows: treated.flatMap(({ h, t }) => {
          const head = [
            String(h.horizonYears),
            numbers.probability(h.survivalProbability),
            numbers.probability(t.untreatedSurvivalProbability),
            numbers.logOdds(t.effectSd),
          ]
          if (t.factors.length === 0) return [[...head, '—', '', '']]
          return t.factors.map((factor, index) => [
            ...(index === 0 ? head : ['', '', '', '']),
            factorLabel(text, language, factor.key),
            numbers.logOdds(factor.contribution),
            numbers.logOdds(factor.untreatedContribution),
          ])
        }),
      },
    })
  }
  if (applied.effects.length > 0 && options.sources !== false)
    blocks.push(
      { kind: 'paragraph', text: text('treatments.sources') },
      { kind: 'list', items: sourcesList(applied), small: true },
    )
  return blocks
}
