/**
 * The Plan tab's inputs, without the page: a stand read from a GeoJSON file or drawn on the map, the
 * species mix's checks (the API's own rules, so a plan the page sends is not refused for them), and
 * which input an API error's `details.field` is about.
 */

export type StandGeometry = GeoJSON.Polygon | GeoJSON.MultiPolygon

/** A stand the page holds: its geometry and where it came from ("drawn on the map", a file's name). */
export interface LoadedStand {
  geometry: StandGeometry
  source: string
}

/** A file the page cannot make a stand of: the message says why, for the reader. */
export class StandFileError extends Error {}

/** The API's limit on a stand's positions; a bigger file is refused here, before it is sent. */
export const STAND_MAX_POSITIONS = 10_000
/** A GeoJSON file larger than this is not read (a stand of 10,000 positions is well under 1 MB). */
export const STAND_FILE_MAX_BYTES = 5_000_000

/** Shares of a mix may miss 1 by this much, as the API allows (0.333 + 0.333 + 0.334 is a mix of thirds). */
export const SHARE_SUM_TOLERANCE = 0.001
export const SPECIES_MIX_MAX = 20
/** The API's bounds: planted density up to 5,000 trees per acre, confidence 0.5–0.99. */
export const TREES_PER_ACRE_MAX = 5000
export const TREES_PER_HECTARE_PER_ACRE = 2.471
export const CONFIDENCE_MIN_PERCENT = 50
export const CONFIDENCE_MAX_PERCENT = 99

type Polygons = GeoJSON.Position[][][]

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The polygons of one GeoJSON object (each as its rings), and the types of what held none. */
function polygonsOf(value: unknown, others: Set<string>): Polygons {
  if (!isObject(value)) return []
  switch (value.type) {
    case 'Polygon':
      return Array.isArray(value.coordinates) ? [value.coordinates as GeoJSON.Position[][]] : []
    case 'MultiPolygon':
      return Array.isArray(value.coordinates) ? (value.coordinates as Polygons) : []
    case 'Feature':
      if (value.geometry === null || value.geometry === undefined) others.add('Feature without a geometry')
      return polygonsOf(value.geometry, others)
    case 'FeatureCollection':
      return Array.isArray(value.features) ? value.features.flatMap((f) => polygonsOf(f, others)) : []
    case 'GeometryCollection':
      return Array.isArray(value.geometries) ? value.geometries.flatMap((g) => polygonsOf(g, others)) : []
    default:
      others.add(typeof value.type === 'string' ? value.type : 'an object without a GeoJSON type')
      return []
  }
}

/**
 * The stand of a GeoJSON object: a Polygon or MultiPolygon geometry, a Feature holding one, or a
 * FeatureCollection (or GeometryCollection) whose polygons together make the stand (one Polygon, or a
 * MultiPolygon of all of them). Rings are not judged here: the API says what is wrong with them.
 */
export function standFromGeoJson(value: unknown): StandGeometry {
  if (!isObject(value) || typeof value.type !== 'string')
    throw new StandFileError('This file is not GeoJSON: it has no "type".')
  const others = new Set<string>()
  const polygons = polygonsOf(value, others)
  if (polygons.length === 0) {
    const found = [...others].filter((type) => type !== 'FeatureCollection')
    throw new StandFileError(
      `This GeoJSON holds no Polygon or MultiPolygon${found.length ? ` (found ${found.join(', ')})` : ''}: a stand is an area.`,
    )
  }
  const positions = polygons.flat(2).length
  if (positions > STAND_MAX_POSITIONS)
    throw new StandFileError(
      `This stand has ${positions.toLocaleString('en-US')} positions; a stand may have at most ${STAND_MAX_POSITIONS.toLocaleString('en-US')}. Simplify it first.`,
    )
  if (polygons.length === 1) return { type: 'Polygon', coordinates: polygons[0] as GeoJSON.Position[][] }
  return { type: 'MultiPolygon', coordinates: polygons }
}

/** A GeoJSON file's text as a stand. */
export function standFromText(text: string): StandGeometry {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new StandFileError('This file is not GeoJSON: it is not valid JSON.')
  }
  return standFromGeoJson(value)
}

