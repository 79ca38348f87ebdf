import type { Feature, FeatureCollection, MultiPolygon, Polygon } from 'geojson'

export const COVERAGE_REGION = 'pnw'

export interface CoverageProperties {
  region: typeof COVERAGE_REGION
  name: string
  /** `land`: a Census state shape; `water`: inland marine water added on top of it. */
  kind: 'land' | 'water'
  source: string
}

export type CoverageFeature = Feature<Polygon | MultiPolygon, CoverageProperties>
export type CoverageCollection = FeatureCollection<Polygon | MultiPolygon, CoverageProperties>
