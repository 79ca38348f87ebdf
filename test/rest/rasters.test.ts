import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COVERAGE_EXTENT } from '../../src/domain/features/feature-collections.ts'
import { gridOverBox } from '../../src/domain/rasters/pixel-grid.ts'
import { NO_SITE, PixelSiteFinder } from '../../src/domain/rasters/pixel-sites.ts'
import { isInCoverage } from '../../src/geo/coverage.ts'
import { loadOpenApiDocument, OpenApiValidator } from '../openapi/openapi-validator.ts'
import { calibrationSurveys } from '../support/calibration-surveys.ts'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { seededRandom } from '../support/seeded-random.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'
import { expectError, expectInvalidRequest, post, rest } from './client.ts'

/*
 * GET /v1/rasters/survival.tif against real PostgreSQL and Redis, judged by GDAL and rasterio (Debian's
 * gdal-bin, python3-gdal and python3-rasterio; `python3` first on PATH may be another interpreter, so
 * /usr/bin/python3 is named): a valid COG whose every pixel is what POST /v1/predict answers at its
 * centre, read in place over HTTP for one counted request.
 */

const GDALINFO = '/usr/bin/gdalinfo'
const GDALLOCATIONINFO = '/usr/bin/gdallocationinfo'
const PYTHON = '/usr/bin/python3'
const VALIDATOR = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py'
const PATH = '/v1/rasters/survival.tif'
const NODATA = -9999

const run = promisify(execFile)

async function tool(command: string, args: string[], options: { input?: string; env?: object } = {}) {
  const child = run(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CPL_LOG: '/dev/null', ...options.env },
  })
  if (options.input !== undefined) child.child.stdin?.end(options.input)
  return (await child).stdout
}

let db: TestDatabase
let server: TestServer
let key: string
let dir: string
let validator: OpenApiValidator

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({ calibrationWaitMs: 60_000 }))
  dir = await mkdtemp(join(tmpdir(), 'rasters-'))
  validator = new OpenApiValidator(loadOpenApiDocument())
})

afterAll(async () => {
  await stopSeededServer({ db, server })
  if (dir) await rm(dir, { recursive: true, force: true })
})

interface RasterAnswer {
  status: number
  headers: Headers
  bytes: Buffer
  // biome-ignore lint/suspicious/noExplicitAny: error bodies are read freely
  body: any
  text: string
}

/** A request to a raster path, its answer checked against schema/openapi.yaml as the REST client checks. */
async function fetchRaster(
  target: string,
  options: { key?: string | null; method?: 'GET' | 'HEAD' | 'POST'; headers?: Record<string, string> } = {},
): Promise<RasterAnswer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== null) headers['x-api-key'] = options.key ?? key
  const method = options.method ?? 'GET'
  const response = await fetch(`${server.url}${target}`, { method, headers })
  const bytes = Buffer.from(await response.arrayBuffer())
  const json = /json/.test(response.headers.get('content-type') ?? '')
  const text = json ? bytes.toString('utf8') : ''
  const answer = {
    status: response.status,
    headers: response.headers,
    bytes,
    text,
    body: json && text !== '' ? JSON.parse(text) : undefined,
  }
  // A HEAD has no body to check; checkExchange knows that only of documented paths.
  const problems =
    method === 'HEAD' && answer.status === 404
      ? validator.checkComponent('NotFound', answer, { withBody: false })
      : validator.checkExchange(method, target, answer)
  if (problems.length > 0)
    throw new Error(
      `${method} ${target} → ${answer.status} does not conform:\n  ${problems.join('\n  ')}\n${text}`,
    )
  return answer
}

const rasterPath = (query: Record<string, string | number>) =>
  `${PATH}?${new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]))}`

const PSME_5 = { species: 'PSME', method: 'manual', horizon: 5 }

