/** Where the tests ask for predictions, and the request bodies built from those points. */

type Point = { latitude: number; longitude: number }

/** Forest points that have a site within the radius (Coast Range, Cascades, eastside). */
export const FOREST_POINTS = {
  coastRange: { latitude: 44.6, longitude: -123.6 },
  westCascades: { latitude: 44.2, longitude: -122.2 },
  eastCascades: { latitude: 44.0, longitude: -121.6 },
} as const

/** Forest points in Washington: the eastern Cascades near Cle Elum (eastside_cascades zone). */
export const WASHINGTON_POINTS = {
  eastCascades: { latitude: 47.25, longitude: -121.0 },
} as const

/** Inside coverage but farther than the radius from every site (city, open water). */
export const NO_DATA_POINTS = {
  downtownPortland: { latitude: 45.5152, longitude: -122.6784 },
  openPugetSound: { latitude: 47.62, longitude: -122.43 },
} as const

/** Outside Oregon and Washington. */
export const OUTSIDE_POINTS = {
  boise: { latitude: 43.615, longitude: -116.202 },
  openPacific: { latitude: 46.5, longitude: -125.0 },
} as const

/**
 * `count` distinct points on a small grid in the Oregon Coast Range (all inside coverage; most have a
 * data point within the radius, a few may answer no_nearby_data, which is fine for counting).
 */
export function forestGrid(count: number): Point[] {
  const base = FOREST_POINTS.coastRange
  const side = Math.ceil(Math.sqrt(count))
  return Array.from({ length: count }, (_, index) => ({
    latitude: Number((base.latitude - 0.3 + (index % side) * 0.02).toFixed(5)),
    longitude: Number((base.longitude - 0.2 + Math.floor(index / side) * 0.02).toFixed(5)),
  }))
}

/** A REST `/v1/predict` body (Douglas-fir, hand planted, in the Coast Range) with `overrides`. */
export function predictBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...FOREST_POINTS.coastRange, species_code: 'PSME', planting_method: 'manual', ...overrides }
}

/** A REST `/v1/predict/compare` body (no planting method) with `overrides`. */
export function compareBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...FOREST_POINTS.coastRange, species_code: 'PSME', ...overrides }
}

/** `count` REST predict bodies at distinct forest points: the `sites` of a `/v1/predict/batch`. */
export function predictBodies(count: number, overrides: Record<string, unknown> = {}) {
  return forestGrid(count).map((point) => predictBody({ ...point, ...overrides }))
}

/** A GraphQL `PredictionInput` (as variables). */
export interface PredictionInput extends Point {
  speciesCode: string
  plantingMethod: string
  horizons?: number[]
}

/** `count` GraphQL prediction inputs at distinct forest points: the `sites` of a `predictBatch`. */
export function predictionInputs(count: number, overrides: Partial<PredictionInput> = {}): PredictionInput[] {
  return forestGrid(count).map((point) => ({
    ...point,
    speciesCode: 'PSME',
    plantingMethod: 'manual',
    ...overrides,
  }))
}
