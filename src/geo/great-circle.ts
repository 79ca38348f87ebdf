/** Sphere radius used by PostgreSQL earthdistance's earth(), so seed checks and SQL agree. */
export const EARTH_RADIUS_KM = 6378.168

const RADIANS_PER_DEGREE = Math.PI / 180

/** Haversine great-circle distance in km between two WGS84 points given in decimal degrees. */
export function greatCircleKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RADIANS_PER_DEGREE
  const dLon = (lon2 - lon1) * RADIANS_PER_DEGREE
  const a =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(lat1 * RADIANS_PER_DEGREE) * Math.cos(lat2 * RADIANS_PER_DEGREE) * Math.sin(dLon / 2) ** 2
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)))
}
