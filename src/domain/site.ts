/**
 * Site attributes of the synthetic forest-site data set. Units are in the names; the data
 * dictionary in docs/data-dictionary.md explains each one.
 */
export const FOREST_ZONES = [
  'coast',
  'westside_lowland',
  'westside_cascades',
  'subalpine',
  'eastside_cascades',
  'klamath',
  'blue_mountains',
  'okanogan_selkirk',
] as const
export type ForestZone = (typeof FOREST_ZONES)[number]

export interface SiteAttributes {
  /** Ecological zone, as used in species.csv `range_zones`. */
  zone: ForestZone
  elevationM: number
  /** 0–60 degrees. */
  slopeDeg: number
  /** 0–360 degrees clockwise from north; downslope direction. */
  aspectDeg: number
  /** 0 (cool, north-facing) – 1 (hot, steep south-west facing); McCune & Keon style folded aspect. */
  heatLoadIndex: number
  soilDepthCm: number
  /** Share of coarse fragments / surface rock, 0–100 %. */
  rockFractionPct: number
  /** Cover of competing grass, forbs and shrubs at planting, 0–100 %. */
  vegetationCoverPct: number
  annualPrecipMm: number
  /** Climatic summer water deficit (potential minus actual evapotranspiration), mm. */
  summerWaterDeficitMm: number
  /** Days in May–September with a minimum temperature at or below −2 °C. */
  growingSeasonFrostDays: number
  /** 0 (none) – 1 (severe) index of browse, clipping and seed predation (deer, elk, mountain beaver, gophers, rodents). */
  browsePressureIndex: number
}

/** The measured (numeric) site attributes, in data-dictionary order. */
export const NUMERIC_SITE_ATTRIBUTES = [
  'elevationM',
  'slopeDeg',
  'aspectDeg',
  'heatLoadIndex',
  'soilDepthCm',
  'rockFractionPct',
  'vegetationCoverPct',
  'annualPrecipMm',
  'summerWaterDeficitMm',
  'growingSeasonFrostDays',
  'browsePressureIndex',
] as const satisfies readonly (keyof SiteAttributes)[]

export interface Site extends SiteAttributes {
  id: number
  latitude: number
  longitude: number
  /** Forest region id from seed/data/forest_regions.json. */
  regionId: string
}
