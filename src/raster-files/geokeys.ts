/*
 * The GeoTIFF tags that place a north-up EPSG:4326 grid: the pixel size, the tie of pixel (0, 0)'s
 * corner to (west, north), and the GeoKey directory naming the geographic CRS. With RasterPixelIsArea
 * the tie point is the pixel's outer corner, so GDAL's geotransform is exactly
 * (west, resolution, 0, north, 0, −resolution).
 */

export const MODEL_PIXEL_SCALE_TAG = 33550
export const MODEL_TIEPOINT_TAG = 33922
export const GEO_KEY_DIRECTORY_TAG = 34735

const GT_MODEL_TYPE_GEO_KEY = 1024
const GT_RASTER_TYPE_GEO_KEY = 1025
const GEOGRAPHIC_TYPE_GEO_KEY = 2048

const MODEL_TYPE_GEOGRAPHIC = 2
const RASTER_PIXEL_IS_AREA = 1
const EPSG_WGS84 = 4326

export interface GeoPlacement {
  west: number
  north: number
  resolution: number
}

/** ModelPixelScaleTag: x and y size of a pixel in degrees; y is positive for a north-up raster. */
export function modelPixelScale({ resolution }: GeoPlacement): number[] {
  return [resolution, resolution, 0]
}

/** ModelTiepointTag: raster point (0, 0, 0) is model point (west, north, 0). */
export function modelTiepoint({ west, north }: GeoPlacement): number[] {
  return [0, 0, 0, west, north, 0]
}

/**
 * GeoKeyDirectoryTag: header (directory version 1, key revision 1.0, key count), then one
 * (key, location 0 = the value itself, count 1, value) quadruple per key, in increasing key order.
 */
export function wgs84GeoKeyDirectory(): number[] {
  const keys: [number, number][] = [
    [GT_MODEL_TYPE_GEO_KEY, MODEL_TYPE_GEOGRAPHIC],
    [GT_RASTER_TYPE_GEO_KEY, RASTER_PIXEL_IS_AREA],
    [GEOGRAPHIC_TYPE_GEO_KEY, EPSG_WGS84],
  ]
  return [1, 1, 0, keys.length, ...keys.flatMap(([key, value]) => [key, 0, 1, value])]
}
