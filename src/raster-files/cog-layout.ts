import { MAX_CLASSIC_TIFF_LENGTH, TIFF_HEADER_LENGTH } from './tiff-structure.ts'

/*
 * Where everything goes in a Cloud-Optimized GeoTIFF, as GDAL's COG driver lays it out and its
 * validate_cloud_optimized_geotiff.py checks:
 *
 *   TIFF header | GDAL ghost area | IFD of the full resolution, then of each overview, largest first |
 *   tiles of the smallest overview … tiles of the full resolution, each level's tiles row-major
 *
 * The ghost area (GDAL's "structural metadata", right after the header) tells a reader this layout
 * holds, and that each tile is framed by a leader (its byte count, uint32 little-endian, in the 4
 * bytes before it) and a trailer (its last 4 bytes repeated after it), so that a reader fetching
 * tiles over HTTP can check it got whole ones. TileOffsets and TileByteCounts cover the tile alone.
 */

export const BLOCK_LEADER_LENGTH = 4
export const BLOCK_TRAILER_LENGTH = 4

/** GDAL's ghost area: a size line, then the items; the final space lets GDAL flip `NO` to `YES` in place. */
export function gdalGhostArea(): Buffer {
  const items = [
    'LAYOUT=IFDS_BEFORE_DATA',
    'BLOCK_ORDER=ROW_MAJOR',
    'BLOCK_LEADER=SIZE_AS_UINT4',
    'BLOCK_TRAILER=LAST_4_BYTES_REPEATED',
    'KNOWN_INCOMPATIBLE_EDITION=NO',
  ]
  const body = `${items.join('\n')}\n `
  const sizeLine = `GDAL_STRUCTURAL_METADATA_SIZE=${String(body.length).padStart(6, '0')} bytes\n`
  return Buffer.from(sizeLine + body, 'latin1')
}

export interface CogLayout {
  /** Offset of each level's IFD, full resolution first; the first follows the ghost area. */
  ifdOffsets: number[]
  /** Per level (full resolution first), the offset of each tile's bytes, row-major. */
  tileOffsets: number[][]
  fileLength: number
}

/**
 * Offsets for levels whose IFDs take `ifdLengths` bytes (full resolution first) and whose tiles
 * take `tileLengths`; a RangeError if the file would not fit classic TIFF's 4 GiB.
 */
export function planCogLayout(
  ghostAreaLength: number,
  ifdLengths: readonly number[],
  tileLengths: readonly (readonly number[])[],
): CogLayout {
  let position = TIFF_HEADER_LENGTH + ghostAreaLength
  position += position % 2
  const ifdOffsets = ifdLengths.map((length) => {
    const offset = position
    position += length
    return offset
  })
  const tileOffsets: number[][] = tileLengths.map(() => [])
  for (let level = tileLengths.length - 1; level >= 0; level--) {
    for (const length of tileLengths[level] as readonly number[]) {
      ;(tileOffsets[level] as number[]).push(position + BLOCK_LEADER_LENGTH)
      position += BLOCK_LEADER_LENGTH + length + BLOCK_TRAILER_LENGTH
    }
  }
  if (position > MAX_CLASSIC_TIFF_LENGTH)
    throw new RangeError(
      `the GeoTIFF would take ${position} bytes, over the ${MAX_CLASSIC_TIFF_LENGTH} a classic TIFF can address; BigTIFF is not written`,
    )
  return { ifdOffsets, tileOffsets, fileLength: position }
}

/** Writes `tile` at `offset` with its leader before it and its trailer after it. */
export function writeFramedTile(file: Buffer, offset: number, tile: Uint8Array): void {
  // A zlib stream has at least a 2-byte header and a 4-byte checksum, so there are always 4 bytes to repeat.
  if (tile.length < BLOCK_TRAILER_LENGTH)
    throw new Error(`a tile of ${tile.length} bytes has no 4-byte trailer`)
  file.writeUInt32LE(tile.length, offset - BLOCK_LEADER_LENGTH)
  file.set(tile, offset)
  file.set(tile.subarray(tile.length - BLOCK_TRAILER_LENGTH), offset + tile.length)
}
