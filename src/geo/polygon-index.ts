import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon'
import type { MultiPolygon, Polygon } from 'geojson'
import { type BBox, bboxContains, bboxOfGeometry } from './bbox.ts'

export type PointTest = (latitude: number, longitude: number) => boolean

/** Side of the grid's square cells, degrees. */
const CELL_DEGREES = 0.05
/** How far a boundary segment's box is grown before it marks cells, so rounding cannot leave a touched cell unmarked. */
const MARGIN_DEGREES = 1e-9

const UNKNOWN = 0
const INSIDE = 1
const OUTSIDE = 2
/** A boundary passes through (or near) the cell: its points are tested exactly. */
const CROSSED = 3

/**
 * Point-in-any-polygon test over a grid of cells. Cells that a boundary segment may cross are tested
 * exactly, point by point (a bbox pre-check per shape, then the ring walk). Any other cell lies wholly on
 * one side of every boundary, so its centre's answer is every point's: it is worked out once, the first
 * time a point falls in the cell, and then answered from the grid.
 */
export function createPointInPolygonsTest(geometries: readonly (Polygon | MultiPolygon)[]): PointTest {
  const shapes = geometries.flatMap((geometry) =>
    (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates).map((rings) => {
      const polygon: Polygon = { type: 'Polygon', coordinates: rings }
      return { polygon, bbox: bboxOfGeometry(polygon) as BBox }
    }),
  )
  if (shapes.length === 0) return () => false
  const inAnyShape = (latitude: number, longitude: number): boolean => {
    for (const shape of shapes) {
      if (
        bboxContains(shape.bbox, latitude, longitude) &&
        booleanPointInPolygon([longitude, latitude], shape.polygon)
      ) {
        return true
      }
    }
    return false
  }

  const [west, south, east, north] = shapes.reduce<BBox>(
    (box, shape) => [
      Math.min(box[0], shape.bbox[0]),
      Math.min(box[1], shape.bbox[1]),
      Math.max(box[2], shape.bbox[2]),
      Math.max(box[3], shape.bbox[3]),
    ],
    [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY],
  )
  const columns = Math.floor((east - west) / CELL_DEGREES) + 1
  const rows = Math.floor((north - south) / CELL_DEGREES) + 1
  const column = (longitude: number) => Math.floor((longitude - west) / CELL_DEGREES)
  const row = (latitude: number) => Math.floor((latitude - south) / CELL_DEGREES)
  const cells = new Uint8Array(columns * rows)
  for (const { polygon } of shapes) {
    for (const ring of polygon.coordinates) {
      for (let i = 1; i < ring.length; i++) {
        const [lonA = 0, latA = 0] = ring[i - 1] ?? []
        const [lonB = 0, latB = 0] = ring[i] ?? []
        const firstColumn = Math.max(0, column(Math.min(lonA, lonB) - MARGIN_DEGREES))
        const lastColumn = Math.min(columns - 1, column(Math.max(lonA, lonB) + MARGIN_DEGREES))
        const firstRow = Math.max(0, row(Math.min(latA, latB) - MARGIN_DEGREES))
        const lastRow = Math.min(rows - 1, row(Math.max(latA, latB) + MARGIN_DEGREES))
        for (let r = firstRow; r <= lastRow; r++) {
          cells.fill(CROSSED, r * columns + firstColumn, r * columns + lastColumn + 1)
        }
      }
    }
  }

  return (latitude, longitude) => {
    if (!(latitude >= south && latitude <= north && longitude >= west && longitude <= east)) return false
    const r = row(latitude)
    const c = column(longitude)
    const index = r * columns + c
    const state = cells[index]
    if (state === INSIDE) return true
    if (state === OUTSIDE) return false
    if (state !== UNKNOWN) return inAnyShape(latitude, longitude)
    const inside = inAnyShape(south + (r + 0.5) * CELL_DEGREES, west + (c + 0.5) * CELL_DEGREES)
    cells[index] = inside ? INSIDE : OUTSIDE
    return inside
  }
}