/** Downloads a raster into the test's folder. */
async function download(
  query: Record<string, string | number>,
  name: string,
  withKey = key,
): Promise<string> {
  const answer = await fetchRaster(rasterPath(query), { key: withKey })
  expect(answer.status, answer.text).toBe(200)
  const file = join(dir, name)
  await writeFile(file, answer.bytes)
  return file
}

const RASTERIO_INFO = `
import json, math, sys
import rasterio
with rasterio.open(sys.argv[1]) as src:
    print(json.dumps({
        'driver': src.driver, 'epsg': src.crs.to_epsg(), 'transform': list(src.transform)[:6],
        'width': src.width, 'height': src.height, 'nodata': src.nodata, 'dtype': src.dtypes[0],
        'blockShapes': src.block_shapes, 'overviews': src.overviews(1), 'tags': src.tags(),
    }))
`

interface RasterioInfo {
  driver: string
  epsg: number
  transform: number[]
  width: number
  height: number
  nodata: number
  dtype: string
  blockShapes: number[][]
  overviews: number[]
  tags: Record<string, string>
}

const rasterio = async (file: string) =>
  JSON.parse(await tool(PYTHON, ['-c', RASTERIO_INFO, file])) as RasterioInfo

interface PixelCentre {
  longitude: number
  latitude: number
}

/** `count` pixel centres drawn at random (seeded) from the grid of `info`, as the docs define them. */
function pixelCentres(info: RasterioInfo, count: number, seed: number): PixelCentre[] {
  const [resolution, , west, , , north] = info.transform as [number, number, number, number, number, number]
  const next = seededRandom(seed)
  return Array.from({ length: count }, () => {
    const column = Math.floor(next() * info.width)
    const row = Math.floor(next() * info.height)
    return { longitude: west + (column + 0.5) * resolution, latitude: north - (row + 0.5) * resolution }
  })
}

/** GDAL's value at each point, read by one gdallocationinfo (points on stdin). */
async function gdalValues(
  source: string,
  points: readonly PixelCentre[],
  env: object = {},
): Promise<number[]> {
  const input = points.map((p) => `${p.longitude} ${p.latitude}\n`).join('')
  const out = await tool(GDALLOCATIONINFO, ['-valonly', '-wgs84', source], { input, env })
  const values = out.trim().split('\n').map(Number)
  expect(values).toHaveLength(points.length)
  return values
}

/**
 * Every sampled pixel is what POST /v1/predict answers at its centre: the Float32 of its survival, from
 * the same matched site; nodata where predict finds no site or the point is out of coverage.
 */
async function expectPixelsArePredictions(
  file: string,
  predictBody: Record<string, unknown>,
  seed: number,
  withKey = key,
) {
  const info = await rasterio(file)
  const points = pixelCentres(info, 50, seed)
  const values = await gdalValues(file, points)
  const outcomes = { valued: 0, noData: 0, outside: 0 }
  for (const [i, point] of points.entries()) {
    const answer = await post(server.url, '/v1/predict', { ...predictBody, ...point }, withKey)
    const value = values[i] as number
    if (answer.status === 200) {
      const [prediction] = answer.body.predictions
      // gdallocationinfo prints 15 digits: enough to give back the Float32 exactly.
      expect(Math.fround(value), JSON.stringify(point)).toBe(Math.fround(prediction.survival_probability))
      expect(await pixelSiteAt(point), JSON.stringify(point)).toEqual({
        latitude: answer.body.site.matched_latitude,
        longitude: answer.body.site.matched_longitude,
      })
      outcomes.valued++
    } else {
      const code = expectError(answer, 422, answer.body.error.code).code
      expect(['no_nearby_data', 'outside_coverage']).toContain(code)
      expect(value, JSON.stringify(point)).toBe(NODATA)
      if (code === 'no_nearby_data') outcomes.noData++
      else outcomes.outside++
    }
  }
  // The sample reaches forest, gaps in the data and places out of coverage alike.
  expect(outcomes.valued).toBeGreaterThan(10)
  expect(outcomes.noData + outcomes.outside).toBeGreaterThan(5)
  return outcomes
}

