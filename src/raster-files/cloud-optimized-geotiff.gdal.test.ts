import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seededRandom } from '../../test/support/seeded-random.ts'
import { encodeCloudOptimizedGeoTiff, encodeCloudOptimizedGeoTiffSync } from './cloud-optimized-geotiff.ts'
import type { RasterGrid } from './raster-grid.ts'

/*
 * GDAL as the judge of the files written here: Debian's gdal-bin, python3-gdal (with GDAL's COG
 * validator) and python3-rasterio. These tests fail, rather than skip, when a tool is missing.
 * `python3` first on PATH may be another interpreter, so /usr/bin/python3 is named.
 */

const GDALINFO = '/usr/bin/gdalinfo'
const GDALLOCATIONINFO = '/usr/bin/gdallocationinfo'
const PYTHON = '/usr/bin/python3'
const VALIDATOR = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py'

const run = promisify(execFile)

async function tool(command: string, args: string[], input?: string): Promise<string> {
  const child = run(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CPL_LOG: '/dev/null' },
  })
  if (input !== undefined) child.child.stdin?.end(input)
  return (await child).stdout
}

/** Reads every level back with GDAL into `<dir>/level<i>.f32` (little-endian Float32) and runs the validator in-process. */
const GDAL_READBACK = `
import json, math, sys
from osgeo import gdal
from osgeo_utils.samples import validate_cloud_optimized_geotiff as cog
gdal.UseExceptions()
path, out = sys.argv[1], sys.argv[2]
ds = gdal.Open(path)
band = ds.GetRasterBand(1)
levels = [band] + [band.GetOverview(i) for i in range(band.GetOverviewCount())]
for i, level in enumerate(levels):
    level.ReadAsArray().astype('<f4').tofile('%s/level%d.f32' % (out, i))
nodata = band.GetNoDataValue()
warnings, errors, _ = cog.validate(path, full_check=True)
print(json.dumps({
    'sizes': [[level.XSize, level.YSize] for level in levels],
    'blocks': [level.GetBlockSize() for level in levels],
    'dataTypes': [gdal.GetDataTypeName(level.DataType) for level in levels],
    'geoTransform': ds.GetGeoTransform(),
    'epsg': ds.GetSpatialRef().GetAuthorityCode(None),
    'nodata': 'nan' if nodata is not None and math.isnan(nodata) else nodata,
    'metadata': ds.GetMetadata(),
    'imageStructure': ds.GetMetadata('IMAGE_STRUCTURE'),
    'validator': {'warnings': warnings, 'errors': errors},
}))
`

const RASTERIO_INFO = `
import json, math, sys
import rasterio
with rasterio.open(sys.argv[1]) as src:
    print(json.dumps({
        'driver': src.driver,
        'epsg': src.crs.to_epsg(),
        'transform': list(src.transform)[:6],
        'nodata': 'nan' if src.nodata is not None and math.isnan(src.nodata) else src.nodata,
        'dtype': src.dtypes[0],
        'blockShapes': src.block_shapes,
        'overviews': src.overviews(1),
        'compression': src.compression.name if src.compression else None,
        'tags': src.tags(),
        'firstRow': [None if math.isnan(v) else float(v) for v in src.read(1, window=((0, 1), (0, src.width)))[0]],
    }))
`

interface GdalReadback {
  sizes: [number, number][]
  blocks: [number, number][]
  dataTypes: string[]
  geoTransform: number[]
  epsg: string
  nodata: number | 'nan' | null
  metadata: Record<string, string>
  imageStructure: Record<string, string>
  validator: { warnings: string[]; errors: string[] }
  levels: Float32Array[]
}

let dir: string
let fileCount = 0

beforeAll(async () => {
  const missing = [GDALINFO, GDALLOCATIONINFO, PYTHON, VALIDATOR].filter((path) => !existsSync(path))
  if (missing.length > 0)
    throw new Error(
      `GDAL tools missing: ${missing.join(', ')}; install Debian's gdal-bin python3-gdal python3-rasterio`,
    )
  dir = await mkdtemp(join(tmpdir(), 'cog-gdal-'))
})
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

async function writeCog(grid: RasterGrid): Promise<string> {
  const path = join(dir, `grid-${++fileCount}.tif`)
  await writeFile(path, await encodeCloudOptimizedGeoTiff(grid))
  return path
}

