import * as Plot from '@observablehq/plot'
import type { ExplorerCompareQuery, ExplorerHorizonFragment } from './generated/operations.ts'
import type { Horizon, Method } from './state.ts'

/** The charts of the page, drawn with Observable Plot as SVG (titles on every mark, for tooltips and readers). */

export const METHOD_LABELS: Record<Method, string> = {
  manual: 'Hand planting',
  drone_seeded: 'Drone seeding',
}
const METHOD_COLOURS = ['#1b6e3a', '#c46a00']
const RAISES = 'raises survival'
const LOWERS = 'lowers survival'

export type Comparison = NonNullable<ExplorerCompareQuery['compareMethods']>

export const percent = (p: number, digits = 1): string => `${(p * 100).toFixed(digits)}%`
const signed = (x: number, digits = 2): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`

function framed(svg: SVGSVGElement | HTMLElement, label: string): SVGSVGElement | HTMLElement {
  svg.setAttribute('role', 'img')
  svg.setAttribute('aria-label', label)
  return svg
}

/** Survival at 1, 3 and 5 years, one line per planting method; the chosen horizon is marked. */
export function survivalChart(comparison: Comparison, horizon: Horizon, width: number, height: number) {
  const rows = [
    ...comparison.manual.map((h) => ({ method: METHOD_LABELS.manual, ...h })),
    ...comparison.droneSeeded.map((h) => ({ method: METHOD_LABELS.drone_seeded, ...h })),
  ]
  return framed(
    Plot.plot({
      width,
      height,
      marginLeft: 48,
      marginRight: 24,
      style: { fontSize: '12px' },
      x: { label: 'Years after planting', domain: [0.5, 5.5], ticks: [1, 3, 5], tickFormat: 'd' },
      y: { label: 'Survival', domain: [0, 100], percent: true, grid: true },
      color: {
        legend: true,
        domain: [METHOD_LABELS.manual, METHOD_LABELS.drone_seeded],
        range: METHOD_COLOURS,
      },
      marks: [
        Plot.ruleX([horizon], { stroke: '#999', strokeDasharray: '3,3' }),
        Plot.line(rows, { x: 'horizonYears', y: 'survivalProbability', stroke: 'method', strokeWidth: 2 }),
        Plot.dot(rows, {
          x: 'horizonYears',
          y: 'survivalProbability',
          fill: 'method',
          r: 4,
          title: (d: (typeof rows)[number]) =>
            `${d.method}, ${d.horizonYears} years: ${percent(d.survivalProbability)}`,
        }),
        Plot.text(rows, {
          x: 'horizonYears',
          y: 'survivalProbability',
          text: (d: (typeof rows)[number]) => percent(d.survivalProbability, 0),
          fill: 'method',
          dy: -10,
        }),
      ],
    }),
    `Survival of ${comparison.species.commonName} at 1, 3 and 5 years by planting method`,
  )
}

export interface FactorRow {
  factor: string
  key: string
  contribution: number
  effect: string
}

export function factorRows(prediction: ExplorerHorizonFragment): FactorRow[] {
  return prediction.allFactors.map((f) => ({
    factor: f.factor,
    key: f.key,
    contribution: f.contribution,
    effect: f.contribution >= 0 ? RAISES : LOWERS,
  }))
}

/**
 * Every factor's contribution to the log-odds at one horizon, those that raise survival apart from
 * those that lower it; baseline + contributions = log-odds is written under the chart.
 */
export function factorChart(prediction: ExplorerHorizonFragment, width: number, height: number) {
  const rows = factorRows(prediction)
  return framed(
    Plot.plot({
      width,
      height,
      marginLeft: Math.min(190, width * 0.45),
      marginRight: 48,
      style: { fontSize: '12px' },
      x: { label: 'Contribution to log-odds of survival', grid: true },
      y: { label: null },
      color: { legend: true, domain: [RAISES, LOWERS], range: ['#2c7fb8', '#d7301f'] },
      marks: [
        Plot.barX(rows, {
          x: 'contribution',
          y: 'factor',
          fill: 'effect',
          sort: { y: 'x', reverse: true },
          title: (d: FactorRow) => `${d.factor}: ${signed(d.contribution)}`,
        }),
        Plot.text(rows, {
          x: 'contribution',
          y: 'factor',
          text: (d: FactorRow) => signed(d.contribution),
          textAnchor: 'start',
          dx: 4,
        }),
        Plot.ruleX([0]),
      ],
    }),
    `Factor contributions at ${prediction.horizonYears} years`,
  )
}

export interface RankedRow {
  rank: number
  code: string
  name: string
  survival: number
  nativeRange: boolean
  topFactor: string
}

const NATIVE = 'native range'
const OUTSIDE = 'outside native range'

/** All species ranked by survival here; those planted outside their native range are set apart. */
export function rankingChart(rows: readonly RankedRow[], width: number, height: number) {
  const labelled = rows.map((row) => ({
    ...row,
    label: `${row.rank}. ${row.name}${row.nativeRange ? '' : ' †'}`,
    range: row.nativeRange ? NATIVE : OUTSIDE,
  }))
  return framed(
    Plot.plot({
      width,
      height,
      marginLeft: Math.min(200, width * 0.5),
      marginRight: 44,
      style: { fontSize: '12px' },
      x: { label: 'Survival', domain: [0, 100], percent: true, grid: true },
      y: { label: null, domain: labelled.map((row) => row.label) },
      color: { legend: true, domain: [NATIVE, OUTSIDE], range: ['#1b6e3a', '#b9b9b9'] },
      marks: [
        Plot.barX(labelled, {
          x: 'survival',
          y: 'label',
          fill: 'range',
          title: (d: (typeof labelled)[number]) =>
            `${d.name} (${d.code}): ${percent(d.survival)}, ${d.range}; top factor: ${d.topFactor}`,
        }),
        Plot.text(labelled, {
          x: 'survival',
          y: 'label',
          text: (d: (typeof labelled)[number]) => percent(d.survival, 0),
          textAnchor: 'start',
          dx: 4,
        }),
      ],
    }),
    'Species ranked by survival at this site',
  )
}

/** The colour of a survival value on the survival map, and its legend. */
export const SURVIVAL_COLOURS = { type: 'linear', scheme: 'RdYlGn', domain: [0, 1] } as const

export function survivalColour(): (value: number) => string {
  const scale = Plot.scale({ color: SURVIVAL_COLOURS })
  return (value) => String(scale.apply(value))
}

export function survivalLegend(label: string) {
  return Plot.legend({
    color: { ...SURVIVAL_COLOURS, label, tickFormat: '.0%' },
    width: 240,
  })
}