/**
 * The site each pixel is drawn from, found as the service finds it (every site of the table by id,
 * the raster's grid, the same finder): compared with predict's matched site, it shows that a pixel's
 * site is predict's, not only its value.
 */
let siteTables: Promise<(point: PixelCentre) => PixelCentre | null> | undefined
function pixelSiteAt(point: PixelCentre): Promise<PixelCentre | null> {
  siteTables ??= (async () => {
    const sites = await db.sql<PixelCentre[]>`SELECT latitude, longitude FROM sites ORDER BY id`
    const grid = gridOverBox(COVERAGE_EXTENT, 0.01)
    const table = await new PixelSiteFinder(sites).find(grid, 10, isInCoverage)
    return ({ latitude, longitude }: PixelCentre) => {
      const column = Math.floor((longitude - grid.west) / grid.resolution)
      const row = Math.floor((grid.north - latitude) / grid.resolution)
      const site = table[row * grid.width + column] as number
      return site === NO_SITE ? null : (sites[site] as PixelCentre)
    }
  })()
  return siteTables.then((siteAt) => siteAt(point))
}

describe('GET /v1/rasters/survival.tif: the file', () => {
  let file: string

  beforeAll(async () => {
    file = await download(PSME_5, 'psme-manual-5.tif')
  })

  it('passes GDAL’s COG validator without a warning', async () => {
    const out = await tool(PYTHON, [VALIDATOR, file])
    expect(out).toContain('is a valid cloud optimized GeoTIFF')
    expect(out).not.toMatch(/warning/i)
  })

  it('is what gdalinfo expects: 256×256 blocks, overviews, DEFLATE, nodata, EPSG:4326 and what a pixel is', async () => {
    const info = JSON.parse(await tool(GDALINFO, ['-json', file]))
    const [band] = info.bands
    expect(info.size).toEqual([828, 702])
    expect(info.geoTransform).toEqual([-124.74, 0.01, 0, 49.01, 0, -0.01])
    expect(info.coordinateSystem.wkt).toContain('ID["EPSG",4326]')
    expect(band).toMatchObject({ type: 'Float32', block: [256, 256], noDataValue: NODATA })
    expect(band.overviews.map((o: { size: number[] }) => o.size)).toEqual([
      [414, 351],
      [207, 176],
    ])
    expect(info.metadata.IMAGE_STRUCTURE).toMatchObject({ COMPRESSION: 'DEFLATE', LAYOUT: 'COG' })
    const [active] = await db.sql<{ version: string }[]>`SELECT version FROM site_data_versions WHERE active`
    expect(info.metadata['']).toMatchObject({
      species_code: 'PSME',
      species_name: 'Douglas-fir (Pseudotsuga menziesii)',
      planting_method: 'manual',
      horizon_years: '5',
      climate: 'today (1991_2020)',
      model_version: '0.2',
      site_data_version: active?.version,
      search_radius_km: '10',
      nearest_site: 'nearest data site within the search radius; nodata beyond it',
      resolution_degrees: '0.01',
      nodata: '-9999',
    })
    expect(info.metadata[''].pixel).toMatch(
      /Douglas-fir .* 5 years .* nearest the pixel centre within the search radius/,
    )
  })

  it('is read by rasterio: CRS, transform, nodata, tiles and overviews', async () => {
    const info = await rasterio(file)
    expect(info).toMatchObject({
      driver: 'GTiff',
      epsg: 4326,
      width: 828,
      height: 702,
      nodata: NODATA,
      dtype: 'float32',
      blockShapes: [[256, 256]],
      overviews: [2, 4],
    })
    expect(info.transform).toEqual([0.01, 0, -124.74, 0, -0.01, 49.01])
    expect(info.tags.species_code).toBe('PSME')
  })
})

