import type { CostPart, PlanCost } from '../stocking/costs.ts'
import type { DataTable, FactTable, ReportBlock, ReportLanguage } from './report-document.ts'
import { CATALOGUES, type MessageKey, type Messages } from './report-messages.ts'
import type { ReportNumbers } from './report-numbers.ts'
import { sourceLines } from './treatment-parts.ts'

/*
 * A stocking plan's cost (docs/costs.md), as the answer carries it: per acre planted, per tree
 * established at the rule's horizon with its interval, and the parts it is made of, each price with its
 * status and year, then the sources the prices rest on. Money is printed in US dollars to the cent.
 */

const has = (language: ReportLanguage, key: string): key is MessageKey => key in CATALOGUES[language]

function named(text: Messages, language: ReportLanguage, key: string, fallback: string): string {
  return has(language, key) ? text(key) : fallback
}

const usd = (text: Messages, numbers: ReportNumbers, value: number | null) =>
  value === null ? '—' : text('value.usd', { value: numbers.fixed(value, 2) })

function costFacts(
  text: Messages,
  numbers: ReportNumbers,
  language: ReportLanguage,
  cost: PlanCost,
): FactTable {
  const interval = cost.perEstablishedTreeInterval
  return {
    rows: [
      [text('fact.costPerAcre'), usd(text, numbers, cost.perAcre)],
      [
        text('fact.establishedTrees', { years: numbers.count(cost.horizonYears) }),
        numbers.trees(cost.establishedTreesPerAcre),
      ],
      [text('fact.costPerTree'), usd(text, numbers, cost.perEstablishedTree)],
      [
        text('fact.costInterval', { level: numbers.probability(interval.level) }),
        `${usd(text, numbers, interval.lower)} – ${usd(text, numbers, interval.upper)}`,
      ],
      [
        text('fact.leastCertain'),
        named(text, language, `status.${cost.leastCertainStatus}`, cost.leastCertainStatus),
      ],
    ],
  }
}

function partName(text: Messages, language: ReportLanguage, part: CostPart): string {
  const item = named(text, language, `costItem.${part.item}`, part.item)
  return part.speciesCode === null ? item : `${item} · ${part.speciesCode}`
}

function partsTable(
  text: Messages,
  numbers: ReportNumbers,
  language: ReportLanguage,
  cost: PlanCost,
): DataTable {
  return {
    caption: text('caption.costParts'),
    columns: [
      { label: text('column.costItem'), align: 'left' },
      { label: text('column.unitCost'), align: 'right' },
      { label: text('column.quantity'), align: 'right' },
      { label: text('column.perAcre'), align: 'right' },
      { label: text('column.status'), align: 'left' },
      { label: text('column.priceYear'), align: 'right' },
    ],
    rows: cost.parts.map((part) => [
      partName(text, language, part),
      `${numbers.fixed(part.unitCost, 2)} ${named(text, language, `costUnit.${part.unit}`, part.unit)}`,
      numbers.upTo(part.quantity, 2),
      numbers.fixed(part.perAcre, 2),
      named(text, language, `status.${part.status}`, part.status),
      part.priceYear === null ? '—' : String(part.priceYear),
    ]),
  }
}

/** The cost section of a plan's report. */
export function costSection(
  text: Messages,
  numbers: ReportNumbers,
  language: ReportLanguage,
  cost: PlanCost,
): ReportBlock[] {
  const sources = sourceLines(cost.parts.flatMap((part) => part.sources))
  return [
    { kind: 'heading', text: text('heading.cost') },
    { kind: 'facts', table: costFacts(text, numbers, language, cost) },
    { kind: 'table', table: partsTable(text, numbers, language, cost) },
    ...(sources.length > 0
      ? ([
          { kind: 'paragraph', text: text('costs.sources') },
          { kind: 'list', items: sources, small: true },
        ] as const)
      : []),
  ]
}
