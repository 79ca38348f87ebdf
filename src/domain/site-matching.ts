import { COVERAGE_REGION, isInCoverage } from '../geo/coverage.ts'
import type { Coordinates, NearestSite } from '../types.ts'
import { apiError } from './errors.ts'
import type { MatchedSite } from './prediction-types.ts'

/** outside_coverage unless the point lies in Oregon, Washington or their inland marine waters. */
export function assertInCoverage(point: Coordinates): void {
  if (!isInCoverage(point.latitude, point.longitude)) {
    throw apiError('outside_coverage', undefined, {
      details: { suggestion: 'GET /v1/coverage returns the covered area as GeoJSON' },
    })
  }
}

/** The point with the data point that answers for it; no_nearby_data when none lies within the radius. */
export function matchedSite(point: Coordinates, nearest: NearestSite | null): MatchedSite {
  if (!nearest) throw apiError('no_nearby_data')
  return {
    latitude: point.latitude,
    longitude: point.longitude,
    matchedLatitude: nearest.site.latitude,
    matchedLongitude: nearest.site.longitude,
    matchDistanceKm: nearest.distanceKm,
    region: COVERAGE_REGION,
    attributes: nearest.site,
    dataVersion: nearest.dataVersion,
  }
}
