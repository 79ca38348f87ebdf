import type {
  Axis,
  BandChart,
  BarsChart,
  Chart,
  HistogramChart,
  LinesChart,
  ReliabilityChart,
} from '../domain/reports/report-document.ts'
import { COLOUR, SIZE } from './pdf-style.ts'

/*
 * The charts drawn as vectors: a band against a target line, lines by horizon, and horizontal bars.
 * Each takes a frame's width and reports the height it needs before it is drawn.
 */

interface Area {
  left: number
  top: number
  width: number
  height: number
}

const TITLE_HEIGHT = 13
const LEGEND_HEIGHT = 12
const AXIS_LABEL_WIDTH = 34
const BOTTOM_AXIS_HEIGHT = 24
const BAR_ROW_HEIGHT = 10.5

/** The height a chart takes at a given width. */
export function chartHeight(chart: Chart): number {
  if (chart.kind === 'bars')
    return TITLE_HEIGHT + LEGEND_HEIGHT + chart.bars.length * BAR_ROW_HEIGHT + BOTTOM_AXIS_HEIGHT + 6
  if (chart.kind === 'reliability') return 230
  return 175
}

/** The colours of a histogram's series, in the legend's order. */
const SERIES_COLOURS = { series1: COLOUR.line, series2: COLOUR.second, series3: COLOUR.bar } as const

const along = (axis: Axis, value: number, from: number, length: number) =>
  from + ((value - axis.min) / (axis.max - axis.min || 1)) * length

function header(doc: PDFKit.PDFDocument, chart: Chart, x: number, y: number, width: number) {
  doc
    .font('bold')
    .fontSize(SIZE.body)
    .fillColor(COLOUR.text)
    .text(chart.title, x, y, { width, lineBreak: false })
  doc.font('regular').fontSize(SIZE.small)
  let at = x
  const middle = y + TITLE_HEIGHT + 4
  for (const entry of chart.legend) {
    if (entry.mark === 'band') doc.rect(at, middle - 3.5, 14, 7).fill(COLOUR.band)
    else if (entry.mark === 'line')
      doc
        .lineWidth(1.4)
        .moveTo(at, middle)
        .lineTo(at + 14, middle)
        .stroke(COLOUR.line)
    else if (entry.mark === 'dashed')
      doc
        .lineWidth(1.2)
        .dash(3, { space: 2 })
        .moveTo(at, middle)
        .lineTo(at + 14, middle)
        .stroke(
          chart.kind === 'band' ? COLOUR.target : chart.kind === 'reliability' ? COLOUR.muted : COLOUR.second,
        )
        .undash()
    else if (entry.mark === 'point') doc.circle(at + 7, middle, 3).fill(COLOUR.line)
    else if (entry.mark === 'series1' || entry.mark === 'series2' || entry.mark === 'series3')
      doc.rect(at, middle - 3.5, 14, 7).fill(SERIES_COLOURS[entry.mark])
    else doc.rect(at, middle - 3.5, 14, 7).fill(entry.mark === 'bar' ? COLOUR.bar : COLOUR.mutedBar)
    doc.fillColor(COLOUR.text).text(entry.label, at + 18, middle - 4, { lineBreak: false })
    at += 18 + doc.widthOfString(entry.label) + 14
  }
}

/** Horizontal grid lines and labels of a vertical axis, and the axis's name above it. */
function verticalAxis(doc: PDFKit.PDFDocument, axis: Axis, area: Area) {
  doc.font('regular').fontSize(SIZE.small)
  for (const tick of axis.ticks) {
    const y = along(axis, tick.value, area.top + area.height, -area.height)
    doc
      .lineWidth(0.4)
      .moveTo(area.left, y)
      .lineTo(area.left + area.width, y)
      .stroke(COLOUR.grid)
    doc.fillColor(COLOUR.muted).text(tick.label, area.left - AXIS_LABEL_WIDTH, y - 3.5, {
      width: AXIS_LABEL_WIDTH - 4,
      align: 'right',
      lineBreak: false,
    })
  }
  doc
    .lineWidth(0.6)
    .moveTo(area.left, area.top)
    .lineTo(area.left, area.top + area.height)
    .stroke(COLOUR.rule)
}

/** Ticks and labels of a horizontal axis under the area, and its name under them. */
function horizontalAxis(doc: PDFKit.PDFDocument, axis: Axis, area: Area, grid: boolean) {
  const bottom = area.top + area.height
  doc.font('regular').fontSize(SIZE.small)
  for (const tick of axis.ticks) {
    const x = along(axis, tick.value, area.left, area.width)
    if (grid) doc.lineWidth(0.4).moveTo(x, area.top).lineTo(x, bottom).stroke(COLOUR.grid)
    doc
      .lineWidth(0.6)
      .moveTo(x, bottom)
      .lineTo(x, bottom + 3)
      .stroke(COLOUR.rule)
    doc
      .fillColor(COLOUR.muted)
      .text(tick.label, x - 20, bottom + 4, { width: 40, align: 'center', lineBreak: false })
  }
  doc
    .lineWidth(0.6)
    .moveTo(area.left, bottom)
    .lineTo(area.left + area.width, bottom)
    .stroke(COLOUR.rule)
  doc.fillColor(COLOUR.text).text(axis.label, area.left, bottom + 13, {
    width: area.width,
    align: 'center',
    lineBreak: false,
  })
}

