import type { Polygon, Position } from 'geojson'

/** GeoJSON geometry builders in longitude/latitude degrees. */

/** A closed, counter-clockwise lon/lat rectangle. */
export function rectangle(west: number, south: number, east: number, north: number): Position[] {
  return [
    [west, south],
    [east, south],
    [east, north],
    [west, north],
    [west, south],
  ]
}

/** A closed, counter-clockwise square ring of `side` degrees from its south-west corner. */
export function square(west: number, south: number, side = 0.01): Position[] {
  return rectangle(west, south, west + side, south + side)
}

/** A Polygon of the rings given, the outer ring first. */
export const polygon = (...rings: Position[][]): Polygon => ({ type: 'Polygon', coordinates: rings })
