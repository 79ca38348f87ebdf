import type { MultiPolygon, Polygon } from 'geojson'
import { z } from 'zod'
import { invalidField } from '../errors.ts'
import {
  catalogueCode,
  climate,
  confidence,
  fieldPath,
  horizons,
  ruleSetId,
  SPECIES_MIX_MAX,
  siteClassName,
  speciesShare,
  stand,
  treesPerAcre,
  treesPerHectare,
} from '../input-rules.ts'
import type { PredictionRequest } from '../prediction-types.ts'
import { standCentroid } from '../stocking/stand.ts'
import type { StockingPlanRequest } from '../stocking/stocking-types.ts'
import type { InputRow } from './job-rows.ts'

/*
 * The features of a GeoJSON job (RFC 7946 FeatureCollection): a Point is a prediction, a Polygon or
 * MultiPolygon a stocking plan. Their properties carry the fields of POST /v1/predict or of
 * POST /v1/plans/stocking; the query string gives job-wide defaults for properties a feature lacks. A
 * feature that breaks a rule fails alone, with its index.
 */

/** The columns a GeoJSON job's CSV and NDJSON results echo (no geometry: a stand by its centre). */
export const GEOJSON_COLUMNS = [
  'id',
  'feature_index',
  'geometry_type',
  'latitude',
  'longitude',
  'species',
  'planting_method',
  'period',
  'scenario',
]

/** Query parameters a GeoJSON upload may set as defaults, and how each is read from its text. */
const DEFAULTS: Record<string, (text: string) => unknown> = {
  species_code: (text) => text,
  planting_method: (text) => text,
  horizons: (text) => text.split(/[|,;\s]+/).map(numberOrText),
  period: (text) => text,
  scenario: (text) => text,
  trees_per_acre: numberOrText,
  trees_per_hectare: numberOrText,
  confidence: numberOrText,
  rule_set: (text) => text,
  site_class: (text) => text,
  target_trees_per_acre: numberOrText,
}
export const FEATURE_DEFAULT_FIELDS = Object.keys(DEFAULTS)

function numberOrText(text: string): number | string {
  const value = Number(text)
  return text.trim() !== '' && Number.isFinite(value) ? value : text
}

/** The query string's defaults, read once per upload; an unknown parameter fails the upload. */
export function featureDefaults(query: Readonly<Record<string, string>>): Record<string, unknown> {
  const defaults: Record<string, unknown> = {}
  for (const [name, text] of Object.entries(query)) {
    const read = Object.hasOwn(DEFAULTS, name) ? DEFAULTS[name] : undefined
    if (!read)
      throw invalidField(
        `query.${name}`,
        `is not a default a GeoJSON job takes (${FEATURE_DEFAULT_FIELDS.join(', ')})`,
        'query string',
      )
    defaults[name] = read(text)
  }
  return defaults
}

const featureId = z.union([z.string().max(200, 'must be at most 200 characters'), z.number()])

const FeatureShape = z.object({
  type: z.literal('Feature', { error: 'must be "Feature"' }),
  id: featureId.optional(),
  geometry: z.object({ type: z.string({ error: 'must name a geometry type' }) }, { error: 'is required' }),
  properties: z.record(z.string(), z.unknown()).nullish(),
})

const climateFields = {
  period: climate.shape.period,
  scenario: climate.shape.scenario,
  climate: climate.nullish(),
}

const oneClimate = {
  path: ['climate'],
  message: 'cannot be given with period or scenario',
}
const namesOneClimate = (row: { climate?: unknown; period?: unknown; scenario?: unknown }) =>
  !row.climate || (row.period == null && row.scenario == null)

const PointProperties = z
  .object({
    id: featureId.optional(),
    species_code: catalogueCode.min(1, 'is required'),
    planting_method: catalogueCode.min(1, 'is required'),
    horizons: horizons.optional(),
    ...climateFields,
  })
  .refine(namesOneClimate, oneClimate)

const StandProperties = z
  .object({
    id: featureId.optional(),
    species_code: catalogueCode.min(1, 'is required').optional(),
    species_mix: z
      .array(z.strictObject({ species_code: catalogueCode, share: speciesShare }), {
        error: 'must be an array of {species_code, share}',
      })
      .min(1, 'must hold at least one species')
      .max(SPECIES_MIX_MAX, `may hold at most ${SPECIES_MIX_MAX} species`)
      .optional(),
    planting_method: catalogueCode.min(1, 'is required'),
    trees_per_acre: treesPerAcre.nullish(),
    trees_per_hectare: treesPerHectare.nullish(),
    confidence: confidence.nullish(),
    rule_set: ruleSetId.nullish(),
    site_class: siteClassName.nullish(),
    target_trees_per_acre: treesPerAcre.nullish(),
    ...climateFields,
  })
  .refine(namesOneClimate, oneClimate)

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A feature that fails alone, given back with its own properties, and its geometry when it was one
 * the job reads.
 */
