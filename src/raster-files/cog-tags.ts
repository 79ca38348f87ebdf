import { GDAL_METADATA_TAG, GDAL_NODATA_TAG, gdalMetadataXml, gdalNodataText } from './gdal-tags.ts'
import {
  GEO_KEY_DIRECTORY_TAG,
  MODEL_PIXEL_SCALE_TAG,
  MODEL_TIEPOINT_TAG,
  modelPixelScale,
  modelTiepoint,
  wgs84GeoKeyDirectory,
} from './geokeys.ts'
import type { GridLevel, RasterGrid } from './raster-grid.ts'
import { asciiTag, doubleTag, longTag, shortTag, type TiffTag } from './tiff-structure.ts'
import { TILE_SIZE } from './tile-encoding.ts'

/* The TIFF tags of one level's IFD: one band of tiled, predicted, deflated Float32. */

const NEW_SUBFILE_TYPE = 254
const IMAGE_WIDTH = 256
const IMAGE_LENGTH = 257
const BITS_PER_SAMPLE = 258
const COMPRESSION = 259
const PHOTOMETRIC_INTERPRETATION = 262
const SAMPLES_PER_PIXEL = 277
const PLANAR_CONFIGURATION = 284
const PREDICTOR = 317
const TILE_WIDTH = 322
const TILE_LENGTH = 323
const TILE_OFFSETS = 324
const TILE_BYTE_COUNTS = 325
const SAMPLE_FORMAT = 339

const SUBFILE_FULL_RESOLUTION = 0
const SUBFILE_REDUCED_RESOLUTION = 1
const COMPRESSION_ADOBE_DEFLATE = 8
const PHOTOMETRIC_BLACK_IS_ZERO = 1
const PLANAR_CHUNKY = 1
const PREDICTOR_FLOATING_POINT = 3
const SAMPLE_FORMAT_IEEE_FLOAT = 3

export interface LevelTiles {
  /** Offset of each tile's bytes, row-major (zeros while the layout is being planned). */
  offsets: readonly number[]
  byteCounts: readonly number[]
}

/**
 * Level 0 is the full resolution and carries the georeferencing and GDAL_METADATA; every level
 * carries GDAL_NODATA, as GDAL's own COGs do.
 */
export function levelTags(
  grid: RasterGrid,
  level: GridLevel,
  levelIndex: number,
  tiles: LevelTiles,
): TiffTag[] {
  const tags = [
    longTag(NEW_SUBFILE_TYPE, [levelIndex === 0 ? SUBFILE_FULL_RESOLUTION : SUBFILE_REDUCED_RESOLUTION]),
    longTag(IMAGE_WIDTH, [level.width]),
    longTag(IMAGE_LENGTH, [level.height]),
    shortTag(BITS_PER_SAMPLE, [32]),
    shortTag(COMPRESSION, [COMPRESSION_ADOBE_DEFLATE]),
    shortTag(PHOTOMETRIC_INTERPRETATION, [PHOTOMETRIC_BLACK_IS_ZERO]),
    shortTag(SAMPLES_PER_PIXEL, [1]),
    shortTag(PLANAR_CONFIGURATION, [PLANAR_CHUNKY]),
    shortTag(PREDICTOR, [PREDICTOR_FLOATING_POINT]),
    shortTag(TILE_WIDTH, [TILE_SIZE]),
    shortTag(TILE_LENGTH, [TILE_SIZE]),
    longTag(TILE_OFFSETS, tiles.offsets),
    longTag(TILE_BYTE_COUNTS, tiles.byteCounts),
    shortTag(SAMPLE_FORMAT, [SAMPLE_FORMAT_IEEE_FLOAT]),
    asciiTag(GDAL_NODATA_TAG, gdalNodataText(grid.nodata)),
  ]
  if (levelIndex > 0) return tags
  tags.push(
    doubleTag(MODEL_PIXEL_SCALE_TAG, modelPixelScale(grid)),
    doubleTag(MODEL_TIEPOINT_TAG, modelTiepoint(grid)),
    shortTag(GEO_KEY_DIRECTORY_TAG, wgs84GeoKeyDirectory()),
  )
  const metadata = gdalMetadataXml(grid.metadata)
  if (metadata !== null) tags.push(asciiTag(GDAL_METADATA_TAG, metadata))
  return tags
}
