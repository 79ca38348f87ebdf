import type { Position } from 'geojson'

/** Planar signed area in square degrees (shoelace); positive for counter-clockwise rings. */
export function ringSignedArea(ring: readonly Position[]): number {
  let twiceArea = 0
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1 = 0, y1 = 0] = ring[i] ?? []
    const [x2 = 0, y2 = 0] = ring[i + 1] ?? []
    twiceArea += x1 * y2 - x2 * y1
  }
  return twiceArea / 2
}

/** Returns the ring in the requested winding order (RFC 7946: exterior counter-clockwise, holes clockwise). */
export function orientRing(ring: readonly Position[], counterClockwise: boolean): Position[] {
  const isCounterClockwise = ringSignedArea(ring) > 0
  return isCounterClockwise === counterClockwise ? [...ring] : [...ring].reverse()
}

/** Rounds to the given decimals, drops repeated vertices and keeps the ring closed. */
export function roundRing(ring: readonly Position[], decimals: number): Position[] {
  const factor = 10 ** decimals
  const rounded: Position[] = []
  for (const [lon = 0, lat = 0] of ring) {
    const vertex = [Math.round(lon * factor) / factor, Math.round(lat * factor) / factor]
    const previous = rounded[rounded.length - 1]
    if (!previous || previous[0] !== vertex[0] || previous[1] !== vertex[1]) rounded.push(vertex)
  }
  const first = rounded[0]
  const last = rounded[rounded.length - 1]
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) rounded.push([...first])
  return rounded
}

const KM_PER_DEGREE = 111.195

/**
 * Km from the point to the nearest edge of a lon/lat ring on a local equirectangular plane. Accurate to
 * well under 1 km for nearby edges at mid latitudes; use an exact geodesic method where that matters.
 */
export function approxKmToRingEdge(ring: readonly Position[], latitude: number, longitude: number): number {
  const kmPerLon = Math.cos((latitude * Math.PI) / 180) * KM_PER_DEGREE
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i + 1 < ring.length; i++) {
    const [lonA = 0, latA = 0] = ring[i] ?? []
    const [lonB = 0, latB = 0] = ring[i + 1] ?? []
    const ax = (lonA - longitude) * kmPerLon
    const ay = (latA - latitude) * KM_PER_DEGREE
    const bx = (lonB - longitude) * kmPerLon
    const by = (latB - latitude) * KM_PER_DEGREE
    const dx = bx - ax
    const dy = by - ay
    const lengthSquared = dx * dx + dy * dy
    const t = lengthSquared === 0 ? 0 : Math.min(1, Math.max(0, -(ax * dx + ay * dy) / lengthSquared))
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy))
  }
  return best
}