async function readBack(path: string): Promise<GdalReadback> {
  const out = await mkdtemp(join(dir, 'levels-'))
  const info = JSON.parse(await tool(PYTHON, ['-c', GDAL_READBACK, path, out])) as Omit<
    GdalReadback,
    'levels'
  >
  const levels = await Promise.all(
    info.sizes.map(async (_, index) => {
      const bytes = await readFile(join(out, `level${index}.f32`))
      return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)
    }),
  )
  return { ...info, levels }
}

function isNodata(value: number, nodata: number): boolean {
  return Number.isNaN(value) || value === nodata
}

/** The full resolution as it should read back: every nodata and NaN as the nodata value. */
function expectedFullResolution(grid: RasterGrid): Float32Array {
  return grid.values.map((value) => (isNodata(value, grid.nodata) ? grid.nodata : value))
}

/** The next overview as it should read back: each 2×2 block's mean over its data pixels, summed in row-major order. */
function expectedHalving(values: Float32Array, width: number, height: number, nodata: number) {
  const halfWidth = Math.ceil(width / 2)
  const halfHeight = Math.ceil(height / 2)
  const halved = new Float32Array(halfWidth * halfHeight)
  for (let y = 0; y < halfHeight; y++) {
    for (let x = 0; x < halfWidth; x++) {
      const block: number[] = []
      for (const [dx, dy] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ] as const) {
        const col = 2 * x + dx
        const row = 2 * y + dy
        if (col < width && row < height) block.push(values[row * width + col] as number)
      }
      const data = block.filter((value) => !isNodata(value, nodata))
      halved[y * halfWidth + x] =
        data.length === 0 ? nodata : data.reduce((sum, value) => sum + value, 0) / data.length
    }
  }
  return { values: halved, width: halfWidth, height: halfHeight }
}

function expectedLevels(grid: RasterGrid) {
  const levels = [{ values: expectedFullResolution(grid), width: grid.width, height: grid.height }]
  let last = levels[0] as (typeof levels)[number]
  while (last.width > 256 || last.height > 256) {
    last = expectedHalving(last.values, last.width, last.height, grid.nodata)
    levels.push(last)
  }
  return levels
}

/** null when `actual` is `expected` bit for bit (any NaN matching any NaN), else where and how they differ. */
function firstDifference(actual: Float32Array, expected: Float32Array, width: number): string | null {
  if (actual.length !== expected.length) return `${actual.length} values instead of ${expected.length}`
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] as number
    const e = expected[i] as number
    if (!(Object.is(a, e) || (Number.isNaN(a) && Number.isNaN(e))))
      return `column ${i % width}, row ${Math.floor(i / width)}: ${a} instead of ${e}`
  }
  return null
}

function expectSameLevels(readback: GdalReadback, grid: RasterGrid): void {
  const expected = expectedLevels(grid)
  expect(readback.sizes).toEqual(expected.map((level) => [level.width, level.height]))
  expected.forEach((level, index) => {
    expect(
      firstDifference(readback.levels[index] as Float32Array, level.values, level.width),
      `level ${index}`,
    ).toBeNull()
  })
}

const NODATA = -9999

/** 700×530 (not a multiple of 256): a smooth field with fine detail, a nodata disc, a nodata strip and scattered NaNs. */
function patternGrid(): RasterGrid {
  const width = 700
  const height = 530
  const values = new Float32Array(width * height)
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const inDisc = (col - 200) ** 2 + (row - 300) ** 2 < 90 ** 2
      const inStrip = col >= 640 && row < 100
      const scatteredNaN = (col * 31 + row * 17) % 97 === 0
      values[row * width + col] =
        inDisc || inStrip
          ? NODATA
          : scatteredNaN
            ? Number.NaN
            : 0.5 + 0.4 * Math.sin(col / 37) * Math.cos(row / 23) + (col * 7 + row * 13) * 1e-7
    }
  }
  return {
    width,
    height,
    west: -124.8,
    north: 49.1,
    resolution: 0.01,
    values,
    nodata: NODATA,
    metadata: {
      species: 'Pseudotsuga menziesii',
      method: 'kaplan-meier',
      horizon: '10',
      note: 'a < b & "c"',
    },
  }
}