/** The polygon of vertices drawn on the map: one closed ring, [longitude, latitude] as GeoJSON has it. */
export function polygonOfVertices(
  vertices: readonly { latitude: number; longitude: number }[],
): GeoJSON.Polygon {
  const ring = vertices.map((v): GeoJSON.Position => [roundDegrees(v.longitude), roundDegrees(v.latitude)])
  const first = ring[0]
  if (first) ring.push([...first])
  return { type: 'Polygon', coordinates: [ring] }
}

/** Six decimals: about 10 cm, far finer than a click on the map. */
function roundDegrees(value: number): number {
  return Number(value.toFixed(6))
}

/** The number of positions of a stand (closing positions included), as the API counts them. */
export function positionCount(geometry: StandGeometry): number {
  return (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates).flat(2).length
}

export interface MixRow {
  speciesCode: string
  /** NaN when the share field is empty or not a number. */
  share: number
}

/** What is wrong with a mix, and which rows (0-based) it is about. */
export interface MixProblem {
  message: string
  rows: number[]
  kind: 'share' | 'species' | 'sum'
}

export function shareSum(rows: readonly MixRow[]): number {
  return rows.reduce((sum, row) => sum + (Number.isFinite(row.share) ? row.share : 0), 0)
}

/** Two decimals, or three when two would hide the difference from 1 ("0.999"). */
export function formatShare(value: number): string {
  const two = value.toFixed(2)
  return Math.abs(Number(two) - value) > 1e-9 ? String(Number(value.toFixed(3))) : two
}

/**
 * The mix's first problem, or null: each share above 0 and at most 1, each species once, and the shares
 * summing to 1 (within the API's tolerance).
 */
export function mixProblem(
  rows: readonly MixRow[],
  speciesName: (code: string) => string,
): MixProblem | null {
  if (rows.length === 0) return { message: 'Add at least one species to the mix.', rows: [], kind: 'species' }
  for (const [i, row] of rows.entries())
    if (!(Number.isFinite(row.share) && row.share > 0 && row.share <= 1))
      return {
        message: `The share of species ${i + 1} (${speciesName(row.speciesCode)}) must be above 0 and at most 1.`,
        rows: [i],
        kind: 'share',
      }
  for (const [i, row] of rows.entries()) {
    const first = rows.findIndex((other) => other.speciesCode === row.speciesCode)
    if (first !== i)
      return {
        message: `${speciesName(row.speciesCode)} is in the mix twice (species ${first + 1} and ${i + 1}): list each species once.`,
        rows: [first, i],
        kind: 'species',
      }
  }
  const sum = shareSum(rows)
  if (Math.abs(sum - 1) > SHARE_SUM_TOLERANCE)
    return {
      message: `The shares of the species mix sum to ${formatShare(sum)}; they must sum to 1.`,
      rows: rows.map((_, i) => i),
      kind: 'sum',
    }
  return null
}

/** The inputs of the Plan tab an API error can be about. */
export type PlanField =
  | 'point'
  | 'stand'
  | 'mix'
  | 'density'
  | 'confidence'
  | 'ruleSet'
  | 'siteClass'
  | 'target'
  | 'method'
  | 'climate'
  | 'treatments'
  | 'costs'

/** The Plan input an error's `details.field` names ("input.speciesMix", "input.stand.coordinates[0]", …). */
export function planFieldOf(field: unknown): PlanField | null {
  if (typeof field !== 'string') return null
  const name = field.replace(/^input\./, '').split(/[.[]/)[0] ?? ''
  const fields: Record<string, PlanField> = {
    latitude: 'point',
    longitude: 'point',
    stand: 'stand',
    speciesMix: 'mix',
    species_mix: 'mix',
    treesPerAcre: 'density',
    trees_per_acre: 'density',
    treesPerHectare: 'density',
    trees_per_hectare: 'density',
    confidence: 'confidence',
    ruleSet: 'ruleSet',
    rule_set: 'ruleSet',
    siteClass: 'siteClass',
    site_class: 'siteClass',
    targetTreesPerAcre: 'target',
    target_trees_per_acre: 'target',
    plantingMethod: 'method',
    climate: 'climate',
    treatments: 'treatments',
    costs: 'costs',
  }
  return fields[name] ?? null
}