function failure(
  row: number,
  cells: unknown[],
  message: string,
  own: Record<string, unknown> | null,
  geometry?: object,
): InputRow {
  return {
    r: row,
    c: cells,
    e: { code: 'invalid_request', message },
    ...(geometry ? { g: geometry } : {}),
    ...ownProperties(own),
  }
}

/** The density pair and the climate fields each go as a whole: a feature's own replace the query's. */
const DEFAULT_GROUPS: readonly (readonly string[])[] = [
  ['trees_per_acre', 'trees_per_hectare'],
  ['period', 'scenario', 'climate'],
  ['species_code', 'species_mix'],
]

/**
 * A feature's properties over the query's defaults. A null attribute (GIS tools write empty ones so)
 * is absent, so the default applies; a feature naming any field of a group drops the defaults of the
 * whole group.
 */
function withDefaults(
  own: Record<string, unknown>,
  defaults: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const present = Object.fromEntries(Object.entries(own).filter(([, value]) => value !== null))
  const merged: Record<string, unknown> = { ...defaults }
  for (const group of DEFAULT_GROUPS)
    if (group.some((name) => name in present)) for (const name of group) delete merged[name]
  return Object.assign(merged, present)
}

/** The feature's id: its own `id`, else `properties.id`, when either is a string or a number. */
function idOf(feature: Record<string, unknown>): string | number | null {
  const own = isObject(feature.properties) ? feature.properties.id : undefined
  for (const candidate of [feature.id, own])
    if (typeof candidate === 'string' || typeof candidate === 'number') return candidate
  return null
}

function issueText(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0]
  if (!issue) return `${prefix} is invalid`
  const path = fieldPath([prefix, ...issue.path])
  return `${path} ${issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message}`
}

function climateOf(fields: {
  period?: string | null
  scenario?: string | null
  climate?: { period?: string | null; scenario?: string | null } | null
}) {
  const period = fields.climate?.period ?? fields.period ?? null
  const scenario = fields.climate?.scenario ?? fields.scenario ?? null
  return period !== null || scenario !== null ? { period, scenario } : undefined
}

/**
 * One feature of a GeoJSON job as a row to score: `q` (a prediction) for a Point, `p` (a plan) for a
 * Polygon or MultiPolygon, or the reason it fails alone. `row` counts from 1; `feature_index` from 0.
 */