describe('a Cloud-Optimized GeoTIFF read by GDAL', () => {
  const grid = patternGrid()
  let path: string

  beforeAll(async () => {
    path = await writeCog(grid)
  })

  it('passes validate_cloud_optimized_geotiff.py with no warning and no error, full check or not', async () => {
    for (const options of [[], ['--full-check=yes'], ['--full-check=no']]) {
      const output = await tool(PYTHON, [VALIDATOR, ...options, path])
      expect(output).toMatch(
        new RegExp(
          `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a valid cloud optimized GeoTIFF\n\nThe size of all IFD headers is \\d+ bytes\n$`,
        ),
      )
    }
  })

  it('gdalinfo reports the tiles, overviews, compression, nodata, EPSG:4326, geotransform, corners and metadata', async () => {
    const info = JSON.parse(await tool(GDALINFO, ['-json', path]))
    // reading every tile of every level (-checksum) with no warning from GDAL or libtiff
    expect((await run(GDALINFO, ['-checksum', path], { encoding: 'utf8' })).stderr).toBe('')
    expect(info.driverShortName).toBe('GTiff')
    expect(info.size).toEqual([700, 530])
    expect(info.geoTransform).toEqual([-124.8, 0.01, 0, 49.1, 0, -0.01])
    expect(info.coordinateSystem.wkt).toMatch(/ID\["EPSG",4326\]\]$/)
    expect(info.metadata['']).toEqual({ ...grid.metadata, AREA_OR_POINT: 'Area' })
    expect(info.metadata.IMAGE_STRUCTURE).toEqual({
      COMPRESSION: 'DEFLATE',
      INTERLEAVE: 'BAND',
      LAYOUT: 'COG',
      PREDICTOR: '3',
    })
    const [band] = info.bands
    expect(band).toMatchObject({
      band: 1,
      block: [256, 256],
      type: 'Float32',
      colorInterpretation: 'Gray',
      noDataValue: -9999,
      overviews: [{ size: [350, 265] }, { size: [175, 133] }],
    })
    const corners = info.cornerCoordinates
    expect(corners.upperLeft).toEqual([-124.8, 49.1])
    expect(corners.lowerRight[0]).toBeCloseTo(-124.8 + 7, 12)
    expect(corners.lowerRight[1]).toBeCloseTo(49.1 - 5.3, 12)
  })

  it('gdallocationinfo gives the value written at random pixel centres, and nodata where there is none', async () => {
    const random = seededRandom(20240611)
    const pixels = Array.from(
      { length: 50 },
      () => [Math.floor(random() * 700), Math.floor(random() * 530)] as const,
    )
    pixels.push([200, 300], [699, 0], [0, 529], [699, 529], [0, 0])
    const scatteredNaN = pixels.findIndex(([col, row]) => Number.isNaN(grid.values[row * 700 + col]))
    if (scatteredNaN < 0) pixels.push([97, 0]) // (97·31) % 97 = 0: a NaN pixel
    const centres = pixels.map(([col, row]) => `${-124.8 + (col + 0.5) * 0.01} ${49.1 - (row + 0.5) * 0.01}`)
    const output = await tool(GDALLOCATIONINFO, ['-valonly', '-geoloc', path], `${centres.join('\n')}\n`)
    const read = output.trimEnd().split('\n').map(Number)
    const expected = pixels.map(([col, row]) => {
      const value = grid.values[row * 700 + col] as number
      return isNodata(value, NODATA) ? NODATA : value
    })
    expect(read.map((value) => Math.fround(value))).toEqual(expected)
    expect(expected.filter((value) => value === NODATA).length).toBeGreaterThanOrEqual(2)
  })

  it('reads back every pixel of the full resolution and of each overview exactly (nodata-aware 2×2 means)', async () => {
    const readback = await readBack(path)
    expect(readback.blocks).toEqual([
      [256, 256],
      [256, 256],
      [256, 256],
    ])
    expect(readback.dataTypes).toEqual(['Float32', 'Float32', 'Float32'])
    expect(readback.geoTransform).toEqual([-124.8, 0.01, 0, 49.1, 0, -0.01])
    expect(readback.epsg).toBe('4326')
    expect(readback.nodata).toBe(NODATA)
    expect(readback.validator).toEqual({ warnings: [], errors: [] })
    expectSameLevels(readback, grid)
    // the disc's inside stays nodata in the overviews, its edge is averaged over data pixels only
    const overview = readback.levels[1] as Float32Array
    expect(overview[150 * 350 + 100]).toBe(NODATA)
  })

  it('rasterio opens it: EPSG:4326, the transform, nodata, Float32 tiles, Deflate and the overview factors', async () => {
    const info = JSON.parse(await tool(PYTHON, ['-c', RASTERIO_INFO, path]))
    expect(info).toMatchObject({
      driver: 'GTiff',
      epsg: 4326,
      transform: [0.01, 0, -124.8, 0, -0.01, 49.1],
      nodata: NODATA,
      dtype: 'float32',
      blockShapes: [[256, 256]],
      overviews: [2, 4],
      compression: 'deflate',
      tags: { ...grid.metadata, AREA_OR_POINT: 'Area' },
    })
    expect(info.firstRow).toEqual(Array.from(expectedFullResolution(grid).subarray(0, 700)))
  })

  it('gives the same bytes each time, from the async and the sync encoder', async () => {
    const first = await encodeCloudOptimizedGeoTiff(grid)
    const second = await encodeCloudOptimizedGeoTiff(grid)
    expect(first.equals(second)).toBe(true)
    expect(encodeCloudOptimizedGeoTiffSync(grid).equals(first)).toBe(true)
    expect(first.equals(await readFile(path))).toBe(true)
  })
})

