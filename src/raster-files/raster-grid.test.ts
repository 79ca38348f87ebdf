import { describe, expect, it } from 'vitest'
import { encodeCloudOptimizedGeoTiff, encodeCloudOptimizedGeoTiffSync } from './cloud-optimized-geotiff.ts'
import type { RasterGrid } from './raster-grid.ts'

const VALID: RasterGrid = {
  width: 3,
  height: 2,
  west: -124.8,
  north: 49.1,
  resolution: 0.01,
  values: new Float32Array(6),
  nodata: -9999,
}

describe('a grid the writer cannot write', () => {
  const cases: [string, Partial<RasterGrid>, RegExp][] = [
    ['zero width', { width: 0, values: new Float32Array(0) }, /width must be a whole number from 1/],
    ['negative height', { height: -2 }, /height must be a whole number from 1/],
    ['fractional width', { width: 1.5 }, /width must be a whole number/],
    ['NaN height', { height: Number.NaN }, /height must be a whole number/],
    ['too few values', { values: new Float32Array(5) }, /must hold width × height = 6 values, got 5/],
    ['too many values', { values: new Float32Array(7) }, /must hold width × height = 6 values, got 7/],
    [
      'values not Float32',
      { values: new Float64Array(6) as unknown as Float32Array },
      /must be a Float32Array/,
    ],
    ['infinite resolution', { resolution: Number.POSITIVE_INFINITY }, /resolution must be a finite number/],
    ['NaN resolution', { resolution: Number.NaN }, /resolution must be a finite number/],
    ['zero resolution', { resolution: 0 }, /resolution must be a finite number of degrees > 0/],
    ['negative resolution', { resolution: -0.01 }, /resolution must be a finite number of degrees > 0/],
    ['NaN west', { west: Number.NaN }, /west and north must be finite/],
    ['infinite north', { north: Number.NEGATIVE_INFINITY }, /west and north must be finite/],
    [
      'nodata Float32 cannot hold',
      { nodata: 0.1 },
      /nodata must be NaN or a finite number that Float32 holds exactly/,
    ],
    ['infinite nodata', { nodata: Number.POSITIVE_INFINITY }, /nodata must be NaN or a finite number/],
    [
      'an infinite value',
      { values: new Float32Array([0, 0, 0, 0, Number.NEGATIVE_INFINITY, 0]) },
      /value -Infinity at column 1, row 1/,
    ],
    ['a metadata name with =', { metadata: { 'a=b': 'x' } }, /metadata name "a=b" must be letters/],
    ['a metadata name with :', { metadata: { 'a:b': 'x' } }, /metadata name "a:b" must be letters/],
    ['an empty metadata name', { metadata: { '': 'x' } }, /metadata name "" must be letters/],
    [
      'a metadata value with NUL',
      { metadata: { note: 'a\u0000b' } },
      /metadata note holds a control character/,
    ],
    [
      'an empty metadata value',
      { metadata: { note: '' } },
      /metadata note must not be empty or start with whitespace/,
    ],
    [
      'a metadata value starting with a space',
      { metadata: { note: ' x' } },
      /must not be empty or start with whitespace/,
    ],
    [
      'a metadata value starting with a newline',
      { metadata: { note: '\nx' } },
      /must not be empty or start with whitespace/,
    ],
    ['a metadata value with a lone surrogate', { metadata: { note: 'a\uD800b' } }, /lone surrogate/],
  ]

  it.each(cases)('%s: a RangeError saying what is wrong', (_, change, message) => {
    const grid = { ...VALID, ...change }
    expect(() => encodeCloudOptimizedGeoTiffSync(grid)).toThrow(RangeError)
    expect(() => encodeCloudOptimizedGeoTiffSync(grid)).toThrow(message)
  })

  it('the async encoder rejects with the same RangeError', async () => {
    await expect(encodeCloudOptimizedGeoTiff({ ...VALID, width: 0 })).rejects.toThrow(RangeError)
  })

  it('takes NaN as nodata, and tab, newline and characters beyond the BMP in metadata', () => {
    const grid = { ...VALID, nodata: Number.NaN, metadata: { note: 'a\tb\nc 🌲 ' } }
    expect(encodeCloudOptimizedGeoTiffSync(grid)).toBeInstanceOf(Buffer)
  })
})