describe('GET /v1/rasters/survival.tif: every pixel is a prediction', () => {
  it('today: the value and the site POST /v1/predict answers at the pixel centre, nodata where it finds none', async () => {
    const file = await download(PSME_5, 'today.tif')
    await expectPixelsArePredictions(
      file,
      { species_code: 'PSME', planting_method: 'manual', horizons: [5] },
      1,
    )
  })

  it('under a future climate, for another species, method and horizon', async () => {
    const climate = { period: '2041-2070', scenario: 'ssp245' }
    const file = await download(
      { species: 'PIPO', method: 'drone_seeded', horizon: 3, ...climate },
      'future.tif',
    )
    await expectPixelsArePredictions(
      file,
      { species_code: 'PIPO', planting_method: 'drone_seeded', horizons: [3], climate },
      2,
    )
  })

  it('with a calibrated model version, the account’s own', async () => {
    const stored = await rest(server.url, 'POST', '/v1/surveys', {
      key,
      json: { plots: calibrationSurveys() },
    })
    expect(stored.status, stored.text).toBe(200)
    const calibrated = await post(server.url, '/v1/models/calibrations', {}, key)
    expect(calibrated.status, calibrated.text).toBe(201)
    const version: string = calibrated.body.model_version
    const query = { ...PSME_5, horizon: 3, model_version: version }
    const file = await download(query, 'calibrated.tif')
    const base = await download({ ...PSME_5, horizon: 3 }, 'base.tif')
    expect((await rasterio(file)).tags.model_version).toBe(version)
    await expectPixelsArePredictions(
      file,
      { species_code: 'PSME', planting_method: 'manual', horizons: [3], model_version: version },
      3,
    )
    // The calibration moved the surface.
    const points = pixelCentres(await rasterio(file), 200, 4)
    const [own, parent] = await Promise.all([gdalValues(file, points), gdalValues(base, points)])
    expect(own.some((value, i) => value !== NODATA && value !== parent[i])).toBe(true)
    // Another account cannot name it.
    const other = await issueKey(db, 'mycel')
    const refused = await fetchRaster(rasterPath(query), { key: other.key })
    expectError({ ...refused, body: refused.body }, 422, 'invalid_model_version')
  })
})

/** Today's count of the account's requests, as GET /v1/usage reports it (this call included). */
async function usedToday(withKey: string): Promise<number> {
  const usage = await rest(server.url, 'GET', '/v1/usage', { key: withKey })
  expect(usage.status, usage.text).toBe(200)
  return usage.body.today.used
}

describe('GET /v1/rasters/survival.tif: read in place over HTTP', () => {
  it('gdalinfo and gdallocationinfo read it through /vsicurl/ with the key, one counted request a read', async () => {
    const reader = await issueKey(db, 'mycel')
    // A raster no one has asked for yet: GDAL's HEAD makes it.
    const query = { species: 'THPL', method: 'manual', horizon: 1 }
    const url = `/vsicurl/${server.url}${rasterPath(query)}`
    const env = { GDAL_HTTP_HEADERS: `X-API-Key: ${reader.key}`, GDAL_HTTP_MAX_RETRY: '0' }

    const before = await usedToday(reader.key)
    const info = JSON.parse(await tool(GDALINFO, ['-json', url], { env }))
    expect(await usedToday(reader.key)).toBe(before + 2) // the read, and this usage call

    expect(info.size).toEqual([828, 702])
    expect(info.bands[0]).toMatchObject({ block: [256, 256], noDataValue: NODATA })
    expect(info.metadata['']).toMatchObject({ species_code: 'THPL', horizon_years: '1' })
    expect(info.metadata.IMAGE_STRUCTURE).toMatchObject({ LAYOUT: 'COG' })

    const file = await download(query, 'thpl.tif', key)
    const points = pixelCentres(await rasterio(file), 50, 5)
    const usedBefore = await usedToday(reader.key)
    const remote = await gdalValues(url, points, env)
    expect(await usedToday(reader.key)).toBe(usedBefore + 2)
    expect(remote).toEqual(await gdalValues(file, points))
    expect(remote.some((value) => value !== NODATA)).toBe(true)
  })
})