describe('edge cases read by GDAL', () => {
  it('NaN as nodata: GDAL_NODATA is nan and nodata pixels read back as NaN', async () => {
    const values = Float32Array.from({ length: 300 * 10 }, (_, i) => (i % 3 === 0 ? Number.NaN : i / 7))
    const grid: RasterGrid = {
      width: 300,
      height: 10,
      west: -120,
      north: 46,
      resolution: 0.005,
      values,
      nodata: Number.NaN,
    }
    const path = await writeCog(grid)
    const readback = await readBack(path)
    expect(readback.nodata).toBe('nan')
    expect(readback.validator).toEqual({ warnings: [], errors: [] })
    expectSameLevels(readback, grid)
    const info = JSON.parse(await tool(GDALINFO, ['-json', path]))
    expect(info.bands[0].noDataValue).toBe('NaN')
  })

  it('a single pixel, one full tile and one tile and a pixel', async () => {
    for (const [width, height] of [
      [1, 1],
      [256, 256],
      [257, 257],
    ] as const) {
      const values = Float32Array.from({ length: width * height }, (_, i) => (i % 5 === 0 ? NODATA : i))
      const grid: RasterGrid = {
        width,
        height,
        west: -121,
        north: 45,
        resolution: 0.25,
        values,
        nodata: NODATA,
      }
      const readback = await readBack(await writeCog(grid))
      expect(readback.validator).toEqual({ warnings: [], errors: [] })
      expectSameLevels(readback, grid)
    }
  })

  it('metadata GDAL reads back as given: escapes, non-ASCII, newlines and trailing spaces', async () => {
    const metadata = {
      tricky: '<a href="x">&amp; \'q\' &#38; &lt;</a> ',
      species: 'Douglas‑fir — 🌲',
      lines: 'one\ntwo\r\nthree\tfour\n',
    }
    const grid: RasterGrid = {
      width: 2,
      height: 2,
      west: 0,
      north: 0,
      resolution: 1,
      values: new Float32Array(4),
      nodata: NODATA,
      metadata,
    }
    const readback = await readBack(await writeCog(grid))
    expect(readback.metadata).toEqual({ ...metadata, AREA_OR_POINT: 'Area' })
  })
})

describe('random grids round-trip through GDAL', () => {
  it('any size from 1 to 600, any nodata share, NaN or not as nodata', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          width: fc.integer({ min: 1, max: 600 }),
          height: fc.integer({ min: 1, max: 600 }),
          nodataShare: fc.double({ min: 0, max: 1, noNaN: true }),
          nodata: fc.constantFrom(-9999, 0, Number.NaN, -3.4028234663852886e38),
          west: fc.double({ min: -180, max: 179, noNaN: true }),
          north: fc.double({ min: -89, max: 90, noNaN: true }),
          resolution: fc.double({ min: 1e-4, max: 1, noNaN: true }),
          seed: fc.integer(),
        }),
        async ({ width, height, nodataShare, nodata, west, north, resolution, seed }) => {
          const random = seededRandom(seed)
          const values = Float32Array.from({ length: width * height }, () => {
            const draw = random()
            if (draw < nodataShare) return random() < 0.2 ? Number.NaN : nodata
            return (random() - 0.3) * 10 ** Math.floor(random() * 8 - 4)
          })
          const grid: RasterGrid = { width, height, west, north, resolution, values, nodata }
          const readback = await readBack(await writeCog(grid))
          expect(readback.validator).toEqual({ warnings: [], errors: [] })
          // + 0 on both sides: a −0 tie point reads back as −0, which toEqual tells from 0
          expect(readback.geoTransform.map((value: number) => value + 0)).toEqual([
            west + 0,
            resolution,
            0,
            north + 0,
            0,
            -resolution,
          ])
          expect(readback.epsg).toBe('4326')
          expect(readback.nodata).toBe(Number.isNaN(nodata) ? 'nan' : nodata)
          expectSameLevels(readback, grid)
        },
      ),
      { numRuns: 15 },
    )
  })
})