function plotArea(x: number, y: number, width: number, height: number): Area {
  const top = y + TITLE_HEIGHT + LEGEND_HEIGHT + 12
  return {
    left: x + AXIS_LABEL_WIDTH,
    top,
    width: width - AXIS_LABEL_WIDTH - 8,
    height: y + height - BOTTOM_AXIS_HEIGHT - top,
  }
}

function verticalAxisName(doc: PDFKit.PDFDocument, axis: Axis, area: Area) {
  doc.font('regular').fontSize(SIZE.small).fillColor(COLOUR.text)
  doc.text(axis.label, area.left - AXIS_LABEL_WIDTH, area.top - 11, { lineBreak: false })
}

function drawBand(
  doc: PDFKit.PDFDocument,
  chart: BandChart,
  x: number,
  y: number,
  width: number,
  height: number,
) {
  const area = plotArea(x, y, width, height)
  const px = (value: number) => along(chart.x, value, area.left, area.width)
  const py = (value: number) => along(chart.y, value, area.top + area.height, -area.height)
  verticalAxis(doc, chart.y, area)
  verticalAxisName(doc, chart.y, area)
  horizontalAxis(doc, chart.x, area, false)
  const points = chart.points
  if (points.length > 0) {
    const first = points[0] as BandChart['points'][number]
    doc.moveTo(px(first.x), py(first.upper))
    for (const point of points.slice(1)) doc.lineTo(px(point.x), py(point.upper))
    for (const point of [...points].reverse()) doc.lineTo(px(point.x), py(point.lower))
    doc.closePath().fill(COLOUR.band)
    doc.moveTo(px(first.x), py(first.expected))
    for (const point of points.slice(1)) doc.lineTo(px(point.x), py(point.expected))
    doc.lineWidth(1.6).stroke(COLOUR.line)
    for (const point of points) doc.circle(px(point.x), py(point.expected), 2).fill(COLOUR.line)
  }
  const targetY = py(chart.target.y)
  doc
    .lineWidth(1.2)
    .dash(4, { space: 3 })
    .moveTo(area.left, targetY)
    .lineTo(area.left + area.width, targetY)
    .stroke(COLOUR.target)
    .undash()
  doc.font('regular').fontSize(SIZE.small).fillColor(COLOUR.target)
  const labelWidth = doc.widthOfString(chart.target.label)
  doc.text(chart.target.label, area.left + area.width - labelWidth - 2, targetY - 10, { lineBreak: false })
}

function drawLines(
  doc: PDFKit.PDFDocument,
  chart: LinesChart,
  x: number,
  y: number,
  width: number,
  height: number,
) {
  const area = plotArea(x, y, width, height)
  const px = (value: number) => along(chart.x, value, area.left, area.width)
  const py = (value: number) => along(chart.y, value, area.top + area.height, -area.height)
  verticalAxis(doc, chart.y, area)
  verticalAxisName(doc, chart.y, area)
  horizontalAxis(doc, chart.x, area, false)
  chart.series.forEach((series, index) => {
    const colour = index === 0 ? COLOUR.line : COLOUR.second
    const [first, ...rest] = series.points
    if (!first) return
    doc.moveTo(px(first.x), py(first.y))
    for (const point of rest) doc.lineTo(px(point.x), py(point.y))
    doc.lineWidth(1.6)
    if (index > 0) doc.dash(4, { space: 2.5 })
    doc.stroke(colour).undash()
    doc.font('regular').fontSize(SIZE.small)
    for (const point of series.points) {
      doc.circle(px(point.x), py(point.y), 2.2).fill(colour)
      // The first series' values above its points, the second's below, so that close values stay apart.
      const labelY = index === 0 ? py(point.y) - 11 : py(point.y) + 4
      doc
        .fillColor(colour)
        .text(point.label, px(point.x) - 20, labelY, { width: 40, align: 'center', lineBreak: false })
    }
  })
}

