import { readFileSync } from 'node:fs'
import { projectFile } from '../project-files.ts'
import type { UsState } from '../types.ts'
import { COVERAGE_REGION, type CoverageCollection } from './coverage-types.ts'
import { createPointInPolygonsTest } from './polygon-index.ts'

export { COVERAGE_REGION }

const COVERAGE_FILE = projectFile('data/coverage-pnw.geojson')

// Built once by seed/build-coverage.ts and committed, so no topojson work happens at runtime.
const coverage = JSON.parse(readFileSync(COVERAGE_FILE, 'utf8')) as CoverageCollection

const isInsideAnyShape = createPointInPolygonsTest(coverage.features.map((item) => item.geometry))
const isInsideLandShape = createPointInPolygonsTest(
  coverage.features.filter((item) => item.properties.kind === 'land').map((item) => item.geometry),
)

const STATE_OF_LAND_SHAPE: Readonly<Record<string, UsState>> = { Oregon: 'OR', Washington: 'WA' }

const stateTests = Object.entries(STATE_OF_LAND_SHAPE).map(([name, state]) => {
  const shape = coverage.features.find(
    (item) => item.properties.kind === 'land' && item.properties.name === name,
  )
  if (!shape) throw new Error(`the coverage file has no land shape named ${name}`)
  return { state, contains: createPointInPolygonsTest([shape.geometry]) }
})

/** The state whose Census land shape holds the point; null off both (water, or outside the region). */
export function stateAt(latitude: number, longitude: number): UsState | null {
  return stateTests.find((test) => test.contains(latitude, longitude))?.state ?? null
}

/** The `pnw` coverage region as an RFC 7946 FeatureCollection (Oregon, Washington and added inland waters). */
export function coverageGeoJson(): CoverageCollection {
  return coverage
}

/** True when the point lies in Oregon/Washington or their inland marine waters. */
export function isInCoverage(latitude: number, longitude: number): boolean {
  return isInsideAnyShape(latitude, longitude)
}

/** True when the point lies on the Oregon/Washington Census land shapes (no added water). */
export function isOnCoverageLand(latitude: number, longitude: number): boolean {
  return isInsideLandShape(latitude, longitude)
}
