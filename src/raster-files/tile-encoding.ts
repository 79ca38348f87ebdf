import { promisify } from 'node:util'
import { deflate, deflateSync } from 'node:zlib'
import { type GridLevel, isNodataValue } from './raster-grid.ts'

/*
 * Cutting a grid level into 256×256 tiles and encoding each as the TIFF stores it: Float32 samples
 * through the floating-point predictor (Predictor = 3), then Deflate (Compression = 8, a zlib stream).
 */

export const TILE_SIZE = 256

const deflateAsync = promisify(deflate)

// zlib's default: on a smooth 1700×1450 test surface, level 9 made the tiles 1% smaller in 3.4 times the time.
const DEFLATE_LEVEL = 6

export function tileColumns(level: GridLevel): number {
  return Math.ceil(level.width / TILE_SIZE)
}

export function tileRows(level: GridLevel): number {
  return Math.ceil(level.height / TILE_SIZE)
}

/**
 * The values of tile (tileX, tileY), TILE_SIZE × TILE_SIZE row by row, with NaN written as `nodata` and
 * the part beyond the level's edge filled with `nodata`.
 */
export function cutTile(level: GridLevel, tileX: number, tileY: number, nodata: number): Float32Array {
  const tile = new Float32Array(TILE_SIZE * TILE_SIZE).fill(nodata)
  const firstCol = tileX * TILE_SIZE
  const firstRow = tileY * TILE_SIZE
  const cols = Math.min(TILE_SIZE, level.width - firstCol)
  const rows = Math.min(TILE_SIZE, level.height - firstRow)
  for (let row = 0; row < rows; row++) {
    const from = (firstRow + row) * level.width + firstCol
    for (let col = 0; col < cols; col++) {
      const value = level.values[from + col] as number
      tile[row * TILE_SIZE + col] = isNodataValue(value, nodata) ? nodata : value
    }
  }
  return tile
}

/**
 * The floating-point predictor of Adobe's TIFF Technical Note 3, as libtiff decodes it: each row's
 * values are split into byte planes, most significant byte first (whatever the file's byte order),
 * and every byte of the row after the first is replaced by its difference from the byte before it.
 */
export function applyFloatingPointPredictor(values: Float32Array, rowLength: number): Uint8Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length)
  const bytes = new Uint8Array(values.length * 4)
  for (let rowStart = 0; rowStart < values.length; rowStart += rowLength) {
    const rowEnd = rowStart + rowLength
    // One pass per plane, differencing as it goes: a plane's first byte follows the previous plane's last.
    let previous = 0
    let at = rowStart * 4
    for (let shift = 24; shift >= 0; shift -= 8) {
      for (let i = rowStart; i < rowEnd; i++) {
        const byte = ((bits[i] as number) >>> shift) & 0xff
        bytes[at++] = (byte - previous) & 0xff
        previous = byte
      }
    }
  }
  return bytes
}

/** Every tile of `level`, row-major, through the predictor: what is deflated next. */
export function predictedLevelTiles(level: GridLevel, nodata: number): Uint8Array[] {
  const tiles: Uint8Array[] = []
  for (let tileY = 0; tileY < tileRows(level); tileY++) {
    for (let tileX = 0; tileX < tileColumns(level); tileX++)
      tiles.push(applyFloatingPointPredictor(cutTile(level, tileX, tileY, nodata), TILE_SIZE))
  }
  return tiles
}

/** A predicted tile deflated into the bytes TileOffsets point at. */
export function deflateTileSync(predicted: Uint8Array): Buffer {
  return deflateSync(predicted, { level: DEFLATE_LEVEL })
}

/** As deflateTileSync, on libuv's thread pool: the same bytes, without holding the event loop. */
export function deflateTile(predicted: Uint8Array): Promise<Buffer> {
  return deflateAsync(predicted, { level: DEFLATE_LEVEL })
}
