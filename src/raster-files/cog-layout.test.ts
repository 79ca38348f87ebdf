import { describe, expect, it } from 'vitest'
import { gdalGhostArea, planCogLayout, writeFramedTile } from './cog-layout.ts'

describe('the GDAL ghost area', () => {
  it('declares the layout, row-major blocks, leaders and trailers, with the size of what follows its first line', () => {
    const text = gdalGhostArea().toString('latin1')
    expect(text).toBe(
      'GDAL_STRUCTURAL_METADATA_SIZE=000140 bytes\n' +
        'LAYOUT=IFDS_BEFORE_DATA\nBLOCK_ORDER=ROW_MAJOR\nBLOCK_LEADER=SIZE_AS_UINT4\n' +
        'BLOCK_TRAILER=LAST_4_BYTES_REPEATED\nKNOWN_INCOMPATIBLE_EDITION=NO\n ',
    )
    expect(text.length - text.indexOf('\n') - 1).toBe(140)
  })
})

describe('planCogLayout', () => {
  it('puts the IFDs first, on an even offset after the ghost area, then the tiles smallest overview first, each framed', () => {
    const layout = planCogLayout(183, [200, 100, 50], [[10, 20], [30], [40]])
    expect(layout.ifdOffsets).toEqual([192, 392, 492])
    // data starts at 542: level 2's tile, then level 1's, then level 0's two, each with 4 + 4 bytes of frame
    expect(layout.tileOffsets).toEqual([
      [542 + 48 + 38 + 4, 542 + 48 + 38 + 18 + 4],
      [542 + 48 + 4],
      [542 + 4],
    ])
    expect(layout.fileLength).toBe(542 + 48 + 38 + 18 + 28)
  })

  it('refuses a file classic TIFF cannot address, saying so', () => {
    const tiles = [Array.from({ length: 17 }, () => 256 * 1024 * 1024)]
    expect(() => planCogLayout(140, [1000], tiles)).toThrow(RangeError)
    expect(() => planCogLayout(140, [1000], tiles)).toThrow(/over the 4294967295 a classic TIFF can address/)
    expect(() => planCogLayout(140, [1000], [[2 ** 32 - 2000]])).not.toThrow()
  })
})

describe('writeFramedTile', () => {
  it('writes the byte count before the tile and its last 4 bytes after it', () => {
    const file = Buffer.alloc(20)
    writeFramedTile(file, 4, Uint8Array.from([1, 2, 3, 4, 5, 6]))
    expect([...file.subarray(0, 14)]).toEqual([6, 0, 0, 0, 1, 2, 3, 4, 5, 6, 3, 4, 5, 6])
  })
})
