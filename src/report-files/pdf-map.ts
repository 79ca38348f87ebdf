import type { LocatorMap, LonLat, PolygonRings } from '../domain/reports/report-document.ts'
import { COLOUR, SIZE } from './pdf-style.ts'

/*
 * The locator map drawn as vectors: the states with the close-up's box on one panel, the close-up on
 * the other (state lines, the stand, the data sites, the requested point, a scale bar), and a legend.
 */

type Extent = readonly [west: number, south: number, east: number, north: number]

interface Frame {
  x: number
  y: number
  width: number
  height: number
}

/** Closer than this (points) to the last point drawn, a vertex adds nothing a reader could see. */
const DRAWN_VERTEX_SPACING = 0.35
const KM_PER_DEGREE = 111.32

/**
 * Longitude and latitude onto a panel: an equirectangular projection at the extent's middle latitude,
 * the extent grown to the panel's proportions and centred in it.
 */
function projection(extent: Extent, frame: Frame) {
  const cos = Math.cos((((extent[1] + extent[3]) / 2) * Math.PI) / 180)
  const width = Math.max((extent[2] - extent[0]) * cos, 1e-9)
  const height = Math.max(extent[3] - extent[1], 1e-9)
  const scale = Math.min(frame.width / width, frame.height / height)
  const centreX = ((extent[0] + extent[2]) / 2) * cos
  const centreY = (extent[1] + extent[3]) / 2
  return {
    /** Points per degree of latitude. */
    scale,
    at([lon, lat]: LonLat): [number, number] {
      return [
        frame.x + frame.width / 2 + (lon * cos - centreX) * scale,
        frame.y + frame.height / 2 - (lat - centreY) * scale,
      ]
    },
  }
}

function extentOf(polygons: readonly PolygonRings[]): Extent {
  let [west, south, east, north] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const rings of polygons)
    for (const [lon, lat] of rings[0] ?? []) {
      west = Math.min(west, lon)
      south = Math.min(south, lat)
      east = Math.max(east, lon)
      north = Math.max(north, lat)
    }
  const padLon = (east - west) * 0.04
  const padLat = (north - south) * 0.04
  return [west - padLon, south - padLat, east + padLon, north + padLat]
}

function tracePolygons(
  doc: PDFKit.PDFDocument,
  polygons: readonly PolygonRings[],
  at: (position: LonLat) => [number, number],
) {
  for (const rings of polygons)
    for (const ring of rings) {
      let last: [number, number] | undefined
      ring.forEach((position, index) => {
        const point = at(position)
        if (index === 0) doc.moveTo(...point)
        else if (
          index === ring.length - 1 ||
          Math.hypot(point[0] - (last as [number, number])[0], point[1] - (last as [number, number])[1]) >=
            DRAWN_VERTEX_SPACING
        )
          doc.lineTo(...point)
        else return
        last = point
      })
      doc.closePath()
    }
}

function drawLand(doc: PDFKit.PDFDocument, map: LocatorMap, at: (position: LonLat) => [number, number]) {
  tracePolygons(doc, map.outlines, at)
  doc.lineWidth(0.4).fillAndStroke(COLOUR.land, COLOUR.landLine)
}

function panel(doc: PDFKit.PDFDocument, frame: Frame, draw: () => void) {
  doc.save()
  doc.rect(frame.x, frame.y, frame.width, frame.height).clip()
  doc.rect(frame.x, frame.y, frame.width, frame.height).fill('#ffffff')
  draw()
  doc.restore()
  doc.lineWidth(0.5).rect(frame.x, frame.y, frame.width, frame.height).stroke(COLOUR.rule)
}

function dot(doc: PDFKit.PDFDocument, [x, y]: [number, number], radius: number, colour: string) {
  doc.circle(x, y, radius).lineWidth(0.5).fillAndStroke(colour, '#ffffff')
}

function requestedMark(doc: PDFKit.PDFDocument, [x, y]: [number, number]) {
  doc.circle(x, y, 3.2).lineWidth(1.2).stroke(COLOUR.point)
  doc.circle(x, y, 1).fill(COLOUR.point)
}

