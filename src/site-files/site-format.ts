import { forestRegions } from '../seed/reference-data.ts'
import { FOREST_ZONES, type Site, US_STATES } from '../types.ts'

/*
 * The site data file: what `npm run sites -- import FILE` reads and an export writes. One row per site,
 * its columns in snake_case, in any order; the names are matched case-insensitively and other columns
 * are ignored. CSV carries `latitude` and `longitude` as columns; GeoJSON, NDJSON (one GeoJSON Feature
 * a line) and GeoPackage carry them as the Point geometry (WGS84 longitude, latitude), every other
 * column as a property or attribute.
 *
 * The ranges are what real Oregon and Washington ground can give, wider than the synthetic set's
 * (docs/data-dictionary.md): a value inside them is kept as it is, and the model reads a value beyond
 * its own input range (src/model/artifacts, e.g. slope 0–60) as that range's limit.
 */

/** A site as a data file gives it, checked: the domain's site attributes and position, without an id. */
export type SiteRow = Omit<Site, 'id'>

/** A site to write: its row, and the id written as `site_id` (a stored site's id, or a file's own). */
export type ExportSite = SiteRow & { id?: number | string | null }

export type SiteSource = Iterable<ExportSite> | AsyncIterable<ExportSite>

export type SiteColumnType =
  /** A finite number: a JSON or SQLite number, or text that reads as a decimal (`1.5`, `-3`, `2e3`). */
  | 'number'
  /** As `number`, then rounded to the nearest whole number (the store keeps these as integers). */
  | 'integer'
  /** One of `values`, as text. */
  | 'enum'
  /** Text (a number is taken as its decimal text). */
  | 'text'

export interface SiteColumn {
  /** The column's name in a file. */
  name: string
  /** The SiteRow attribute it fills; null for the file's own id. */
  attribute: keyof SiteRow | null
  type: SiteColumnType
  unit: string
  /** Inclusive limits of a number. */
  min?: number
  max?: number
  /** The allowed values of an enum. */
  values?: readonly string[]
  /** Longest text, characters. */
  maxLength?: number
  /** Required columns must hold a value on every row; an optional one missing takes its default. */
  required: boolean
  /** How an optional column's value is made when a row lacks it. */
  default?: string
  description: string
}

/** The forest regions of data/forest_regions.json: the values of `region_id`. */
export const REGION_IDS: readonly string[] = Object.freeze(forestRegions.map((region) => region.id))

