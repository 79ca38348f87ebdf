import { describe, expect, it } from 'vitest'
import { halveByDataMean, overviewLevels } from './overviews.ts'

const N = -9999

describe('halveByDataMean', () => {
  it('averages each 2×2 block over its data values only; an all-nodata block stays nodata', () => {
    // biome-ignore format: the values laid out as the grid
    const values = new Float32Array([
      1, 2,   N, N,
      3, 4,   N, Number.NaN,
      5, N,   N, 8,
      N, N,   N, N,
    ])
    const halved = halveByDataMean({ width: 4, height: 4, values }, N)
    expect(halved.width).toBe(2)
    expect(halved.height).toBe(2)
    expect([...halved.values]).toEqual([2.5, N, 5, 8])
  })

  it('rounds ceil(size / 2) and counts pixels beyond an odd edge as nodata', () => {
    // biome-ignore format: the values laid out as the grid
    const values = new Float32Array([
      1, 3, 10,
      5, 7, 20,
      2, 4, 30,
    ])
    const halved = halveByDataMean({ width: 3, height: 3, values }, N)
    expect(halved).toMatchObject({ width: 2, height: 2 })
    expect([...halved.values]).toEqual([4, 15, 3, 30])
  })

  it('rounds the float64 mean to Float32', () => {
    const halved = halveByDataMean({ width: 2, height: 1, values: new Float32Array([0.1, 0.2]) }, N)
    expect(halved.values[0]).toBe(Math.fround((Math.fround(0.1) + Math.fround(0.2)) / 2))
  })

  it('works with NaN as nodata', () => {
    const halved = halveByDataMean(
      { width: 2, height: 2, values: new Float32Array([Number.NaN, 2, 4, Number.NaN]) },
      Number.NaN,
    )
    expect([...halved.values]).toEqual([3])
    const empty = halveByDataMean({ width: 1, height: 1, values: new Float32Array([Number.NaN]) }, Number.NaN)
    expect(empty.values[0]).toBeNaN()
  })
})

describe('overviewLevels', () => {
  const sizes = (width: number, height: number) =>
    overviewLevels({ width, height, values: new Float32Array(width * height) }, N, 256).map(
      (level) => `${level.width}x${level.height}`,
    )

  it('halves until a level fits in one 256×256 tile', () => {
    expect(sizes(256, 256)).toEqual([])
    expect(sizes(1, 1)).toEqual([])
    expect(sizes(257, 1)).toEqual(['129x1'])
    expect(sizes(700, 530)).toEqual(['350x265', '175x133'])
    expect(sizes(840, 720)).toEqual(['420x360', '210x180'])
    expect(sizes(1700, 1450)).toEqual(['850x725', '425x363', '213x182'])
  })

  it('makes each level from the one before it', () => {
    const values = new Float32Array(600 * 300).map((_, index) => index % 7)
    const [first, second] = overviewLevels({ width: 600, height: 300, values }, N, 256)
    expect(second).toEqual(halveByDataMean(first as never, N))
  })
})
