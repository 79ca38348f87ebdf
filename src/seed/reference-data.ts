import { readFileSync } from 'node:fs'
import type { Position } from 'geojson'
import { projectFile } from '../project-files.ts'

export interface ForestRegion {
  id: string
  name: string
  polygon: Position[]
  elev_min_m: number
  elev_max_m: number
  precip_min_mm: number
  precip_max_mm: number
  dominant_species: string[]
  summer_drought: 'low' | 'moderate' | 'high'
  notes: string
}

export interface UrbanArea {
  name: string
  lat: number
  lon: number
  radius_km: number
  tier: 'major' | 'secondary'
}

export interface NamedPolygon {
  name: string
  polygon: Position[]
  notes?: string
  source: string
}

interface NoDataZonesFile {
  urban_areas: UrbanArea[]
  agricultural_regions: NamedPolygon[]
  inland_water: NamedPolygon[]
}

function readSeedJson<T>(fileName: string): T {
  return JSON.parse(readFileSync(projectFile(`data/${fileName}`), 'utf8')) as T
}

export const forestRegions: readonly ForestRegion[] = readSeedJson<{ regions: ForestRegion[] }>(
  'forest_regions.json',
).regions

export const noDataZones: NoDataZonesFile = readSeedJson<NoDataZonesFile>('no_data_zones.json')

/** Willapa Bay and Grays Harbor: marine water added to coverage (see docs/data-dictionary.md). */
export const marineWaters: readonly NamedPolygon[] = readSeedJson<{ marine_waters: NamedPolygon[] }>(
  'marine_waters.json',
).marine_waters

/** Inland water outlines from no_data_zones.json that the Census state shapes leave out (lakes are already inside). */
export const CENSUS_MISSING_WATER_NAMES = [
  'Puget Sound main basin',
  'South Puget Sound inlets',
  'Hood Canal',
  'Lower Columbia River estuary',
] as const
