/** Rough geographic helpers for the synthetic terrain: planar km coordinates, crest and coast lines. */

export const KM_PER_DEGREE = 111.195
const RADIANS_PER_DEGREE = Math.PI / 180
const MID_LATITUDE_COS = Math.cos(45.5 * RADIANS_PER_DEGREE)

export function clamp(value: number, low = 0, high = 1): number {
  return Math.min(high, Math.max(low, value))
}

/**
 * Maps any real t smoothly into (0, 1): identity on [edge, 1 − edge], exponential tails outside,
 * so values never pile up exactly at a range limit.
 */
export function softUnit(t: number, edge = 0.1): number {
  if (t < edge) return edge * Math.exp((t - edge) / edge)
  if (t > 1 - edge) return 1 - edge * Math.exp((1 - edge - t) / edge)
  return t
}

/** Equidistant-ish planar km coordinates for noise lookups (one fixed scale for the whole map). */
export function toPlanarKm(latitude: number, longitude: number): { x: number; y: number } {
  return { x: longitude * KM_PER_DEGREE * MID_LATITUDE_COS, y: latitude * KM_PER_DEGREE }
}

/** Short-range planar distance in km (equirectangular); good to < 1 % over a few hundred km. */
export function planarKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const cosLat = Math.cos(((lat1 + lat2) / 2) * RADIANS_PER_DEGREE)
  const dx = (lon2 - lon1) * cosLat * KM_PER_DEGREE
  const dy = (lat2 - lat1) * KM_PER_DEGREE
  return Math.hypot(dx, dy)
}

/** Piecewise-linear lookup in a table of [x, y] pairs sorted by x; flat beyond the ends. */
export function interpolate(table: readonly (readonly [number, number])[], x: number): number {
  const first = table[0]
  const last = table[table.length - 1]
  if (!first || !last) throw new Error('empty interpolation table')
  if (x <= first[0]) return first[1]
  if (x >= last[0]) return last[1]
  for (let i = 1; i < table.length; i++) {
    const [x1, y1] = table[i - 1] as readonly [number, number]
    const [x2, y2] = table[i] as readonly [number, number]
    if (x <= x2) return y1 + ((y2 - y1) * (x - x1)) / (x2 - x1)
  }
  return last[1]
}

/** Cascade crest longitude by latitude (passes and volcanoes from the Siskiyous to the Canadian line). */
const CASCADE_CREST_LON: readonly (readonly [number, number])[] = [
  [42.0, -122.25],
  [42.9, -122.1],
  [43.5, -122.0],
  [44.4, -121.85],
  [45.0, -121.75],
  [45.4, -121.7],
  [45.7, -121.85],
  [46.2, -121.5],
  [46.8, -121.45],
  [47.4, -121.4],
  [47.75, -121.1],
  [48.5, -120.9],
  [49.0, -120.9],
]

/** Outer Pacific shoreline longitude by latitude. */
const PACIFIC_COAST_LON: readonly (readonly [number, number])[] = [
  [42.0, -124.22],
  [42.4, -124.42],
  [42.84, -124.56],
  [43.3, -124.4],
  [43.7, -124.22],
  [44.0, -124.12],
  [44.6, -124.07],
  [45.0, -124.0],
  [45.5, -123.96],
  [45.9, -123.96],
  [46.2, -124.02],
  [46.5, -124.06],
  [47.0, -124.17],
  [47.5, -124.35],
  [47.9, -124.62],
  [48.2, -124.68],
  [48.4, -124.72],
]

function kmEastOf(lineLongitude: number, latitude: number, longitude: number): number {
  return (longitude - lineLongitude) * Math.cos(latitude * RADIANS_PER_DEGREE) * KM_PER_DEGREE
}

/** Signed km east of the Cascade crest (negative on the west side). */
export function kmEastOfCascadeCrest(latitude: number, longitude: number): number {
  return kmEastOf(interpolate(CASCADE_CREST_LON, latitude), latitude, longitude)
}

/** Km inland from the outer Pacific coast (east of the shoreline line). */
export function kmInlandFromPacific(latitude: number, longitude: number): number {
  return kmEastOf(interpolate(PACIFIC_COAST_LON, latitude), latitude, longitude)
}

/** Gaussian bump: 1 at the centre, falling off over `radiusKm`. */
export function bump(
  latitude: number,
  longitude: number,
  centre: readonly [number, number],
  radiusKm: number,
): number {
  const distance = planarKm(latitude, longitude, centre[0], centre[1])
  return Math.exp(-((distance / radiusKm) ** 2))
}