function drawBars(
  doc: PDFKit.PDFDocument,
  chart: BarsChart,
  x: number,
  y: number,
  width: number,
  height: number,
) {
  doc.font('regular').fontSize(SIZE.small)
  const labelWidth = Math.min(170, Math.max(...chart.bars.map((bar) => doc.widthOfString(bar.label))) + 6)
  const valueWidth = 28
  const top = y + TITLE_HEIGHT + LEGEND_HEIGHT + 4
  const area: Area = {
    left: x + labelWidth,
    top,
    width: width - labelWidth - valueWidth,
    height: y + height - BOTTOM_AXIS_HEIGHT - top,
  }
  horizontalAxis(doc, chart.value, area, true)
  chart.bars.forEach((bar, index) => {
    const rowTop = area.top + index * BAR_ROW_HEIGHT
    const end = along(chart.value, bar.value, area.left, area.width)
    doc.rect(area.left, rowTop + 1.5, Math.max(0.5, end - area.left), BAR_ROW_HEIGHT - 3)
    doc.fill(bar.muted ? COLOUR.mutedBar : COLOUR.bar)
    doc.font('regular').fontSize(SIZE.small).fillColor(COLOUR.text)
    doc.text(bar.label, x, rowTop + 1.5, {
      width: labelWidth - 6,
      align: 'right',
      lineBreak: false,
      ellipsis: true,
    })
    doc.text(bar.valueLabel, end + 3, rowTop + 1.5, { lineBreak: false })
  })
  doc
    .lineWidth(0.6)
    .moveTo(area.left, area.top)
    .lineTo(area.left, area.top + area.height)
    .stroke(COLOUR.rule)
}

function drawHistogram(
  doc: PDFKit.PDFDocument,
  chart: HistogramChart,
  x: number,
  y: number,
  width: number,
  height: number,
) {
  const area = plotArea(x, y, width, height)
  const px = (value: number) => along(chart.x, value, area.left, area.width)
  const py = (value: number) => along(chart.y, value, area.top + area.height, -area.height)
  verticalAxis(doc, chart.y, area)
  verticalAxisName(doc, chart.y, area)
  horizontalAxis(doc, chart.x, area, false)
  const series = chart.series.length || 1
  chart.bins.forEach((bin, index) => {
    const left = px(bin.from)
    const binWidth = px(bin.to) - left
    // The bars of a bin side by side, a tenth of the bin's width left free on each side.
    const barWidth = (binWidth * 0.8) / series
    chart.series.forEach((entry, position) => {
      const count = entry.counts[index] ?? 0
      if (count <= 0) return
      const top = py(count)
      const mark = chart.legend[position]?.mark
      const colour =
        mark === 'series1' || mark === 'series2' || mark === 'series3' ? SERIES_COLOURS[mark] : COLOUR.bar
      // At least half a point tall, so that a bin of one row among a million still shows.
      const barHeight = Math.max(0.5, area.top + area.height - top)
      doc
        .rect(
          left + binWidth * 0.1 + position * barWidth,
          area.top + area.height - barHeight,
          barWidth,
          barHeight,
        )
        .fill(colour)
    })
  })
  doc
    .lineWidth(0.6)
    .moveTo(area.left, area.top + area.height)
    .lineTo(area.left + area.width, area.top + area.height)
    .stroke(COLOUR.rule)
}

function drawReliability(
  doc: PDFKit.PDFDocument,
  chart: ReliabilityChart,
  x: number,
  y: number,
  width: number,
  height: number,
) {
  const full = plotArea(x, y, width, height)
  // Square, so that the diagonal is at 45 degrees, and on the left of the frame.
  const side = Math.min(full.width, full.height)
  const area: Area = { ...full, width: side, height: side }
  const px = (value: number) => along(chart.x, value, area.left, area.width)
  const py = (value: number) => along(chart.y, value, area.top + area.height, -area.height)
  verticalAxis(doc, chart.y, area)
  verticalAxisName(doc, chart.y, area)
  horizontalAxis(doc, chart.x, area, true)
  doc
    .lineWidth(1)
    .dash(4, { space: 3 })
    .moveTo(px(chart.x.min), py(chart.y.min))
    .lineTo(px(chart.x.max), py(chart.y.max))
    .stroke(COLOUR.muted)
    .undash()
  const [first, ...rest] = chart.points
  if (!first) return
  doc.moveTo(px(first.x), py(first.y))
  for (const point of rest) doc.lineTo(px(point.x), py(point.y))
  doc.lineWidth(1.2).stroke(COLOUR.line)
  const heaviest = Math.max(...chart.points.map((point) => point.weight), 1)
  for (const point of chart.points) {
    // Area by weight: radius from 2 to 6 points.
    const radius = 2 + 4 * Math.sqrt(point.weight / heaviest)
    doc.circle(px(point.x), py(point.y), radius).fillOpacity(0.75).fill(COLOUR.line).fillOpacity(1)
  }
}

/** Draws the chart at (x, y), `width` wide and chartHeight(chart) tall. */
export function drawChart(doc: PDFKit.PDFDocument, chart: Chart, x: number, y: number, width: number) {
  const height = chartHeight(chart)
  header(doc, chart, x, y, width)
  if (chart.kind === 'band') drawBand(doc, chart, x, y, width, height)
  else if (chart.kind === 'lines') drawLines(doc, chart, x, y, width, height)
  else if (chart.kind === 'histogram') drawHistogram(doc, chart, x, y, width, height)
  else if (chart.kind === 'reliability') drawReliability(doc, chart, x, y, width, height)
  else drawBars(doc, chart, x, y, width, height)
}
