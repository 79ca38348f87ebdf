import type { MultiPolygon, Polygon, Position } from 'geojson'

/** [minLon, minLat, maxLon, maxLat], as in GeoJSON. */
export type BBox = [number, number, number, number]

export function bboxOfPositions(positions: readonly Position[]): BBox {
  const box: BBox = [
    Number.POSITIVE_INFINITY,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ]
  for (const [lon = 0, lat = 0] of positions) {
    if (lon < box[0]) box[0] = lon
    if (lat < box[1]) box[1] = lat
    if (lon > box[2]) box[2] = lon
    if (lat > box[3]) box[3] = lat
  }
  return box
}

export function bboxOfGeometry(geometry: Polygon | MultiPolygon): BBox {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
  return bboxOfPositions(polygons.flatMap((rings) => rings[0] ?? []))
}

export function bboxContains(box: BBox, latitude: number, longitude: number): boolean {
  return longitude >= box[0] && longitude <= box[2] && latitude >= box[1] && latitude <= box[3]
}

/**
 * Grows a bbox by a distance in km. Degrees are taken slightly short (110 km, poleward edge) so the
 * result always contains every point within `km` of the box on any common Earth radius.
 */
export function expandBBoxKm(box: BBox, km: number): BBox {
  const dLat = km / 110
  const maxAbsLat = Math.min(89, Math.max(Math.abs(box[1]), Math.abs(box[3])))
  const dLon = km / (110 * Math.cos((maxAbsLat * Math.PI) / 180))
  return [box[0] - dLon, box[1] - dLat, box[2] + dLon, box[3] + dLat]
}