function overview(doc: PDFKit.PDFDocument, map: LocatorMap, frame: Frame) {
  const { at } = projection(extentOf(map.outlines), frame)
  panel(doc, frame, () => {
    drawLand(doc, map, at)
    const [x1, y1] = at([map.detail[0], map.detail[3]])
    const [x2, y2] = at([map.detail[2], map.detail[1]])
    // A close-up too small to see as a box is marked as a point inside a ring.
    if (x2 - x1 < 5 || y2 - y1 < 5) {
      const centre: [number, number] = [(x1 + x2) / 2, (y1 + y2) / 2]
      doc.circle(centre[0], centre[1], 4).lineWidth(1).stroke(COLOUR.point)
      doc.circle(centre[0], centre[1], 1.3).fill(COLOUR.point)
    } else
      doc
        .lineWidth(1)
        .rect(x1, y1, x2 - x1, y2 - y1)
        .stroke(COLOUR.point)
  })
}

function detail(doc: PDFKit.PDFDocument, map: LocatorMap, frame: Frame) {
  const { at, scale } = projection(map.detail, frame)
  panel(doc, frame, () => {
    drawLand(doc, map, at)
    if (map.stand) {
      tracePolygons(doc, map.stand, at)
      doc.lineWidth(0.9).fillAndStroke(COLOUR.standFill, COLOUR.stand, 'even-odd')
    }
    for (const site of map.sites) dot(doc, at(site), 2, COLOUR.site)
    if (map.requested) requestedMark(doc, at(map.requested))
    // The scale bar, bottom left.
    const length = (map.scale.km / KM_PER_DEGREE) * scale
    const x = frame.x + 6
    const y = frame.y + frame.height - 7
    doc.rect(x - 2, y - 10, length + 4 + doc.fontSize(SIZE.small - 1).widthOfString(map.scale.label) + 4, 13)
    doc.fillOpacity(0.8).fill('#ffffff').fillOpacity(1)
    doc
      .lineWidth(1.2)
      .moveTo(x, y)
      .lineTo(x + length, y)
      .stroke(COLOUR.text)
    doc
      .lineWidth(0.8)
      .moveTo(x, y - 3)
      .lineTo(x, y)
      .moveTo(x + length, y - 3)
      .lineTo(x + length, y)
      .stroke()
    doc
      .fillColor(COLOUR.text)
      .fontSize(SIZE.small - 1)
      .text(map.scale.label, x + length + 3, y - 7, { lineBreak: false })
  })
}

/** Draws the map in `frame` (the legend takes its last lines); returns the height used. */
export function drawLocatorMap(doc: PDFKit.PDFDocument, map: LocatorMap, frame: Frame): number {
  doc
    .font('bold')
    .fontSize(SIZE.body)
    .fillColor(COLOUR.text)
    .text(map.title, frame.x, frame.y, { lineBreak: false })
  const top = frame.y + 13
  const legendHeight = 24
  const height = frame.height - 13 - legendHeight
  const overviewWidth = Math.round(frame.width * 0.42)
  overview(doc, map, { x: frame.x, y: top, width: overviewWidth, height })
  detail(doc, map, { x: frame.x + overviewWidth + 6, y: top, width: frame.width - overviewWidth - 6, height })
  // The legend: two lines under the panels.
  doc.font('regular').fontSize(SIZE.small).fillColor(COLOUR.text)
  const entries: (readonly [string, (x: number, y: number) => unknown])[] = [
    ...(map.requested
      ? [[map.legend.requested, (x: number, y: number) => requestedMark(doc, [x, y])] as const]
      : []),
    [map.legend.site, (x, y) => dot(doc, [x, y], 2, COLOUR.site)],
    ...(map.stand
      ? [
          [
            map.legend.stand,
            (x: number, y: number) =>
              doc
                .rect(x - 3.5, y - 3, 7, 6)
                .lineWidth(0.9)
                .fillAndStroke(COLOUR.standFill, COLOUR.stand),
          ] as const,
        ]
      : []),
    [
      map.legend.detail,
      (x, y) =>
        doc
          .rect(x - 3.5, y - 3, 7, 6)
          .lineWidth(1)
          .stroke(COLOUR.point),
    ],
  ]
  let x = frame.x + 4
  let y = top + height + 8
  for (const [label, mark] of entries) {
    const width = 12 + doc.widthOfString(label) + 10
    if (x + width > frame.x + frame.width) {
      x = frame.x + 4
      y += 11
    }
    mark(x, y)
    doc.fillColor(COLOUR.text).text(label, x + 7, y - 4, { lineBreak: false })
    x += width
  }
  return frame.height
}
