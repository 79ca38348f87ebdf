import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon'
import { pointToPolygonDistance } from '@turf/point-to-polygon-distance'
import type { Polygon } from 'geojson'
import { type BBox, bboxContains, bboxOfPositions, expandBBoxKm } from '../geo/bbox.ts'
import { greatCircleKm } from '../geo/great-circle.ts'
import { approxKmToRingEdge } from '../geo/ring.ts'
import { marineWaters, type NamedPolygon, noDataZones } from './reference-data.ts'

/** Sites keep this much more than the search radius from every zone, so rounding can never let one in. */
export const ZONE_SAFETY_MARGIN_KM = 0.5

export interface CircleZone {
  kind: 'urban'
  name: string
  latitude: number
  longitude: number
  radiusKm: number
}

export interface PolygonZone {
  kind: 'agricultural' | 'inland_water' | 'marine_water'
  name: string
  polygon: Polygon
  bbox: BBox
}

export type NoDataZone = CircleZone | PolygonZone

function polygonZone(kind: PolygonZone['kind'], zone: NamedPolygon): PolygonZone {
  return {
    kind,
    name: zone.name,
    polygon: { type: 'Polygon', coordinates: [zone.polygon] },
    bbox: bboxOfPositions(zone.polygon),
  }
}

/** Urban circles, farm valleys and inland water from no_data_zones.json, plus the marine waters added to coverage. */
export const NO_DATA_ZONES: readonly NoDataZone[] = [
  ...noDataZones.urban_areas.map(
    (area): CircleZone => ({
      kind: 'urban',
      name: area.name,
      latitude: area.lat,
      longitude: area.lon,
      radiusKm: area.radius_km,
    }),
  ),
  ...noDataZones.agricultural_regions.map((zone) => polygonZone('agricultural', zone)),
  ...noDataZones.inland_water.map((zone) => polygonZone('inland_water', zone)),
  ...marineWaters.map((zone) => polygonZone('marine_water', zone)),
]

/** Km from the point to the zone's edge; negative inside the zone. Polygons use turf's geodesic distance. */
export function kmOutsideZone(zone: NoDataZone, latitude: number, longitude: number): number {
  if (zone.kind === 'urban')
    return greatCircleKm(latitude, longitude, zone.latitude, zone.longitude) - zone.radiusKm
  return pointToPolygonDistance([longitude, latitude], zone.polygon, { units: 'kilometers' })
}

/** Planar edge distances within this band of the clearance are settled by turf's exact geodesic distance. */
const PLANAR_UNCERTAINTY_KM = 1.5

function isClearOfPolygon(
  zone: PolygonZone,
  nearBox: BBox,
  clearanceKm: number,
  latitude: number,
  longitude: number,
) {
  if (!bboxContains(nearBox, latitude, longitude)) return true
  if (booleanPointInPolygon([longitude, latitude], zone.polygon)) return false
  const approxKm = approxKmToRingEdge(zone.polygon.coordinates[0] ?? [], latitude, longitude)
  if (approxKm > clearanceKm + PLANAR_UNCERTAINTY_KM) return true
  if (approxKm < clearanceKm - PLANAR_UNCERTAINTY_KM) return false
  return kmOutsideZone(zone, latitude, longitude) > clearanceKm
}

/**
 * Predicate: is the point more than `clearanceKm` outside every zone? Cheap bbox and planar checks
 * settle most points; only those near the limit pay for turf's exact distance.
 */
export function createZoneClearanceTest(
  clearanceKm: number,
): (latitude: number, longitude: number) => boolean {
  const circles = NO_DATA_ZONES.filter((zone): zone is CircleZone => zone.kind === 'urban').map((zone) => ({
    zone,
    nearBox: expandBBoxKm(
      [zone.longitude, zone.latitude, zone.longitude, zone.latitude],
      zone.radiusKm + clearanceKm,
    ),
  }))
  const polygons = NO_DATA_ZONES.filter((zone): zone is PolygonZone => zone.kind !== 'urban').map((zone) => ({
    zone,
    nearBox: expandBBoxKm(zone.bbox, clearanceKm),
  }))
  return (latitude, longitude) =>
    circles.every(
      ({ zone, nearBox }) =>
        !bboxContains(nearBox, latitude, longitude) || kmOutsideZone(zone, latitude, longitude) > clearanceKm,
    ) &&
    polygons.every(({ zone, nearBox }) => isClearOfPolygon(zone, nearBox, clearanceKm, latitude, longitude))
}
