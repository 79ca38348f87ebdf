/**
 * A report as the domain decides it: every text already in the report's language and every number
 * already formatted, so that whatever draws it (src/report-files) only lays it out. Positions on the
 * page are the drawer's; geometry stays in longitude and latitude.
 */

export const REPORT_LANGUAGES = ['en', 'es'] as const
export type ReportLanguage = (typeof REPORT_LANGUAGES)[number]

export const PAPER_SIZES = ['a4', 'letter'] as const
export type Paper = (typeof PAPER_SIZES)[number]

/** [longitude, latitude], as GeoJSON orders them. */
export type LonLat = readonly [number, number]
/** Rings of one polygon: the outer ring first, then its holes. */
export type PolygonRings = readonly (readonly LonLat[])[]

export interface ReportDocument {
  language: ReportLanguage
  paper: Paper
  /** The document's title: its metadata and its first heading. */
  title: string
  /** One line under the title: what the report is of, and when it was made. */
  subtitle: string
  /** When the answer was made (the PDF's creation and modification dates). */
  createdAt: Date
  /** Shown in a box under the title while the site data are synthetic. */
  warning: string | null
  blocks: readonly ReportBlock[]
  /** The footer of every page; `{page}` and `{pages}` are filled in by the drawer. */
  footer: { text: string; pageOf: string }
  /** Files carried inside the document (the request, whole, so the report can be reproduced). */
  attachments: readonly ReportAttachment[]
}

export interface ReportAttachment {
  name: string
  description: string
  mediaType: string
  content: string
}

export type ReportBlock =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  /** `small`: references (sources), printed smaller than the text around them. */
  | { kind: 'list'; items: readonly string[]; small?: boolean }
  | { kind: 'summary'; facts: FactTable; map: LocatorMap }
  | { kind: 'facts'; table: FactTable }
  | { kind: 'table'; table: DataTable }
  | { kind: 'chart'; chart: Chart }
  /** Text shown as it is, in a fixed-width font (the request's JSON). */
  | { kind: 'code'; text: string }

/** Label–value rows. */
export interface FactTable {
  rows: readonly (readonly [label: string, value: string])[]
}

export interface DataTable {
  caption: string
  columns: readonly { label: string; align: 'left' | 'right' }[]
  rows: readonly (readonly string[])[]
  /** How many copies of the columns sit side by side, rows flowing down each (long lists of sites). */
  sideBySide?: number
}

/** A value axis: its range, its ticks and what it measures. */
export interface Axis {
  label: string
  min: number
  max: number
  ticks: readonly { value: number; label: string }[]
}

export type Chart = BandChart | LinesChart | BarsChart | HistogramChart | ReliabilityChart

interface ChartBase {
  title: string
  /** What the chart shows, for a screen reader (the Figure's alternative text). */
  alt: string
  /** Legend entries, in the order the drawer shows them. */
  legend: readonly {
    label: string
    mark: 'band' | 'line' | 'dashed' | 'bar' | 'mutedBar' | 'series1' | 'series2' | 'series3' | 'point'
  }[]
}

/**
 * Survivors per acre by horizon: the interval as a band, the expected count as a line, and the
 * standard's target as a dashed line across.
 */
export interface BandChart extends ChartBase {
  kind: 'band'
  x: Axis
  y: Axis
  points: readonly { x: number; lower: number; expected: number; upper: number }[]
  target: { y: number; label: string }
}

/** A few series of points against the same axes (both planting methods by horizon). */
export interface LinesChart extends ChartBase {
  kind: 'lines'
  x: Axis
  y: Axis
  series: readonly { label: string; points: readonly { x: number; y: number; label: string }[] }[]
}

/** One horizontal bar per row, longest first as given (a species ranking). */
export interface BarsChart extends ChartBase {
  kind: 'bars'
  value: Axis
  bars: readonly { label: string; value: number; valueLabel: string; muted: boolean }[]
}

/**
 * Counts of values by bin (a job's survival, 0–0.1 … 0.9–1): one column of bars per bin, a bar for each
 * series (horizon) side by side in the legend's order (`series1`, `series2`, `series3`).
 */
export interface HistogramChart extends ChartBase {
  kind: 'histogram'
  /** The bins' edges along the bottom, from the first bin's lower edge to the last bin's upper one. */
  x: Axis
  y: Axis
  /** Each bin's edges, in x's units. */
  bins: readonly { from: number; to: number }[]
  /** One count per bin in each series. */
  series: readonly { label: string; counts: readonly number[] }[]
}

/**
 * A reliability diagram: observed against predicted survival, one point per bin that holds plots (its
 * area by its trees), joined in order, and the diagonal of perfect calibration dashed.
 */
export interface ReliabilityChart extends ChartBase {
  kind: 'reliability'
  x: Axis
  y: Axis
  points: readonly { x: number; y: number; weight: number }[]
}

/**
 * Where the answer is: the states on one panel, with a box around the place, and the place close up on
 * another, with the requested point, the stand, and the data sites that answered.
 */
export interface LocatorMap {
  title: string
  alt: string
  /** The state outlines (polygons), drawn on both panels. */
  outlines: readonly PolygonRings[]
  /** The close-up's extent: west, south, east, north. */
  detail: readonly [number, number, number, number]
  stand: readonly PolygonRings[] | null
  requested: LonLat | null
  sites: readonly LonLat[]
  /** A scale bar for the close-up: its length in km and its label. */
  scale: { km: number; label: string }
  legend: { requested: string; site: string; stand: string; detail: string }
}
