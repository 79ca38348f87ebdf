import * as Plot from '@observablehq/plot'
import { framed } from './charts.ts'
import { percent, trees, years } from './format.ts'

/** One horizon of a stocking plan: expected survivors per acre and the interval at the plan's confidence. */
export interface PlanHorizonRow {
  horizonYears: number
  survivalProbability: number
  expectedTreesPerAcre: number
  lower: number
  upper: number
}

export interface StockingChartOptions {
  horizons: readonly PlanHorizonRow[]
  /** The standard's target, trees per acre, and the horizon it is judged at. */
  targetTreesPerAcre: number
  ruleHorizonYears: number
  plantedTreesPerAcre: number
  confidence: number
}

const PLAN_COLOURS = { expected: '#1b6e3a', band: '#b9dcc4', standard: '#b3261e', planted: '#8a8a8a' }

/**
 * Surviving trees per acre at 1, 3 and 5 years: the expected survivors on a line, the interval at the
 * plan's confidence as a band around it, the standard's target as a red line (the horizon it is judged
 * at marked) and the planted density as a grey one. Marks carry aria-descriptions ("interval band",
 * "standard line", …) for readers and for scripts that read the chart.
 */
export function stockingChart(options: StockingChartOptions, width: number, height: number) {
  const { horizons, targetTreesPerAcre: target, plantedTreesPerAcre: planted, confidence } = options
  const expectedLabel = 'Expected survivors'
  const bandLabel = `${percent(confidence, 0)} interval`
  const standardLabel = 'Standard'
  const top = Math.max(planted, target, ...horizons.map((h) => h.upper)) * 1.12
  type Row = (typeof horizons)[number]
  const narrow = width < 360
  return framed(
    Plot.plot({
      width,
      height,
      marginLeft: 48,
      marginRight: 16,
      marginTop: 22,
      marginBottom: 36,
      style: { fontSize: '12px' },
      x: { label: 'Years after planting', domain: [0.5, 5.5], ticks: [1, 3, 5], tickFormat: 'd' },
      y: { label: 'Trees per acre', domain: [0, top], grid: true, nice: true },
      color: {
        legend: true,
        domain: [expectedLabel, bandLabel, standardLabel],
        range: [PLAN_COLOURS.expected, PLAN_COLOURS.band, PLAN_COLOURS.standard],
      },
      marks: [
        Plot.areaY(horizons, {
          x: 'horizonYears',
          y1: 'lower',
          y2: 'upper',
          fill: () => bandLabel,
          ariaDescription: 'interval band',
        }),
        Plot.ruleX([options.ruleHorizonYears], {
          stroke: '#999',
          strokeDasharray: '3,3',
          ariaDescription: 'rule horizon',
        }),
        Plot.ruleY([planted], {
          stroke: PLAN_COLOURS.planted,
          strokeDasharray: '2,3',
          ariaDescription: 'planted line',
        }),
        // Between the dots of 1 and 3 years, above its line: the survivors lie below it, the band too.
        Plot.text([planted], {
          x: 2,
          y: (d: number) => d,
          text: (d: number) => `Planted ${trees(d)}`,
          dy: -7,
          fill: '#555',
          stroke: 'white',
          strokeWidth: 3,
          paintOrder: 'stroke',
          ariaDescription: 'planted label',
        }),
        Plot.ruleY([target], {
          stroke: () => standardLabel,
          strokeWidth: 2,
          strokeDasharray: '7,4',
          ariaDescription: 'standard line',
          title: () => `Standard: ${trees(target)} trees per acre at ${options.ruleHorizonYears} years`,
        }),
        Plot.text([target], {
          x: 5.5,
          y: (d: number) => d,
          text: (d: number) =>
            narrow
              ? `Standard ${trees(d)}`
              : `Standard ${trees(d)} at ${options.ruleHorizonYears} yr${options.ruleHorizonYears === 1 ? '' : 's'}`,
          textAnchor: 'end',
          dx: -2,
          dy: 11,
          fill: PLAN_COLOURS.standard,
          stroke: 'white',
          strokeWidth: 3,
          paintOrder: 'stroke',
          ariaDescription: 'standard label',
        }),
        Plot.line(horizons, {
          x: 'horizonYears',
          y: 'expectedTreesPerAcre',
          stroke: () => expectedLabel,
          strokeWidth: 2,
          ariaDescription: 'expected line',
        }),
        Plot.dot(horizons, {
          x: 'horizonYears',
          y: 'expectedTreesPerAcre',
          fill: () => expectedLabel,
          r: 4,
          ariaDescription: 'expected',
          title: (d: Row) =>
            `${years(d.horizonYears)}: ${trees(d.expectedTreesPerAcre)} trees per acre expected (survival ${percent(d.survivalProbability)}), ${bandLabel} ${trees(d.lower)}–${trees(d.upper)}`,
        }),
        Plot.text(horizons, {
          x: 'horizonYears',
          y: 'expectedTreesPerAcre',
          text: (d: Row) => trees(d.expectedTreesPerAcre),
          fill: PLAN_COLOURS.expected,
          stroke: 'white',
          strokeWidth: 3,
          paintOrder: 'stroke',
          fontWeight: 'bold',
          dy: -11,
          ariaDescription: 'expected label',
        }),
      ],
    }),
    `Surviving trees per acre at 1, 3 and 5 years: expected ${horizons.map((h) => `${trees(h.expectedTreesPerAcre)} at ${h.horizonYears}`).join(', ')}, with the ${bandLabel}; the standard is ${trees(target)} per acre at ${options.ruleHorizonYears} years, ${trees(planted)} planted`,
  )
}
