import * as Plot from '@observablehq/plot'
import { framed, METHOD_COLOURS } from './charts.ts'
import { METHOD_LABELS, percent } from './format.ts'
import { usd } from './plan-cost-view.ts'

/** One point of the options chart: a way to plant, its probability of meeting the standard and its cost. */
export interface OptionPoint {
  method: 'manual' | 'drone_seeded'
  treatments: string
  treesPerAcre: number
  probability: number
  costPerAcre: number
}

const FAILING_COLOUR = '#b3261e'

/**
 * Cost per acre against the probability of meeting the standard: each option at its smallest density
 * meeting it (so at or just right of the confidence line), coloured by method, the cheapest labelled,
 * and the cheapest failing option left of the line. Marks carry aria-descriptions ("option",
 * "failing option", "confidence line") for readers and for scripts that read the chart.
 */
export function optionsChart(
  options: readonly OptionPoint[],
  failing: OptionPoint | null,
  confidence: number,
  width: number,
  height: number,
) {
  const all = failing ? [...options, failing] : [...options]
  const probabilities = [confidence, ...all.map((o) => o.probability)]
  const low = Math.max(0, Math.min(...probabilities) - 0.04)
  const high = Math.min(1, Math.max(...probabilities) + 0.04)
  const top = Math.max(1, ...all.map((o) => o.costPerAcre)) * 1.15
  const cheapest = options[0]
  // A label goes beside its dot on the side with room: left of a dot in the right part of the chart.
  const leftOf = (o: OptionPoint) => (o.probability - low) / (high - low) > 0.6
  const beside = (o: OptionPoint) =>
    leftOf(o) ? { textAnchor: 'end' as const, dx: -8 } : { textAnchor: 'start' as const, dx: 8 }
  const pointTitle = (o: OptionPoint) =>
    `${METHOD_LABELS[o.method]}, ${o.treatments}: ${Math.round(o.treesPerAcre)} ${o.method === 'drone_seeded' ? 'pods' : 'trees'} per acre, ${percent(o.probability)} probability, ${usd(o.costPerAcre)} per acre`
  const confidenceLabel = `${percent(confidence, 0)} confidence`
  return framed(
    Plot.plot({
      width,
      height,
      marginLeft: 56,
      marginRight: 16,
      marginTop: 22,
      marginBottom: 38,
      style: { fontSize: '12px' },
      // With `percent`, the domain is in percent (the data's fractions are scaled to it).
      x: {
        label: 'Probability of meeting the standard (%)',
        domain: [low * 100, high * 100],
        percent: true,
      },
      y: { label: 'Cost per acre (USD)', domain: [0, top], grid: true, nice: true },
      color: {
        legend: true,
        domain: [METHOD_LABELS.manual, METHOD_LABELS.drone_seeded],
        range: METHOD_COLOURS,
      },
      marks: [
        Plot.ruleX([confidence], {
          stroke: '#555',
          strokeDasharray: '6,4',
          ariaDescription: 'confidence line',
          title: () => `The confidence asked for: ${confidenceLabel}`,
        }),
        Plot.text([confidence], {
          x: (d: number) => d,
          frameAnchor: 'top',
          text: () => confidenceLabel,
          textAnchor: 'end',
          dx: -4,
          dy: 4,
          fill: '#555',
          stroke: 'white',
          strokeWidth: 3,
          paintOrder: 'stroke',
          ariaDescription: 'confidence label',
        }),
        Plot.dot(options, {
          x: 'probability',
          y: 'costPerAcre',
          fill: (o: OptionPoint) => METHOD_LABELS[o.method],
          stroke: 'white',
          r: 4.5,
          ariaDescription: 'option',
          title: pointTitle,
        }),
        ...(failing
          ? [
              Plot.dot([failing], {
                x: 'probability',
                y: 'costPerAcre',
                symbol: 'times',
                stroke: FAILING_COLOUR,
                strokeWidth: 2.5,
                r: 6,
                ariaDescription: 'failing option',
                title: (o: OptionPoint) => `Cheapest failing: ${pointTitle(o)}`,
              }),
              Plot.text([failing], {
                x: 'probability',
                y: 'costPerAcre',
                text: () => 'cheapest failing',
                ...beside(failing),
                fill: FAILING_COLOUR,
                stroke: 'white',
                strokeWidth: 3,
                paintOrder: 'stroke',
                ariaDescription: 'failing label',
              }),
            ]
          : []),
        ...(cheapest
          ? [
              Plot.text([cheapest], {
                x: 'probability',
                y: 'costPerAcre',
                text: (o: OptionPoint) => `cheapest ${usd(o.costPerAcre)}`,
                ...beside(cheapest),
                dy: 8,
                fill: '#1d2a22',
                fontWeight: 'bold',
                stroke: 'white',
                strokeWidth: 3,
                paintOrder: 'stroke',
                ariaDescription: 'cheapest label',
              }),
            ]
          : []),
      ],
    }),
    `Cost per acre against the probability of meeting the standard: ${options.length} option${options.length === 1 ? '' : 's'} meeting it at ${confidenceLabel}${cheapest ? `, the cheapest ${usd(cheapest.costPerAcre)} per acre` : ''}${failing ? `; the cheapest failing at ${percent(failing.probability)}, ${usd(failing.costPerAcre)} per acre` : ''}`,
  )
}
