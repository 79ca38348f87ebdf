/**
 * A north-up grid of Float32 values in EPSG:4326 (longitude, latitude in degrees): what the
 * Cloud-Optimized GeoTIFF writer takes, and the checks it makes before writing anything.
 */
export interface RasterGrid {
  /** Columns, a whole number ≥ 1. */
  width: number
  /** Rows, a whole number ≥ 1. */
  height: number
  /** Longitude of the west edge of the first column (the pixel's edge, not its centre). */
  west: number
  /** Latitude of the north edge of the first row. */
  north: number
  /** Degrees per pixel, the same along both axes. */
  resolution: number
  /** width × height values, row by row, the northmost row first. NaN and `nodata` mean no data. */
  values: Float32Array
  /** The value written where there is no data (e.g. -9999); NaN is allowed. */
  nodata: number
  /**
   * Items for GDAL_METADATA. Names are letters, digits, `_`, `.` and `-`, starting with a letter or
   * `_`; values are not empty, do not start with whitespace and hold no control character but tab,
   * LF and CR.
   */
  metadata?: Record<string, string>
}

/** A grid level as the writer handles it: the full resolution or one of its overviews. */
export interface GridLevel {
  width: number
  height: number
  values: Float32Array
}

/** TIFF stores sizes as LONG; classic TIFF cannot hold a file of 4 GiB or more anyway. */
const MAX_DIMENSION = 0xffff_ffff

// GDAL reads GDAL_METADATA items back as `name=value` lines split at the first `=` or `:`,
// so a name must contain neither; the narrow set below also keeps XML attribute escaping trivial.
const METADATA_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/
/** XML 1.0's Char production: no other character can be in the document, escaped or not. */
function isXmlCharacter(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    codePoint >= 0x10000
  )
}

export function isNodataValue(value: number, nodata: number): boolean {
  return value === nodata || Number.isNaN(value)
}

/** Throws a RangeError naming the first thing about `grid` that cannot be written. */
export function assertWritableGrid(grid: RasterGrid): void {
  const { width, height, west, north, resolution, values, nodata, metadata } = grid
  for (const [name, size] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(size) || size < 1 || size > MAX_DIMENSION)
      throw new RangeError(`raster ${name} must be a whole number from 1 to ${MAX_DIMENSION}, got ${size}`)
  }
  if (!(values instanceof Float32Array)) throw new RangeError('raster values must be a Float32Array')
  if (values.length !== width * height)
    throw new RangeError(
      `raster values must hold width × height = ${width * height} values, got ${values.length}`,
    )
  if (!Number.isFinite(resolution) || resolution <= 0)
    throw new RangeError(`raster resolution must be a finite number of degrees > 0, got ${resolution}`)
  if (!Number.isFinite(west) || !Number.isFinite(north))
    throw new RangeError(`raster west and north must be finite, got west ${west}, north ${north}`)
  if (!(Number.isNaN(nodata) || (Number.isFinite(nodata) && Math.fround(nodata) === nodata)))
    throw new RangeError(
      `raster nodata must be NaN or a finite number that Float32 holds exactly, got ${nodata}`,
    )
  const infinite = values.findIndex(
    (value) => value === Number.POSITIVE_INFINITY || value === Number.NEGATIVE_INFINITY,
  )
  if (infinite >= 0)
    throw new RangeError(
      `raster values must be finite, NaN or nodata; value ${values[infinite]} at column ${infinite % width}, row ${Math.floor(infinite / width)}`,
    )
  for (const [name, value] of Object.entries(metadata ?? {})) {
    if (!METADATA_NAME.test(name))
      throw new RangeError(
        `raster metadata name ${JSON.stringify(name)} must be letters, digits, '_', '.' or '-', starting with a letter or '_'`,
      )
    if (typeof value !== 'string') throw new RangeError(`raster metadata ${name} must be a string`)
    // GDAL drops an empty item and trims the whitespace that starts one when it reads GDAL_METADATA.
    if (value === '' || /^[ \t\n\r]/.test(value))
      throw new RangeError(
        `raster metadata ${name} must not be empty or start with whitespace, which GDAL drops`,
      )
    if (![...value].every((character) => isXmlCharacter(character.codePointAt(0) as number)))
      throw new RangeError(
        `raster metadata ${name} holds a control character or lone surrogate XML cannot carry`,
      )
  }
}
