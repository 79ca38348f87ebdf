import { inflateSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  applyFloatingPointPredictor,
  cutTile,
  deflateTile,
  deflateTileSync,
  predictedLevelTiles,
  TILE_SIZE,
} from './tile-encoding.ts'

/** What a TIFF reader does with Predictor = 3, row by row: undo the differences, then gather the planes. */
function undoFloatingPointPredictor(bytes: Uint8Array, rowLength: number): Float32Array {
  const rowBytes = rowLength * 4
  const values = new Float32Array(bytes.length / 4)
  const view = new DataView(values.buffer)
  for (let base = 0; base < bytes.length; base += rowBytes) {
    const row = bytes.slice(base, base + rowBytes)
    for (let i = 1; i < rowBytes; i++) row[i] = ((row[i] as number) + (row[i - 1] as number)) & 0xff
    for (let i = 0; i < rowLength; i++) {
      const bigEndian = [0, 1, 2, 3].map((plane) => row[plane * rowLength + i] as number)
      view.setUint8((base / 4 + i) * 4, bigEndian[0] as number)
      view.setUint8((base / 4 + i) * 4 + 1, bigEndian[1] as number)
      view.setUint8((base / 4 + i) * 4 + 2, bigEndian[2] as number)
      view.setUint8((base / 4 + i) * 4 + 3, bigEndian[3] as number)
      values[base / 4 + i] = view.getFloat32((base / 4 + i) * 4, false)
    }
  }
  return values
}

describe('the floating-point predictor', () => {
  it('splits a row into byte planes, most significant first, then differences every byte', () => {
    // 1.0 = 3F800000, 2.0 = 40000000: planes 3F 40 | 80 00 | 00 00 | 00 00
    const predicted = applyFloatingPointPredictor(new Float32Array([1, 2]), 2)
    expect([...predicted]).toEqual([0x3f, 0x01, 0x40, 0x80, 0x00, 0x00, 0x00, 0x00])
  })

  it('starts each row afresh', () => {
    const predicted = applyFloatingPointPredictor(new Float32Array([1, 2, 1, 2]), 2)
    expect([...predicted.subarray(8)]).toEqual([...predicted.subarray(0, 8)])
  })

  it('is undone exactly by the reader, NaN, negative zero and subnormals included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.float({ noDefaultInfinity: false }), { minLength: 128, maxLength: 128 }),
        (rowLength, rows, pool) => {
          const values = Float32Array.from(
            { length: rowLength * rows },
            (_, i) => pool[i % pool.length] as number,
          )
          const back = undoFloatingPointPredictor(applyFloatingPointPredictor(values, rowLength), rowLength)
          expect(Buffer.from(back.buffer)).toEqual(Buffer.from(values.buffer))
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('cutting tiles', () => {
  const level = { width: 300, height: 260, values: new Float32Array(300 * 260).map((_, i) => i) }

  it('pads the part of an edge tile beyond the grid with nodata', () => {
    const tile = cutTile(level, 1, 1, -9999)
    expect(tile.length).toBe(TILE_SIZE * TILE_SIZE)
    expect(tile[0]).toBe(256 * 300 + 256)
    expect(tile[43]).toBe(256 * 300 + 299)
    expect(tile[44]).toBe(-9999)
    expect(tile[3 * TILE_SIZE + 43]).toBe(259 * 300 + 299)
    expect(tile[4 * TILE_SIZE]).toBe(-9999)
    expect(tile.filter((value) => value !== -9999).length).toBe(44 * 4)
  })

  it('writes NaN as the nodata value', () => {
    const withNaN = { width: 2, height: 1, values: new Float32Array([Number.NaN, 5]) }
    const tile = cutTile(withNaN, 0, 0, -9999)
    expect([tile[0], tile[1], tile[2]]).toEqual([-9999, 5, -9999])
  })

  it('lists a level’s tiles row-major, and deflates them to zlib streams, the same bytes sync or async', async () => {
    const tiles = predictedLevelTiles(level, -9999)
    expect(tiles).toHaveLength(4)
    const cut = cutTile(level, 1, 0, -9999)
    const back = undoFloatingPointPredictor(tiles[1] as Uint8Array, TILE_SIZE)
    expect(Buffer.from(back.buffer).equals(Buffer.from(cut.buffer))).toBe(true)
    const deflated = deflateTileSync(tiles[1] as Uint8Array)
    expect(deflated[0]).toBe(0x78) // zlib header: Deflate, 32 KiB window
    expect(inflateSync(deflated).equals(tiles[1] as Uint8Array)).toBe(true)
    expect((await deflateTile(tiles[1] as Uint8Array)).equals(deflated)).toBe(true)
  })
})
