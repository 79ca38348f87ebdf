import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { MultiPolygon, Polygon, Position } from 'geojson'
import { feature } from 'topojson-client'
import type { GeometryCollection, Topology } from 'topojson-specification'
import { COVERAGE_REGION, type CoverageCollection, type CoverageFeature } from '../geo/coverage-types.ts'
import { orientRing, roundRing } from '../geo/ring.ts'
import { CENSUS_MISSING_WATER_NAMES, marineWaters, type NamedPolygon, noDataZones } from './reference-data.ts'

const COORDINATE_DECIMALS = 5
const STATE_FIPS = { '41': 'Oregon', '53': 'Washington' } as const
const CENSUS_SOURCE =
  'U.S. Census Bureau cartographic boundary (shoreline-clipped) state shape via the us-atlas 3.0.1 package, states-10m.json'

function loadStateShapes(): Map<string, Polygon | MultiPolygon> {
  const path = createRequire(import.meta.url).resolve('us-atlas/states-10m.json')
  const topology = JSON.parse(readFileSync(path, 'utf8')) as Topology<{ states: GeometryCollection }>
  const states = feature(topology, topology.objects.states)
  const shapes = new Map<string, Polygon | MultiPolygon>()
  for (const state of states.features) {
    const geometry = state.geometry
    if (state.id !== undefined && (geometry?.type === 'Polygon' || geometry?.type === 'MultiPolygon')) {
      shapes.set(String(state.id), geometry)
    }
  }
  return shapes
}

function normalizePolygon(rings: readonly Position[][]): Position[][] {
  return rings.map((ring, index) => orientRing(roundRing(ring, COORDINATE_DECIMALS), index === 0))
}

function normalizeGeometry(geometry: Polygon | MultiPolygon): Polygon | MultiPolygon {
  if (geometry.type === 'Polygon')
    return { type: 'Polygon', coordinates: normalizePolygon(geometry.coordinates) }
  return { type: 'MultiPolygon', coordinates: geometry.coordinates.map(normalizePolygon) }
}

function waterFeature(water: NamedPolygon, origin: string): CoverageFeature {
  return {
    type: 'Feature',
    properties: {
      region: COVERAGE_REGION,
      name: water.name,
      kind: 'water',
      source: `${origin}: ${water.source}`,
    },
    geometry: normalizeGeometry({ type: 'Polygon', coordinates: [water.polygon] }),
  }
}

/**
 * Coverage region `pnw`: the Oregon and Washington Census shapes plus the inland marine waters they leave
 * out. Lakes (Washington, Roosevelt, Chelan, Upper Klamath) are already inside the Census shapes.
 */
export function buildCoverage(): CoverageCollection {
  const shapes = loadStateShapes()
  const land = Object.entries(STATE_FIPS).map(([fips, name]): CoverageFeature => {
    const geometry = shapes.get(fips)
    if (!geometry) throw new Error(`us-atlas has no state with FIPS ${fips}`)
    return {
      type: 'Feature',
      properties: { region: COVERAGE_REGION, name, kind: 'land', source: `${CENSUS_SOURCE} (FIPS ${fips})` },
      geometry: normalizeGeometry(geometry),
    }
  })
  const sharedWater = CENSUS_MISSING_WATER_NAMES.map((name) => {
    const water = noDataZones.inland_water.find((candidate) => candidate.name === name)
    if (!water) throw new Error(`no_data_zones.json has no inland_water named ${name}`)
    return waterFeature(water, 'data/no_data_zones.json inland_water')
  })
  const drawnWater = marineWaters.map((water) => waterFeature(water, 'data/marine_waters.json'))
  return { type: 'FeatureCollection', features: [...land, ...sharedWater, ...drawnWater] }
}

/** Serialized form of the committed file: one feature per line keeps diffs readable. */
export function serializeCoverage(collection: CoverageCollection): string {
  const features = collection.features.map((item) => JSON.stringify(item)).join(',\n')
  return `{"type":"FeatureCollection","features":[\n${features}\n]}\n`
}
