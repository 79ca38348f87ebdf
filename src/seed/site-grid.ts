import type { BBox } from '../geo/bbox.ts'
import { KM_PER_DEGREE } from './geography.ts'
import type { RandomSource } from './random.ts'

export interface GridPoint {
  latitude: number
  longitude: number
}

/** Each point moves at most this share of the spacing from its cell centre, so cells never swap points. */
const JITTER_SHARE = 0.8

/**
 * Jittered grid of roughly `spacingKm` over the bbox, south to north and west to east. Two random
 * numbers are drawn for every cell, so the sequence never depends on which points are kept later.
 */
export function* jitteredGrid(bbox: BBox, spacingKm: number, random: RandomSource): Generator<GridPoint> {
  const [minLon, minLat, maxLon, maxLat] = bbox
  const latStep = spacingKm / KM_PER_DEGREE
  const rows = Math.ceil((maxLat - minLat) / latStep)
  for (let row = 0; row < rows; row++) {
    const rowLatitude = minLat + (row + 0.5) * latStep
    const lonStep = spacingKm / (KM_PER_DEGREE * Math.cos((rowLatitude * Math.PI) / 180))
    const columns = Math.ceil((maxLon - minLon) / lonStep)
    for (let column = 0; column < columns; column++) {
      const jitterNorth = (random() - 0.5) * JITTER_SHARE
      const jitterEast = (random() - 0.5) * JITTER_SHARE
      yield {
        latitude: rowLatitude + jitterNorth * latStep,
        longitude: minLon + (column + 0.5 + jitterEast) * lonStep,
      }
    }
  }
}