describe('GET /v1/rasters/survival.tif: ranges, HEAD, ETag', () => {
  const path = rasterPath(PSME_5)
  let whole: RasterAnswer

  beforeAll(async () => {
    whole = await fetchRaster(path)
  })

  it('answers the whole file with its headers', () => {
    expect(whole.status).toBe(200)
    expect(whole.headers.get('content-type')).toBe('image/tiff; application=geotiff; profile=cloud-optimized')
    expect(whole.headers.get('content-disposition')).toBe(
      'attachment; filename="survival-PSME-manual-5y.tif"',
    )
    expect(whole.headers.get('accept-ranges')).toBe('bytes')
    expect(Number(whole.headers.get('content-length'))).toBe(whole.bytes.length)
    expect(whole.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    expect(whole.headers.get('survival-data-version')).toMatch(/^sites_[0-9a-f]{12}$/)
    expect(whole.bytes.subarray(0, 4)).toEqual(Buffer.from([0x49, 0x49, 0x2a, 0x00]))
  })

  it('names a future climate in the file name', async () => {
    const answer = await fetchRaster(rasterPath({ ...PSME_5, period: '2041-2070', scenario: 'ssp245' }), {
      method: 'HEAD',
    })
    expect(answer.headers.get('content-disposition')).toBe(
      'attachment; filename="survival-PSME-manual-5y-2041-2070-ssp245.tif"',
    )
  })

  it('answers a single range with 206 and exactly those bytes', async () => {
    const length = whole.bytes.length
    const cases: [string, number, number][] = [
      ['bytes=0-16383', 0, 16383],
      ['bytes=1000-1999', 1000, 1999],
      [`bytes=${length - 10}-`, length - 10, length - 1],
      ['bytes=-500', length - 500, length - 1],
      [`bytes=100-${length + 5000}`, 100, length - 1],
    ]
    for (const [range, start, end] of cases) {
      const part = await fetchRaster(path, { headers: { range } })
      expect(part.status, range).toBe(206)
      expect(part.headers.get('content-range')).toBe(`bytes ${start}-${end}/${length}`)
      expect(Number(part.headers.get('content-length'))).toBe(end - start + 1)
      expect(part.bytes.equals(whole.bytes.subarray(start, end + 1)), range).toBe(true)
    }
  })

  it('answers 416 past the end, and the whole file for several ranges, a malformed one or a stale If-Range', async () => {
    const length = whole.bytes.length
    const past = await fetchRaster(path, { headers: { range: `bytes=${length}-` } })
    expectError(past, 416, 'range_not_satisfiable')
    expect(past.headers.get('content-range')).toBe(`bytes */${length}`)
    const wholeFile: Record<string, string>[] = [
      { range: 'bytes=0-99,200-299' },
      { range: 'bytes=abc' },
      { range: 'bytes=0-99', 'if-range': '"stale"' },
    ]
    for (const headers of wholeFile) {
      const answer = await fetchRaster(path, { headers })
      expect(answer.status, JSON.stringify(headers)).toBe(200)
      expect(answer.bytes.equals(whole.bytes)).toBe(true)
    }
    const fresh = await fetchRaster(path, {
      headers: { range: 'bytes=0-99', 'if-range': whole.headers.get('etag') ?? '' },
    })
    expect(fresh.status).toBe(206)
  })

  it('answers HEAD with the headers alone, and 304 for the ETag it gave', async () => {
    const head = await fetchRaster(path, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.bytes.length).toBe(0)
    expect(Number(head.headers.get('content-length'))).toBe(whole.bytes.length)
    expect(head.headers.get('etag')).toBe(whole.headers.get('etag'))
    const etag = whole.headers.get('etag') ?? ''
    for (const ifNoneMatch of [etag, `"other", W/${etag}`, '*']) {
      const unchanged = await fetchRaster(path, { headers: { 'if-none-match': ifNoneMatch } })
      expect(unchanged.status, ifNoneMatch).toBe(304)
      expect(unchanged.bytes.length).toBe(0)
    }
    expect((await fetchRaster(path, { headers: { 'if-none-match': '"other"' } })).status).toBe(200)
  })

  it('serves a second request from the cache: the same bytes under the same ETag', async () => {
    const again = await fetchRaster(path)
    expect(again.headers.get('etag')).toBe(whole.headers.get('etag'))
    expect(again.bytes.equals(whole.bytes)).toBe(true)
  })
})

describe('GET /v1/rasters/survival.tif: counting', () => {
  const remaining = (answer: RasterAnswer) => Number(answer.headers.get('x-ratelimit-remaining'))

  it('counts a download, a range from byte 0, a HEAD, and a range of a raster not yet made; not the rest', async () => {
    const counted = await issueKey(db, 'mycel')
    const ask = (query: Record<string, string | number>, options: Parameters<typeof fetchRaster>[1] = {}) =>
      fetchRaster(rasterPath(query), { key: counted.key, ...options })
    const query = { species: 'ABGR', method: 'manual', horizon: 5 }
    const steps: [string, Parameters<typeof fetchRaster>[1], boolean][] = [
      ['a range of a raster not yet made', { headers: { range: 'bytes=5000-5999' } }, true],
      ['a range of it, made now', { headers: { range: 'bytes=6000-6999' } }, false],
      ['a range from byte 0', { headers: { range: 'bytes=0-99' } }, true],
      ['the whole file', {}, true],
      ['a HEAD', { method: 'HEAD' }, true],
      ['the first block after it', { headers: { range: 'bytes=0-16383' } }, false],
      ['a tile', { headers: { range: 'bytes=16384-32767' } }, false],
      ['the first block again', { headers: { range: 'bytes=0-16383' } }, true],
      ['a range past the end', { headers: { range: 'bytes=99999999-' } }, false],
    ]
    let left = remaining(await ask({ ...query, species: 'x' })) // refused (422), and counted
    for (const [step, options, counts] of steps) {
      const answer = await ask(query, options)
      expect(answer.status, step).toBeLessThan(417)
      expect(left - remaining(answer), step).toBe(counts ? 1 : 0)
      left = remaining(answer)
    }
  })

  it('answers 429 once the quota is spent, yet lets a read already counted go on', async () => {
    const spore = await issueKey(db, 'spore')
    const path = rasterPath(PSME_5)
    const head = () => fetchRaster(path, { key: spore.key, method: 'HEAD' })
    const left = remaining(await head())
    for (let i = 0; i < left; i++) await head()
    expect((await head()).status).toBe(429)
    // The last counted HEAD pays for the GET from byte 0 after it; the next one is refused.
    expect((await fetchRaster(path, { key: spore.key })).status).toBe(200)
    expectError(await fetchRaster(path, { key: spore.key }), 429, 'rate_limit_exceeded')
    // A refused HEAD pays for nothing.
    expect((await head()).status).toBe(429)
    expectError(await fetchRaster(path, { key: spore.key }), 429, 'rate_limit_exceeded')
    const refused = await fetchRaster(rasterPath({ ...PSME_5, species: 'x' }), { key: spore.key })
    expectError(refused, 429, 'rate_limit_exceeded')
    const tile = await fetchRaster(path, { key: spore.key, headers: { range: 'bytes=16384-32767' } })
    expect(tile.status).toBe(206)
    expect(remaining(tile)).toBe(0)
  })
})

describe('GET /v1/rasters/survival.tif: what GDAL probes beside it, and bad input', () => {
  it('answers the sidecar files GDAL looks for with 404 at once, with no key and nothing counted', async () => {
    const probing = await issueKey(db, 'mycel')
    const before = await usedToday(probing.key)
    const sidecars = [
      '/v1/rasters/survival.tif.aux.xml',
      '/v1/rasters/survival.aux.xml',
      '/v1/rasters/survival.tif.ovr',
      '/v1/rasters/survival.tif.msk',
      '/v1/rasters/survival.ovr',
      '/v1/rasters/survival.TIF',
      '/v1/rasters/other.tif',
      '/v1/rasters/',
      '/v1/rasters',
    ]
    for (const sidecar of sidecars) {
      for (const method of ['GET', 'HEAD'] as const) {
        const withoutKey = await fetchRaster(`${sidecar}?species=PSME`, { key: null, method })
        expect(withoutKey.status, `${method} ${sidecar}`).toBe(404)
        const withKey = await fetchRaster(sidecar, { key: probing.key, method })
        expect(withKey.status, `${method} ${sidecar}`).toBe(404)
      }
    }
    expect(await usedToday(probing.key)).toBe(before + 1)
  })

  it('refuses each bad query with the API’s JSON errors', async () => {
    const ask = (query: string) => fetchRaster(`${PATH}?${query}`)
    const ok = 'species=PSME&method=manual&horizon=5'
    expectInvalidRequest(await ask('method=manual&horizon=5'), 'species')
    expectInvalidRequest(await ask('species=PSME&horizon=5'), 'method')
    expectInvalidRequest(await ask('species=PSME&method=manual'), 'horizon')
    expectInvalidRequest(await ask(`${ok}&colour=red`), 'colour')
    expectInvalidRequest(await ask(`${ok}&species=TSHE`), 'species')
    expectInvalidRequest(await ask(`${ok}&resolution=0.01&resolution=0.01`), 'resolution')
    expectInvalidRequest(await ask('species=PSME&method=manual&horizon=2'), 'horizon')
    expectInvalidRequest(await ask('species=PSME&method=manual&horizon=five'), 'horizon')
    for (const resolution of ['0.001', '0.0049', '0.6', '1', 'abc', '-0.01', '1e-2', '', '.01', '0.00501'])
      expectInvalidRequest(await ask(`${ok}&resolution=${resolution}`), 'resolution')
    const species = expectError(await ask('species=PSMA&method=manual&horizon=5'), 422, 'invalid_species')
    expect(species.details).toMatchObject({ closest_code: 'PSME' })
    expectError(await ask('species=PSME&method=aerial&horizon=5'), 422, 'invalid_method')
    expectError(await ask(`${ok}&period=2041-2070`), 422, 'invalid_climate')
    expectError(await ask(`${ok}&period=2200&scenario=ssp245`), 422, 'invalid_climate')
    expectError(await ask(`${ok}&model_version=9.9`), 422, 'invalid_model_version')
    // Checks in order: model version, species, method, climate.
    expectError(
      await ask('species=PSMA&method=aerial&horizon=5&model_version=9.9'),
      422,
      'invalid_model_version',
    )
    expectError(await ask('species=PSMA&method=aerial&horizon=5&period=2200'), 422, 'invalid_species')
    expectError(await fetchRaster(`${PATH}?${ok}`, { key: null }), 401, 'invalid_api_key')
    expectError(await fetchRaster(`${PATH}?${ok}`, { method: 'POST' }), 405, 'method_not_allowed')
  })

  it('takes the baseline period alone as today, and another resolution as another grid', async () => {
    const today = await fetchRaster(rasterPath(PSME_5), { method: 'HEAD' })
    const baseline = await fetchRaster(rasterPath({ ...PSME_5, period: '1991_2020' }), { method: 'HEAD' })
    expect(baseline.headers.get('etag')).toBe(today.headers.get('etag'))
    const coarse = await download({ ...PSME_5, resolution: 0.1 }, 'coarse.tif')
    expect(await rasterio(coarse)).toMatchObject({ width: 84, height: 72, overviews: [] })
    expect((await rasterio(coarse)).transform).toEqual([0.1, 0, -124.8, 0, -0.1, 49.1])
  })
})
