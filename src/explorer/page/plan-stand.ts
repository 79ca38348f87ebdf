/** A stand read from a GeoJSON file or drawn on the map, checked as far as the page can before it is sent. */

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
