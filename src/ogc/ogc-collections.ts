import { CLIMATE_PERIODS, EMISSION_SCENARIOS } from '../domain/climate.ts'
import { COVERAGE_EXTENT } from '../domain/features/feature-collections.ts'
import { SPECIES } from '../domain/species.ts'
import { PLANTING_METHODS, type Site } from '../types.ts'
import { CRS84, type SURVIVAL_PARAMETERS } from './ogc-query.ts'

/*
 * The collections /ogc serves, described once: what the collection documents, the OpenAPI document and
 * the features' properties are written from.
 */

type JsonType = 'string' | 'integer' | 'number'

/** A feature property: its name in the feature, its JSON Schema type and what it is. */
export interface PropertyDescription {
  name: string
  type: JsonType
  nullable?: true
  description: string
  enum?: readonly string[]
}

/** A query parameter a collection's items take besides paging (each also a property, so GDAL passes a -where on it). */
export interface FilterParameter {
  name: (typeof SURVIVAL_PARAMETERS)[number]
  description: string
  enum?: readonly string[]
}

export interface CollectionDescription {
  id: 'sites' | 'survival'
  title: string
  description: string
  properties: readonly PropertyDescription[]
  filters: readonly FilterParameter[]
}

/** The site attributes as docs/data-dictionary.md names them, in the order features carry them. */
export const SITE_PROPERTIES: readonly (PropertyDescription & { attribute: keyof Site })[] = [
  { name: 'region_id', attribute: 'regionId', type: 'string', description: 'Forest region id' },
  { name: 'zone', attribute: 'zone', type: 'string', description: 'Ecological zone' },
  {
    name: 'state',
    attribute: 'state',
    type: 'string',
    nullable: true,
    description: 'US state (OR, WA); null on inland water',
  },
  {
    name: 'elevation_m',
    attribute: 'elevationM',
    type: 'number',
    description: 'Elevation, m above sea level',
  },
  { name: 'slope_deg', attribute: 'slopeDeg', type: 'number', description: 'Slope, degrees' },
  {
    name: 'aspect_deg',
    attribute: 'aspectDeg',
    type: 'number',
    description: 'Aspect, degrees clockwise from north, downslope',
  },
  {
    name: 'heat_load_index',
    attribute: 'heatLoadIndex',
    type: 'number',
    description: 'Heat load index, 0–1',
  },
  { name: 'soil_depth_cm', attribute: 'soilDepthCm', type: 'number', description: 'Soil depth, cm' },
  {
    name: 'rock_fraction_pct',
    attribute: 'rockFractionPct',
    type: 'number',
    description: 'Rock fragments, percent of soil volume',
  },
  {
    name: 'vegetation_cover_pct',
    attribute: 'vegetationCoverPct',
    type: 'number',
    description: 'Competing vegetation cover, percent',
  },
  {
    name: 'annual_precip_mm',
    attribute: 'annualPrecipMm',
    type: 'number',
    description: 'Annual precipitation, mm (1991–2020)',
  },
  {
    name: 'summer_water_deficit_mm',
    attribute: 'summerWaterDeficitMm',
    type: 'number',
    description: 'Summer climatic water deficit, mm',
  },
  {
    name: 'growing_season_frost_days',
    attribute: 'growingSeasonFrostDays',
    type: 'number',
    description: 'Frost days in the growing season',
  },
  {
    name: 'browse_pressure_index',
    attribute: 'browsePressureIndex',
    type: 'number',
    description: 'Browse pressure by deer and elk, 0–1',
  },
]

const DATA_VERSION: PropertyDescription = {
  name: 'data_version',
  type: 'string',
  nullable: true,
  description: 'The site data version the feature comes from (npm run sites -- list)',
}

const SPECIES_CODES = SPECIES.map((s) => s.code)

export const SITES: CollectionDescription = {
  id: 'sites',
  title: 'Data sites',
  description:
    'The sites of the active site data version, with the attributes the model reads (docs/data-dictionary.md). Each answer of the API comes from the nearest of them within the search radius.',
  properties: [...SITE_PROPERTIES, DATA_VERSION],
  filters: [],
}

export const SURVIVAL: CollectionDescription = {
  id: 'survival',
  title: 'Survival at the data sites',
  description:
    'Survival probability at 1, 3 and 5 years at each data site, for every species and planting method (one feature each; filter with species and method), under today’s climate or a future one (period and scenario), by the account’s default model version or the one named (model_version). Each value equals POST /v1/predict at the site’s own point.',
  properties: [
    { name: 'site_id', type: 'integer', description: 'The data site (a feature of the sites collection)' },
    { name: 'species', type: 'string', enum: SPECIES_CODES, description: 'Species code (GET /v1/species)' },
    { name: 'method', type: 'string', enum: PLANTING_METHODS, description: 'Planting method' },
    {
      name: 'period',
      type: 'string',
      enum: CLIMATE_PERIODS,
      description: 'Climate period; 1991_2020 is today’s climate',
    },
    {
      name: 'scenario',
      type: 'string',
      nullable: true,
      enum: EMISSION_SCENARIOS,
      description: 'Emission scenario of a future period; null today',
    },
    { name: 'model_version', type: 'string', description: 'The model version the values come from' },
    { name: 'survival_1y', type: 'number', description: 'Survival probability at 1 year' },
    { name: 'survival_3y', type: 'number', description: 'Survival probability at 3 years' },
    { name: 'survival_5y', type: 'number', description: 'Survival probability at 5 years' },
    DATA_VERSION,
  ],
  filters: [
    {
      name: 'species',
      enum: SPECIES_CODES,
      description: 'Only this species (a code of GET /v1/species); default every species',
    },
    { name: 'method', enum: PLANTING_METHODS, description: 'Only this planting method; default both' },
    {
      name: 'period',
      enum: CLIMATE_PERIODS,
      description: 'Climate period (GET /v1/climate); default today’s, 1991_2020',
    },
    { name: 'scenario', enum: EMISSION_SCENARIOS, description: 'Emission scenario, with a future period' },
    {
      name: 'model_version',
      description: 'A model version of GET /v1/models; default the account’s default',
    },
  ],
}

export const COLLECTIONS: readonly CollectionDescription[] = [SITES, SURVIVAL]

export function collectionById(id: string): CollectionDescription | undefined {
  return COLLECTIONS.find((collection) => collection.id === id)
}

/** A collection's document (/ogc/collections/{id}), its links made absolute from `base`. */
export function collectionDocument(collection: CollectionDescription, base: string) {
  const self = `${base}/ogc/collections/${collection.id}`
  return {
    id: collection.id,
    title: collection.title,
    description: collection.description,
    itemType: 'feature',
    crs: [CRS84],
    storageCrs: CRS84,
    extent: { spatial: { bbox: [COVERAGE_EXTENT], crs: CRS84 } },
    links: [
      { href: self, rel: 'self', type: 'application/json', title: 'This collection' },
      { href: `${self}/items`, rel: 'items', type: 'application/geo+json', title: 'Its features' },
    ],
  }
}
