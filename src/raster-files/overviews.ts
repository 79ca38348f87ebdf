import { type GridLevel, isNodataValue } from './raster-grid.ts'

/**
 * Overview levels for a COG: each halves the one before it by the mean of every 2×2 block's values
 * that are data (nodata and NaN ignored; a block with none stays nodata), until a level fits in one
 * tile. A level of odd size has a last column or row of half blocks, whose missing pixels count as
 * nodata, so the overview is ceil(width / 2) × ceil(height / 2).
 *
 * Each level is made from the one before it (a mean of means, as GDAL's own pyramid does), which
 * weighs a block by its data count only at the first halving.
 */
export function overviewLevels(fullResolution: GridLevel, nodata: number, tileSize: number): GridLevel[] {
  const levels: GridLevel[] = []
  let level = fullResolution
  while (level.width > tileSize || level.height > tileSize) {
    level = halveByDataMean(level, nodata)
    levels.push(level)
  }
  return levels
}

/** The 2×2 data mean of `level` (see overviewLevels), summed in float64 in row-major order. */
export function halveByDataMean(level: GridLevel, nodata: number): GridLevel {
  const { width, height, values } = level
  const halfWidth = Math.ceil(width / 2)
  const halfHeight = Math.ceil(height / 2)
  const halved = new Float32Array(halfWidth * halfHeight)
  for (let row = 0; row < halfHeight; row++) {
    const lastY = Math.min(2 * row + 2, height)
    for (let col = 0; col < halfWidth; col++) {
      const lastX = Math.min(2 * col + 2, width)
      let sum = 0
      let count = 0
      for (let y = 2 * row; y < lastY; y++) {
        for (let x = 2 * col; x < lastX; x++) {
          const value = values[y * width + x] as number
          if (!isNodataValue(value, nodata)) {
            sum += value
            count++
          }
        }
      }
      halved[row * halfWidth + col] = count === 0 ? nodata : sum / count
    }
  }
  return { width: halfWidth, height: halfHeight, values: halved }
}
