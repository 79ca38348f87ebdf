import type { Polygon } from 'geojson'
import { type BBox, bboxContains, bboxOfPositions } from '../geo/bbox.ts'
import { createPointInPolygonsTest, type PointTest } from '../geo/polygon-index.ts'
import { approxKmToRingEdge } from '../geo/ring.ts'
import { type ForestRegion, forestRegions } from './reference-data.ts'

interface IndexedRegion {
  region: ForestRegion
  bbox: BBox
  contains: PointTest
}

const indexedRegions: readonly IndexedRegion[] = forestRegions.map((region) => {
  const polygon: Polygon = { type: 'Polygon', coordinates: [region.polygon] }
  return { region, bbox: bboxOfPositions(region.polygon), contains: createPointInPolygonsTest([polygon]) }
})

/** Union bbox of all forest regions: the extent of the site grid. */
export const forestRegionsBBox: BBox = bboxOfPositions(forestRegions.flatMap((region) => region.polygon))

/**
 * The forest region holding the point, or undefined. Regions overlap; a point in several goes to the
 * one it lies deepest inside (largest distance to that region's edge), which splits overlaps down the middle.
 */
export function forestRegionAt(latitude: number, longitude: number): ForestRegion | undefined {
  const matches = indexedRegions.filter(
    ({ bbox, contains }) => bboxContains(bbox, latitude, longitude) && contains(latitude, longitude),
  )
  if (matches.length <= 1) return matches[0]?.region
  let chosen: ForestRegion | undefined
  let chosenDepth = Number.NEGATIVE_INFINITY
  for (const { region } of matches) {
    const depth = approxKmToRingEdge(region.polygon, latitude, longitude)
    if (depth > chosenDepth) {
      chosen = region
      chosenDepth = depth
    }
  }
  return chosen
}

/** True when any forest region polygon contains the point. */
export function isInForestRegion(latitude: number, longitude: number): boolean {
  return indexedRegions.some(
    ({ bbox, contains }) => bboxContains(bbox, latitude, longitude) && contains(latitude, longitude),
  )
}
