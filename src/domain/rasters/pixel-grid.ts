/** A north-up grid of square pixels in degrees of longitude and latitude (EPSG:4326). */
export interface PixelGrid {
  /** Longitude of the west edge of the first column. */
  west: number
  /** Latitude of the north edge of the first row. */
  north: number
  width: number
  height: number
  /** Degrees per pixel along both axes. */
  resolution: number
}

/** Decimal places a grid edge is rounded to: a multiple of 0.005° is then written as its decimal. */
const EDGE_DECIMALS = 9

const multipleOf = (resolution: number, count: number) => Number((count * resolution).toFixed(EDGE_DECIMALS))

/**
 * The grid over a box [west, south, east, north] whose edges are whole multiples of `resolution`, snapped
 * outward so that the box lies wholly inside it.
 */
export function gridOverBox(box: readonly [number, number, number, number], resolution: number): PixelGrid {
  if (!(Number.isFinite(resolution) && resolution > 0)) throw new RangeError('resolution must be > 0')
  const [boxWest, boxSouth, boxEast, boxNorth] = box
  const westCount = Math.floor(boxWest / resolution)
  const southCount = Math.floor(boxSouth / resolution)
  const eastCount = Math.ceil(boxEast / resolution)
  const northCount = Math.ceil(boxNorth / resolution)
  return {
    west: multipleOf(resolution, westCount),
    north: multipleOf(resolution, northCount),
    width: Math.max(1, eastCount - westCount),
    height: Math.max(1, northCount - southCount),
    resolution,
  }
}

/**
 * The longitude of a column's pixel centres. The formula is part of the contract (docs/rasters.md): a
 * client computing the centre from the GeoTIFF's transform this way gets the very point evaluated.
 */
export function columnCentre(grid: PixelGrid, column: number): number {
  return grid.west + (column + 0.5) * grid.resolution
}

/** The latitude of a row's pixel centres (rows run north to south). */
export function rowCentre(grid: PixelGrid, row: number): number {
  return grid.north - (row + 0.5) * grid.resolution
}
