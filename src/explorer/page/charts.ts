import * as Plot from '@observablehq/plot'
import { climateLabel, METHOD_LABELS, percent, points, TODAY_LABEL } from './format.ts'
import type { ExplorerComparisonFragment, ExplorerHorizonFragment } from './generated/operations.ts'
import type { Climate, Horizon } from './state.ts'

/** The charts of the page, drawn with Observable Plot as SVG (titles on every mark, for tooltips and readers). */

export const METHOD_COLOURS = ['#1b6e3a', '#c46a00']

const RAISES = 'raises survival'
const LOWERS = 'lowers survival'

export type Comparison = ExplorerComparisonFragment

const signed = (x: number, digits = 2): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`

/** A chart as an image for readers, with its label. */
export function framed(svg: SVGSVGElement | HTMLElement, label: string): SVGSVGElement | HTMLElement {
  svg.setAttribute('role', 'img')
  svg.setAttribute('aria-label', label)
  return svg
}

/** Survival at one horizon: what a chart row needs. */
interface HorizonSurvival {
  horizonYears: number
  survivalProbability: number
}

/** Today's survival at the same site, drawn beside a future climate's. */
export interface TodayBeside {
  manual: readonly HorizonSurvival[]
  droneSeeded: readonly HorizonSurvival[]
}

function survivalRows(
  methods: { manual: readonly HorizonSurvival[]; droneSeeded: readonly HorizonSurvival[] },
  climate: string,
) {
  return [
    ...methods.manual.map((h) => ({ method: METHOD_LABELS.manual, climate, ...h })),
    ...methods.droneSeeded.map((h) => ({ method: METHOD_LABELS.drone_seeded, climate, ...h })),
  ]
}

/**
 * Survival at 1, 3 and 5 years, one line per planting method; the chosen horizon is marked. Under a
 * future climate, today's survival and the future's side by side: two panels on one survival axis.
 */
export function survivalChart(
  comparison: Comparison,
  horizon: Horizon,
  width: number,
  height: number,
  future: { climate: Climate; today: TodayBeside } | null = null,
) {
  const futureLabel = future ? climateLabel(future.climate) : TODAY_LABEL
  const rows = [
    ...(future ? survivalRows(future.today, TODAY_LABEL) : []),
    ...survivalRows(comparison, futureLabel),
  ]
  type Row = (typeof rows)[number]
  const fx = future ? 'climate' : undefined
  return framed(
    Plot.plot({
      width,
      height,
      marginLeft: 48,
      marginRight: 24,
      style: { fontSize: '12px' },
      ...(future
        ? { fx: { domain: [TODAY_LABEL, futureLabel], label: null, axis: 'top', padding: 0.12 } }
        : {}),
      x: { label: 'Years after planting', domain: [0.5, 5.5], ticks: [1, 3, 5], tickFormat: 'd' },
      y: { label: 'Survival', domain: [0, 100], percent: true, grid: true },
      color: {
        legend: true,
        domain: [METHOD_LABELS.manual, METHOD_LABELS.drone_seeded],
        range: METHOD_COLOURS,
      },
      marks: [
        Plot.ruleX([horizon], { stroke: '#999', strokeDasharray: '3,3' }),
        Plot.line(rows, {
          x: 'horizonYears',
          y: 'survivalProbability',
          stroke: 'method',
          fx,
          strokeWidth: 2,
        }),
        Plot.dot(rows, {
          x: 'horizonYears',
          y: 'survivalProbability',
          fill: 'method',
          fx,
          r: 4,
          title: (d: Row) =>
            `${d.method}, ${d.horizonYears} years${future ? `, ${d.climate}` : ''}: ${percent(d.survivalProbability)}`,
        }),
        Plot.text(rows, {
          x: 'horizonYears',
          y: 'survivalProbability',
          text: (d: Row) => percent(d.survivalProbability, 0),
          fill: 'method',
          fx,
          dy: -10,
        }),
      ],
    }),
    future
      ? `Survival of ${comparison.species.commonName} at 1, 3 and 5 years by planting method, today and in ${futureLabel}`
      : `Survival of ${comparison.species.commonName} at 1, 3 and 5 years by planting method`,
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

/**
 * The ramps of the map's legends, without a title: the page writes it above in HTML, where a long
 * one (species, method, horizon, climate) wraps on a phone instead of running off the screen.
 */
const LEGEND_RAMP = { width: 240, marginTop: 4, height: 36 } as const

export function survivalLegend() {
  return Plot.legend({ color: { ...SURVIVAL_COLOURS, tickFormat: '.0%' }, ...LEGEND_RAMP })
}

/**
 * The colours of a difference of survival, on a diverging scale centred on 0: red below it, blue above
 * it. The survival map's change from today (future − today) and the observations' observed − predicted
 * both use it. The domain is symmetric, to the largest difference rounded up to 5 percentage points,
 * so the two sides read alike.
 */
export function divergingColours(differences: readonly number[]) {
  const largest = Math.max(0, ...differences.map(Math.abs))
  const reach = Math.max(0.05, Math.ceil(largest * 20 - 1e-9) / 20)
  return { type: 'diverging', scheme: 'RdBu', domain: [-reach, reach], pivot: 0 } as const
}

export type DivergingColours = ReturnType<typeof divergingColours>

export function divergingColour(colours: DivergingColours): (value: number) => string {
  const scale = Plot.scale({ color: colours })
  return (value) => String(scale.apply(value))
}

/** The ramp of a diverging scale, its ticks in percentage points ("−10", "0", "+10"). */
export function divergingLegend(colours: DivergingColours) {
  return Plot.legend({
    color: {
      ...colours,
      tickFormat: (difference: number) => (difference === 0 ? '0' : points(difference, 0).replace(' pp', '')),
    },
    ...LEGEND_RAMP,
  })
}
