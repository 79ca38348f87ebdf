import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon'
import type { MultiPolygon, Polygon } from 'geojson'
import { type BBox, bboxContains, bboxOfGeometry } from './bbox.ts'

export type PointTest = (latitude: number, longitude: number) => boolean

/** Point-in-any-polygon test with a bbox pre-check per shape (most points are rejected without a ring walk). */
export function createPointInPolygonsTest(geometries: readonly (Polygon | MultiPolygon)[]): PointTest {
  const shapes = geometries.flatMap((geometry) =>
    (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates).map((rings) => {
      const polygon: Polygon = { type: 'Polygon', coordinates: rings }
      return { polygon, bbox: bboxOfGeometry(polygon) as BBox }
    }),
  )
  return (latitude, longitude) => {
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return false
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
}
