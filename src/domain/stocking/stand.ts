import { area } from '@turf/area'
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon'
import { kinks } from '@turf/kinks'
import type { MultiPolygon, Polygon, Position } from 'geojson'
import { type BBox, bboxContains, bboxOfGeometry } from '../../geo/bbox.ts'
import { ringSignedArea } from '../../geo/ring.ts'
import type { Coordinates } from '../../types.ts'
import { invalidField } from '../errors.ts'
import type { StandInput } from '../input-rules.ts'

/** A plan's stand may cover at most this many hectares and hold at most this many positions. */
export const STAND_MAX_HECTARES = 20_000
export const STAND_MAX_VERTICES = 10_000

/** A stand whose rings have been checked: closed, four positions or more, no crossings, within the limits. */
export interface Stand {
  geometry: Polygon | MultiPolygon
  areaHa: number
  bbox: BBox
  /** The area-weighted centre of its outer rings (planar, fine at a stand's size). */
  centroid: Coordinates
  contains(point: Coordinates): boolean
}

/**
 * The checks of a stand beyond its JSON shape, with the path of the first offence (under `field`):
 * each ring closed and of four positions or more, no ring crossing itself or another, at most
 * STAND_MAX_VERTICES positions and STAND_MAX_HECTARES.
 */
export function checkedStand(input: StandInput, field = 'stand'): Stand {
  const geometry = input.type === 'Feature' ? input.geometry : input
  const base = input.type === 'Feature' ? `${field}.geometry.coordinates` : `${field}.coordinates`
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
  const pathOf = (p: number, r?: number) =>
    geometry.type === 'Polygon'
      ? `${base}${r === undefined ? '' : `[${r}]`}`
      : `${base}[${p}]${r === undefined ? '' : `[${r}]`}`

  let vertices = 0
  for (const rings of polygons) for (const ring of rings) vertices += ring.length
  if (vertices > STAND_MAX_VERTICES)
    throw invalidField(field, `has ${vertices} positions; a stand may have at most ${STAND_MAX_VERTICES}`)

  polygons.forEach((rings, p) => {
    rings.forEach((ring, r) => {
      if (ring.length < 4)
        throw invalidField(pathOf(p, r), 'must hold at least four positions (a closed ring)')
      if (!samePosition(ring[0] as Position, ring[ring.length - 1] as Position))
        throw invalidField(pathOf(p, r), 'is not closed: its last position must repeat its first')
      const crossing = kinks({ type: 'LineString', coordinates: ring }).features[0]
      if (crossing)
        throw invalidField(
          pathOf(p, r),
          `intersects itself at ${positionText(crossing.geometry.coordinates)}`,
        )
      if (ringSignedArea(ring) === 0) throw invalidField(pathOf(p, r), 'encloses no area')
    })
    // Rings that do not cross: a hole lies inside its exterior when each of its positions does.
    const exterior: Polygon = { type: 'Polygon', coordinates: [rings[0] as Position[]] }
    rings.forEach((ring, r) => {
      if (r > 0 && !ring.every((position) => booleanPointInPolygon(position, exterior)))
        throw invalidField(
          pathOf(p, r),
          'is a hole that does not lie inside its exterior ring (the first ring)',
        )
    })
    if (rings.length > 1) {
      const crossing = kinks({ type: 'Polygon', coordinates: rings }).features[0]
      if (crossing)
        throw invalidField(
          pathOf(p),
          `has rings that cross at ${positionText(crossing.geometry.coordinates)}`,
        )
    }
  })

  const areaHa = area(geometry) / 10_000
  if (areaHa > STAND_MAX_HECTARES)
    throw invalidField(
      field,
      `covers ${Math.round(areaHa)} ha; a stand may cover at most ${STAND_MAX_HECTARES} ha`,
    )

  const parts = polygons.map((rings) => ({ type: 'Polygon', coordinates: rings }) as Polygon)
  const bbox = bboxOfGeometry(geometry)
  return {
    geometry,
    areaHa,
    bbox,
    centroid: centroidOf(polygons.map((rings) => rings[0] as Position[])),
    contains: (point) =>
      bboxContains(bbox, point.latitude, point.longitude) &&
      parts.some((part) => booleanPointInPolygon([point.longitude, point.latitude], part)),
  }
}

function samePosition(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1]
}

function positionText(position: Position): string {
  return `[${position.map((value) => Math.round(value * 1e6) / 1e6).join(', ')}]`
}

/** The centre of a stand's outer rings, whether or not it passes the checks (for listing it). */
export function standCentroid(geometry: Polygon | MultiPolygon): Coordinates {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
  const outer = polygons.map((rings) => rings[0] ?? []).filter((ring) => ring.length > 0)
  const centre = centroidOf(outer)
  if (Number.isFinite(centre.latitude) && Number.isFinite(centre.longitude)) return centre
  // Rings with no area: the middle of their positions' box.
  const [west, south, east, north] = bboxOfGeometry(geometry)
  return { latitude: (south + north) / 2, longitude: (west + east) / 2 }
}

/** The area-weighted centroid of outer rings on the lon/lat plane (shoelace). */
function centroidOf(rings: readonly Position[][]): Coordinates {
  let totalArea = 0
  let lon = 0
  let lat = 0
  for (const ring of rings) {
    let twiceArea = 0
    let cx = 0
    let cy = 0
    for (let i = 0; i + 1 < ring.length; i++) {
      const [x1 = 0, y1 = 0] = ring[i] as Position
      const [x2 = 0, y2 = 0] = ring[i + 1] as Position
      const cross = x1 * y2 - x2 * y1
      twiceArea += cross
      cx += (x1 + x2) * cross
      cy += (y1 + y2) * cross
    }
    const ringArea = twiceArea / 2
    if (ringArea === 0) continue
    // Each ring's centre weighted by its size, whatever its winding.
    const weight = Math.abs(ringArea)
    lon += (cx / 6 / ringArea) * weight
    lat += (cy / 6 / ringArea) * weight
    totalArea += weight
  }
  return { latitude: lat / totalArea, longitude: lon / totalArea }
}