/** Every column of a site data file, in the order an export writes them. */
export const SITE_COLUMNS = Object.freeze([
  {
    name: 'site_id',
    attribute: null,
    type: 'text',
    unit: '',
    maxLength: 200,
    required: false,
    default: 'none (GeoJSON: the feature `id`; GeoPackage: the feature id `fid`)',
    description:
      "The file's own id of the site, kept to name the row in reports (the store numbers sites itself). `id` is read as `site_id` when there is no `site_id`.",
  },
  {
    name: 'latitude',
    attribute: 'latitude',
    type: 'number',
    unit: 'degrees north, WGS84',
    min: -90,
    max: 90,
    required: true,
    description:
      'Must lie in the coverage region (Oregon and Washington land, and their inland marine waters).',
  },
  {
    name: 'longitude',
    attribute: 'longitude',
    type: 'number',
    unit: 'degrees east, WGS84',
    min: -180,
    max: 180,
    required: true,
    description: 'Must lie in the coverage region. No two sites may share a point to 5 decimals (about 1 m).',
  },
  {
    name: 'elevation_m',
    attribute: 'elevationM',
    type: 'integer',
    unit: 'm above sea level',
    min: -100,
    max: 4400,
    required: true,
    description: 'Sea level (a DEM may dip below it on the shore) to Mount Rainier, 4,392 m.',
  },
  {
    name: 'slope_deg',
    attribute: 'slopeDeg',
    type: 'number',
    unit: 'degrees',
    min: 0,
    max: 90,
    required: true,
    description: 'Any slope a DEM can give; the model reads slopes over 60 as 60.',
  },
  {
    name: 'aspect_deg',
    attribute: 'aspectDeg',
    type: 'number',
    unit: 'degrees clockwise from north, downslope',
    min: 0,
    max: 360,
    required: true,
    description:
      'ArcGIS writes -1 on flat cells: give 0 there (with no slope the aspect plays no part). 360 is north, as 0.',
  },
  {
    name: 'heat_load_index',
    attribute: 'heatLoadIndex',
    type: 'number',
    unit: '0 (coolest) – 1 (hottest)',
    min: 0,
    max: 1,
    required: false,
    default:
      "computed from latitude, slope_deg and aspect_deg as the synthetic sites' is (McCune & Keon 2002 eq. 3, rescaled; 3 decimals)",
    description: 'Folded-aspect heat load; see docs/data-dictionary.md.',
  },
  {
    name: 'soil_depth_cm',
    attribute: 'soilDepthCm',
    type: 'integer',
    unit: 'cm',
    min: 0,
    max: 500,
    required: true,
    description:
      'Depth to a restrictive layer; 0 is bare rock. The model reads depths under 15 or over 200 as those.',
  },
  {
    name: 'rock_fraction_pct',
    attribute: 'rockFractionPct',
    type: 'number',
    unit: '%',
    min: 0,
    max: 100,
    required: true,
    description: 'Coarse fragments and surface rock.',
  },
  {
    name: 'vegetation_cover_pct',
    attribute: 'vegetationCoverPct',
    type: 'number',
    unit: '%',
    min: 0,
    max: 100,
    required: true,
    description: 'Competing grass, forbs and shrubs at planting.',
  },
  {
    name: 'annual_precip_mm',
    attribute: 'annualPrecipMm',
    type: 'integer',
    unit: 'mm per year',
    min: 100,
    max: 7000,
    required: true,
    description:
      'Climate normal; the driest Oregon desert gets about 150 mm, the wettest Olympic slopes about 6,000.',
  },
  {
    name: 'summer_water_deficit_mm',
    attribute: 'summerWaterDeficitMm',
    type: 'integer',
    unit: 'mm',
    min: 0,
    max: 1200,
    required: true,
    description: 'Climatic water deficit of the summer (potential minus actual evapotranspiration).',
  },
  {
    name: 'growing_season_frost_days',
    attribute: 'growingSeasonFrostDays',
    type: 'integer',
    unit: 'days',
    min: 0,
    max: 153,
    required: true,
    description: 'Days of May–September (153) with a minimum temperature at or below −2 °C.',
  },
  {
    name: 'browse_pressure_index',
    attribute: 'browsePressureIndex',
    type: 'number',
    unit: '0 (none) – 1 (severe)',
    min: 0,
    max: 1,
    required: true,
    description: 'Browse, clipping and seed predation by deer, elk, mountain beaver, gophers and rodents.',
  },
  {
    name: 'zone',
    attribute: 'zone',
    type: 'enum',
    unit: '',
    values: FOREST_ZONES,
    required: false,
    default:
      "from the forest region and elevation_m, as the synthetic sites' (required where the point lies in no forest region)",
    description: 'Ecological zone, as species.csv `range_zones` names them.',
  },
  {
    name: 'region_id',
    attribute: 'regionId',
    type: 'enum',
    unit: '',
    values: REGION_IDS,
    required: false,
    default:
      'the forest region of data/forest_regions.json that holds the point, the deepest one in an overlap (required where none does)',
    description: 'Forest region id.',
  },
  {
    name: 'state',
    attribute: 'state',
    type: 'enum',
    unit: '',
    values: US_STATES,
    required: false,
    default: 'the state whose land holds the point; none on inland water',
    description: 'Native ranges are judged by zone and state.',
  },
] as const satisfies readonly SiteColumn[])

export type SiteColumnName = (typeof SITE_COLUMNS)[number]['name']

export const SITE_COLUMN_NAMES: readonly SiteColumnName[] = Object.freeze(
  SITE_COLUMNS.map((column) => column.name),
)

/** The columns every row must give. */
export const REQUIRED_SITE_COLUMNS: readonly SiteColumnName[] = Object.freeze(
  SITE_COLUMNS.filter((column) => column.required).map((column) => column.name),
)

/** The columns a row may leave out, each then taking its default. */
export const OPTIONAL_SITE_COLUMNS: readonly SiteColumnName[] = Object.freeze(
  SITE_COLUMNS.filter((column) => !column.required).map((column) => column.name),
)

/** Read as `site_id` when a file has no `site_id` column. */
export const SITE_ID_ALIAS = 'id'

const BY_NAME: ReadonlyMap<string, SiteColumn> = new Map(SITE_COLUMNS.map((column) => [column.name, column]))

export function siteColumn(name: SiteColumnName): SiteColumn {
  return BY_NAME.get(name) as SiteColumn
}

export function isSiteColumnName(name: string): name is SiteColumnName {
  return BY_NAME.has(name)
}

/** A column name as a file's header or properties give it, ready to match: trimmed, lower case. */
export function normalizeColumnName(name: string): string {
  return name.trim().toLowerCase()
}

/** The required columns a file's column list lacks (after mapping); latitude and longitude count when `hasGeometry`. */
export function missingColumns(columns: Iterable<string>, hasGeometry = false): SiteColumnName[] {
  const present = new Set([...columns].map(normalizeColumnName))
  if (hasGeometry) {
    present.add('latitude')
    present.add('longitude')
  }
  return REQUIRED_SITE_COLUMNS.filter((name) => !present.has(name))
}
