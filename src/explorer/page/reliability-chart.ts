import * as Plot from '@observablehq/plot'
import { framed } from './charts.ts'
import { percent, trees } from './format.ts'
import type { ReliabilityBin } from './survey-data.ts'

/** A bin with plots in it: its mean prediction and its observed survival. */
type FilledBin = ReliabilityBin & { meanPredictedSurvival: number; observedSurvival: number }

export function filledBins(bins: readonly ReliabilityBin[]): FilledBin[] {
  return bins.filter(
    (bin): bin is FilledBin =>
      bin.plots > 0 && bin.meanPredictedSurvival !== null && bin.observedSurvival !== null,
  )
}

/** The largest bin's marker radius, pixels: the area of each marker is proportional to its trees. */
const LARGEST_RADIUS = 16

/**
 * The reliability diagram: for each bin of predicted survival, the trees' mean prediction (x) against
 * their observed survival (y), on 0–100 % axes, with the diagonal where they agree; each bin a marker
 * whose area is proportional to its trees. Marks carry aria-descriptions ("diagonal", "bins") for
 * readers and for scripts that read the chart; the SVG has a title and a description.
 */
export function reliabilityChart(bins: readonly ReliabilityBin[], width: number, height: number) {
  const filled = filledBins(bins)
  const mostTrees = Math.max(1, ...filled.map((bin) => bin.trees))
  const label = 'Reliability diagram: observed against predicted survival'
  const description = `${filled.length} bins of predicted survival with plots, each drawn at its trees’ mean prediction (x) and observed survival (y), its area proportional to its trees; the dashed diagonal is where observed equals predicted. ${filled
    .map(
      (bin) =>
        `${percent(bin.from, 0)}–${percent(bin.to, 0)}: predicted ${percent(bin.meanPredictedSurvival)}, observed ${percent(bin.observedSurvival)}, ${trees(bin.trees)} trees`,
    )
    .join('; ')}.`
  const chart = Plot.plot({
    width,
    height,
    marginLeft: 48,
    marginRight: 18,
    marginTop: 18,
    marginBottom: 40,
    style: { fontSize: '12px' },
    x: { label: 'Predicted survival (%)', domain: [0, 100], percent: true, grid: true },
    y: { label: 'Observed survival (%)', domain: [0, 100], percent: true, grid: true },
    r: { type: 'sqrt', domain: [0, mostTrees], range: [0, LARGEST_RADIUS] },
    marks: [
      Plot.line(
        [
          [0, 0],
          [1, 1],
        ],
        { stroke: '#6b6b6b', strokeDasharray: '5,4', ariaDescription: 'diagonal' },
      ),
      Plot.dot(filled, {
        x: 'meanPredictedSurvival',
        y: 'observedSurvival',
        r: 'trees',
        fill: '#1b6e3a',
        fillOpacity: 0.45,
        stroke: '#0b3d1e',
        strokeWidth: 1.2,
        ariaDescription: 'bins',
        title: (bin: FilledBin) =>
          `Predicted ${percent(bin.from, 0)}–${percent(bin.to, 0)}: mean prediction ${percent(bin.meanPredictedSurvival)}, observed ${percent(bin.observedSurvival)}; ${trees(bin.trees)} trees on ${bin.plots} plot${bin.plots === 1 ? '' : 's'}`,
      }),
    ],
  })
  const svg = chart instanceof SVGSVGElement ? chart : chart.querySelector('svg')
  if (svg) {
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title')
    title.textContent = label
    const desc = document.createElementNS('http://www.w3.org/2000/svg', 'desc')
    desc.textContent = description
    svg.prepend(title, desc)
  }
  return framed(chart, label)
}