export function featureRow(
  row: number,
  feature: unknown,
  defaults: Readonly<Record<string, unknown>>,
): InputRow {
  const index = row - 1
  if (!isObject(feature))
    return failure(
      row,
      [null, index, ...Array(7).fill(null)],
      `feature ${index} must be a GeoJSON Feature object`,
      null,
    )
  const own = isObject(feature.properties) ? feature.properties : null
  const blank = [idOf(feature), index, null, null, null, null, null, null, null]
  const shape = FeatureShape.safeParse(feature, { reportInput: true })
  if (!shape.success)
    return failure(row, blank, `feature ${index}: ${issueText(shape.error, 'feature')}`, own)
  const properties = withDefaults(shape.data.properties ?? {}, defaults)
  const id = shape.data.id ?? (properties.id as string | number | undefined) ?? null
  const geometry = feature.geometry as { type: string; coordinates?: unknown }
  const echo = (type: string, latitude: unknown, longitude: unknown, species: unknown) => [
    id,
    index,
    type,
    latitude,
    longitude,
    species,
    properties.planting_method ?? null,
    (properties.climate as { period?: unknown } | undefined)?.period ?? properties.period ?? null,
    (properties.climate as { scenario?: unknown } | undefined)?.scenario ?? properties.scenario ?? null,
  ]

  if (geometry.type === 'Point') {
    const coordinates = Array.isArray(geometry.coordinates) ? geometry.coordinates : []
    const [longitude, latitude] = coordinates as unknown[]
    const cells = echo('Point', latitude ?? null, longitude ?? null, properties.species_code ?? null)
    const position = z
      .tuple([z.number(), z.number()], { error: 'must be a position [longitude, latitude]' })
      .rest(z.number())
      .safeParse(coordinates)
    if (!position.success || coordinates.length > 3)
      return failure(
        row,
        cells,
        `feature ${index}: geometry.coordinates must be a position [longitude, latitude]`,
        own,
      )
    const located = PointRules.safeParse({ latitude, longitude }, { reportInput: true })
    if (!located.success)
      return failure(
        row,
        cells,
        `feature ${index}: geometry.coordinates ${located.error.issues[0]?.message}`,
        own,
      )
    const parsed = PointProperties.safeParse(properties, { reportInput: true })
    if (!parsed.success)
      return failure(
        row,
        cells,
        `feature ${index}: ${issueText(parsed.error, 'properties')}`,
        own,
        feature.geometry as object,
      )
    const request: PredictionRequest = {
      latitude: latitude as number,
      longitude: longitude as number,
      speciesCode: parsed.data.species_code,
      plantingMethod: parsed.data.planting_method,
      horizons: parsed.data.horizons ?? null,
    }
    const asked = climateOf(parsed.data)
    if (asked) request.climate = asked
    return {
      r: row,
      c: cells,
      q: request,
      g: feature.geometry as object,
      ...ownProperties(shape.data.properties),
    }
  }

  if (geometry.type === 'Polygon' || geometry.type === 'MultiPolygon') {
    const checkedGeometry = stand.safeParse(feature.geometry, { reportInput: true })
    const centre = checkedGeometry.success
      ? standCentroid(
          checkedGeometry.data.type === 'Feature' ? checkedGeometry.data.geometry : checkedGeometry.data,
        )
      : null
    const species = Array.isArray(properties.species_mix)
      ? (properties.species_mix as { species_code?: unknown; share?: unknown }[])
          .map((item) => `${String(item?.species_code)}:${String(item?.share)}`)
          .join('|')
      : (properties.species_code ?? null)
    const cells = echo(geometry.type, rounded(centre?.latitude), rounded(centre?.longitude), species)
    if (!checkedGeometry.success)
      return failure(row, cells, `feature ${index}: ${issueText(checkedGeometry.error, 'geometry')}`, own)
    const parsed = StandProperties.safeParse(properties, { reportInput: true })
    if (!parsed.success)
      return failure(
        row,
        cells,
        `feature ${index}: ${issueText(parsed.error, 'properties')}`,
        own,
        feature.geometry as object,
      )
    const fields = parsed.data
    const mix = fields.species_mix
    const speciesMix = mix
      ? mix.map((item) => ({ speciesCode: item.species_code, share: item.share }))
      : fields.species_code
        ? [{ speciesCode: fields.species_code, share: 1 }]
        : null
    if (!speciesMix)
      return failure(
        row,
        cells,
        `feature ${index}: properties.species_mix (or species_code) is required`,
        own,
        feature.geometry as object,
      )
    const plan: StockingPlanRequest = {
      stand: checkedGeometry.data,
      plantingMethod: fields.planting_method,
      speciesMix,
      treesPerAcre: fields.trees_per_acre,
      treesPerHectare: fields.trees_per_hectare,
      confidence: fields.confidence,
      ruleSet: fields.rule_set,
      siteClass: fields.site_class,
      targetTreesPerAcre: fields.target_trees_per_acre,
      climate: climateOf(fields) ?? null,
    }
    return {
      r: row,
      c: cells,
      p: plan,
      g: feature.geometry as Polygon | MultiPolygon,
      ...ownProperties(shape.data.properties),
    }
  }
  return failure(
    row,
    echo(geometry.type, null, null, null),
    `feature ${index}: geometry.type ${JSON.stringify(geometry.type)} is not a Point, Polygon or MultiPolygon`,
    own,
  )
}

/** A stand's centre to 6 decimals (about 0.1 m): enough to find it, without float residue. */
function rounded(value: number | undefined): number | null {
  return value === undefined ? null : Math.round(value * 1e6) / 1e6
}

function ownProperties(properties: Record<string, unknown> | null | undefined): {
  o?: Record<string, unknown>
} {
  return properties && Object.keys(properties).length > 0 ? { o: properties } : {}
}

const PointRules = z.object({
  latitude: z
    .number()
    .min(-90, 'has a latitude outside -90 to 90')
    .max(90, 'has a latitude outside -90 to 90'),
  longitude: z
    .number()
    .min(-180, 'has a longitude outside -180 to 180')
    .max(180, 'has a longitude outside -180 to 180'),
})
