import { CLIMATE_PERIODS, EMISSION_SCENARIOS } from '../domain/climate.ts'
import { COVERAGE_EXTENT, HEXAGON_DEFAULTS } from '../domain/features/feature-collections.ts'
import { CELL_KM_MAX, CELL_KM_MIN } from '../domain/input-rules.ts'
import { SPECIES } from '../domain/species.ts'
import { TREATMENT_VALUES } from '../domain/treatment-values.ts'
import { PLANTING_METHODS, type Site } from '../types.ts'
import { CRS84, type HEXAGON_PARAMETERS, ITEMS_PARAMETERS, TREATMENT_PARAMETERS } from './ogc-query.ts'

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
  name: (typeof HEXAGON_PARAMETERS)[number]
  type: 'string' | 'integer'
  description: string
  enum?: readonly (string | number)[]
  minimum?: number
  maximum?: number
}

export interface CollectionDescription {
  id: 'sites' | 'survival' | 'survival-hexagons'
  geometry: 'Point' | 'Polygon'
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

const SPECIES_FILTER: FilterParameter = {
  name: 'species',
  type: 'string',
  enum: SPECIES_CODES,
  description: 'Only this species (a code of GET /v1/species); default every species',
}
const METHOD_FILTER: FilterParameter = {
  name: 'method',
  type: 'string',
  enum: PLANTING_METHODS,
  description: 'Only this planting method; default both',
}
const PERIOD_FILTER: FilterParameter = {
  name: 'period',
  type: 'string',
  enum: CLIMATE_PERIODS,
  description: 'Climate period (GET /v1/climate); default today’s, 1991_2020',
}
const SCENARIO_FILTER: FilterParameter = {
  name: 'scenario',
  type: 'string',
  enum: EMISSION_SCENARIOS,
  description: 'Emission scenario, with a future period',
}
const MODEL_VERSION_FILTER: FilterParameter = {
  name: 'model_version',
  type: 'string',
  description: 'A model version of GET /v1/models; default the account’s default',
}

/** The treatments, each a filter; a treated feature carries the ones named as properties. */
const TREATMENT_FILTERS: readonly FilterParameter[] = TREATMENT_PARAMETERS.map((name) => ({
  name,
  type: 'string',
  enum: TREATMENT_VALUES[name],
  description: `Establishment treatment (docs/treatments.md): ${name.replace('_', ' ')} at every site; default none. Treated features carry the treatments named as properties`,
}))

const PERIOD: PropertyDescription = {
  name: 'period',
  type: 'string',
  enum: CLIMATE_PERIODS,
  description: 'Climate period; 1991_2020 is today’s climate',
}
const SCENARIO: PropertyDescription = {
  name: 'scenario',
  type: 'string',
  nullable: true,
  enum: EMISSION_SCENARIOS,
  description: 'Emission scenario of a future period; null today',
}
const SPECIES_PROPERTY: PropertyDescription = {
  name: 'species',
  type: 'string',
  enum: SPECIES_CODES,
  description: 'Species code (GET /v1/species)',
}
const METHOD: PropertyDescription = {
  name: 'method',
  type: 'string',
  enum: PLANTING_METHODS,
  description: 'Planting method',
}
const MODEL_VERSION: PropertyDescription = {
  name: 'model_version',
  type: 'string',
  description: 'The model version the values come from',
}

export const SITES: CollectionDescription = {
  id: 'sites',
  geometry: 'Point',
  title: 'Data sites',
  description:
    'The sites of the active site data version, with the attributes the model reads (docs/data-dictionary.md). Each answer of the API comes from the nearest of them within the search radius.',
  properties: [...SITE_PROPERTIES, DATA_VERSION],
  filters: [],
}

export const SURVIVAL: CollectionDescription = {
  id: 'survival',
  geometry: 'Point',
  title: 'Survival at the data sites',
  description:
    'Survival probability at 1, 3 and 5 years at each data site, for every species and planting method (one feature each; filter with species and method), under today’s climate or a future one (period and scenario), by the account’s default model version or the one named (model_version). Each value equals POST /v1/predict at the site’s own point.',
  properties: [
    { name: 'site_id', type: 'integer', description: 'The data site (a feature of the sites collection)' },
    SPECIES_PROPERTY,
    METHOD,
    PERIOD,
    SCENARIO,
    MODEL_VERSION,
    { name: 'survival_1y', type: 'number', description: 'Survival probability at 1 year' },
    { name: 'survival_3y', type: 'number', description: 'Survival probability at 3 years' },
    { name: 'survival_5y', type: 'number', description: 'Survival probability at 5 years' },
    DATA_VERSION,
  ],
  filters: [
    SPECIES_FILTER,
    METHOD_FILTER,
    PERIOD_FILTER,
    SCENARIO_FILTER,
    MODEL_VERSION_FILTER,
    ...TREATMENT_FILTERS,
  ],
}

const { speciesCode, plantingMethod, horizon, cellKm } = HEXAGON_DEFAULTS

export const HEXAGONS: CollectionDescription = {
  id: 'survival-hexagons',
  geometry: 'Polygon',
  title: 'Survival map (hexagons)',
  description: `The survival map: mean, lowest and highest survival of the data sites in each H3 hexagon of about cell_km across that holds a site, for one species, planting method and horizon (${speciesCode}, ${plantingMethod}, ${horizon} years and ${cellKm} km unless named), under today’s climate or a future one; under a future climate each cell also gives its change from today.`,
  properties: [
    { name: 'h3_index', type: 'string', description: 'The H3 cell' },
    SPECIES_PROPERTY,
    METHOD,
    { name: 'horizon', type: 'integer', description: 'Years after planting' },
    { name: 'cell_km', type: 'integer', description: 'The cell size asked for, km' },
    PERIOD,
    SCENARIO,
    MODEL_VERSION,
    { name: 'mean_survival', type: 'number', description: 'Mean survival probability of the cell’s sites' },
    { name: 'min_survival', type: 'number', description: 'Lowest survival probability of the cell’s sites' },
    { name: 'max_survival', type: 'number', description: 'Highest survival probability of the cell’s sites' },
    { name: 'sites', type: 'integer', description: 'Data sites in the cell' },
    {
      name: 'change_from_today',
      type: 'number',
      nullable: true,
      description: 'Under a future climate: mean survival minus the mean today; null today',
    },
    DATA_VERSION,
  ],
  filters: [
    {
      ...SPECIES_FILTER,
      description: `The species mapped (a code of GET /v1/species); default ${speciesCode}`,
    },
    { ...METHOD_FILTER, description: `The planting method mapped; default ${plantingMethod}` },
    {
      name: 'horizon',
      type: 'integer',
      enum: [1, 3, 5],
      description: `Years after planting; default ${horizon}`,
    },
    {
      name: 'cell_km',
      type: 'integer',
      minimum: CELL_KM_MIN,
      maximum: CELL_KM_MAX,
      description: `Cell size, km; default ${cellKm}`,
    },
    PERIOD_FILTER,
    SCENARIO_FILTER,
    MODEL_VERSION_FILTER,
    ...TREATMENT_FILTERS,
  ],
}

export const COLLECTIONS: readonly CollectionDescription[] = [SITES, SURVIVAL, HEXAGONS]

/** Each filter name some collection takes, with the first collection that declares it. */
export const ANY_COLLECTION_FILTERS: ReadonlyMap<string, CollectionDescription> = firstDeclaring(COLLECTIONS)

function firstDeclaring(collections: readonly CollectionDescription[]): Map<string, CollectionDescription> {
  const byName = new Map<string, CollectionDescription>()
  for (const collection of collections)
    for (const filter of collection.filters) if (!byName.has(filter.name)) byName.set(filter.name, collection)
  return byName
}

/** How a collection's items are paged: a map's cells by offset alone, the others by cursor or offset. */
export function pagingParameters(collection: CollectionDescription): readonly string[] {
  return collection.id === 'survival-hexagons'
    ? ITEMS_PARAMETERS.filter((name) => name !== 'cursor')
    : ITEMS_PARAMETERS
}

/** What one feature takes: a survival feature's id names its species and method; a cell's names no map. */
export function featureParameters(collection: CollectionDescription): readonly string[] {
  const names = collection.filters.map((filter) => filter.name)
  return collection.id === 'survival'
    ? names.filter((name) => name !== 'species' && name !== 'method')
    : names
}

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
