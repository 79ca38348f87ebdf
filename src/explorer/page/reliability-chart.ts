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

/**
 * One version's bins. `role` says how it is drawn: 'only' (one version: filled circles), or, with a
 * calibration beside its base version, 'base' (hollow grey circles) and 'calibrated' (filled green
 * triangles): told apart by shape as well as colour.
 */
export interface ReliabilitySeries {
  role: 'only' | 'base' | 'calibrated'
  /** "Base 0.2", "Calibrated 0.2+cal.3f9a1c2e": the legend's and the description's words. */
  label: string
  bins: readonly ReliabilityBin[]
}

/** How each role is drawn; `symbol` is also the legend's marker. */
export const SERIES_STYLE = {
  only: { symbol: 'circle', fill: '#1b6e3a', fillOpacity: 0.45, stroke: '#0b3d1e', strokeWidth: 1.2 },
  base: { symbol: 'circle', fill: '#ffffff', fillOpacity: 0.6, stroke: '#4a4a4a', strokeWidth: 1.8 },
  calibrated: { symbol: 'triangle', fill: '#1b6e3a', fillOpacity: 0.55, stroke: '#0b3d1e', strokeWidth: 1.2 },
} as const

/** The marks' aria-descriptions, by role: what readers hear and what scripts find the markers by. */
export const SERIES_DESCRIPTION = { only: 'bins', base: 'base bins', calibrated: 'calibrated bins' } as const

/** The largest bin's marker radius, pixels: the area of each marker is proportional to its trees. */
const LARGEST_RADIUS = 16

function binText(bin: FilledBin): string {
  return `${percent(bin.from, 0)}–${percent(bin.to, 0)}: predicted ${percent(bin.meanPredictedSurvival)}, observed ${percent(bin.observedSurvival)}, ${trees(bin.trees)} trees`
}

/**
 * The reliability diagram: for each bin of predicted survival, the trees' mean prediction (x) against
 * their observed survival (y), on 0–100 % axes, with the diagonal where they agree; each bin a marker
 * whose area is proportional to its trees (on one scale for every series). Marks carry
 * aria-descriptions ("diagonal", and SERIES_DESCRIPTION's) for readers and for scripts that read the
 * chart; the SVG has a title and a description naming every bin of every series.
 */
export function reliabilityChart(series: readonly ReliabilitySeries[], width: number, height: number) {
  const filled = series.map((s) => ({ ...s, filled: filledBins(s.bins) }))
  const mostTrees = Math.max(1, ...filled.flatMap((s) => s.filled.map((bin) => bin.trees)))
  const label =
    filled.length > 1
      ? `Reliability diagram: observed against predicted survival, ${filled.map((s) => s.label).join(' and ')}`
      : 'Reliability diagram: observed against predicted survival'
  const shape = (s: ReliabilitySeries) =>
    s.role === 'only' ? '' : ` (${SERIES_STYLE[s.role].symbol === 'circle' ? 'hollow circles' : 'triangles'})`
  const description =
    filled.length > 1
      ? `Each version’s bins of predicted survival with plots, drawn at their trees’ mean prediction (x) and observed survival (y), each marker’s area proportional to its trees; the dashed diagonal is where observed equals predicted. ${filled
          .map((s) => `${s.label}${shape(s)}, ${s.filled.length} bins: ${s.filled.map(binText).join('; ')}.`)
          .join(' ')}`
      : `${filled[0]?.filled.length ?? 0} bins of predicted survival with plots, each drawn at its trees’ mean prediction (x) and observed survival (y), its area proportional to its trees; the dashed diagonal is where observed equals predicted. ${(
          filled[0]?.filled ?? []
        )
          .map(binText)
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
      ...filled.map((s) =>
        Plot.dot(s.filled, {
          x: 'meanPredictedSurvival',
          y: 'observedSurvival',
          r: 'trees',
          ...SERIES_STYLE[s.role],
          ariaDescription: SERIES_DESCRIPTION[s.role],
          title: (bin: FilledBin) =>
            `${s.role === 'only' ? 'Predicted' : `${s.label}, predicted`} ${percent(bin.from, 0)}–${percent(bin.to, 0)}: mean prediction ${percent(bin.meanPredictedSurvival)}, observed ${percent(bin.observedSurvival)}; ${trees(bin.trees)} trees on ${bin.plots} plot${bin.plots === 1 ? '' : 's'}`,
        }),
      ),
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

/** A legend entry's marker: the series' symbol, as an inline SVG (decorative: the text names it). */
export function legendMarker(role: ReliabilitySeries['role']): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg'
  const style = SERIES_STYLE[role]
  const svg = document.createElementNS(ns, 'svg')
  svg.setAttribute('width', '16')
  svg.setAttribute('height', '16')
  svg.setAttribute('viewBox', '-8 -8 16 16')
  svg.setAttribute('aria-hidden', 'true')
  const mark =
    style.symbol === 'circle' ? document.createElementNS(ns, 'circle') : document.createElementNS(ns, 'path')
  if (style.symbol === 'circle') mark.setAttribute('r', '5.5')
  else mark.setAttribute('d', 'M0,-6.5L5.6,3.25L-5.6,3.25Z')
  mark.setAttribute('fill', style.fill)
  mark.setAttribute('fill-opacity', String(style.fillOpacity))
  mark.setAttribute('stroke', style.stroke)
  mark.setAttribute('stroke-width', String(style.strokeWidth))
  svg.append(mark)
  return svg
}
