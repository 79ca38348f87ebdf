import { describe, expect, it, vi } from 'vitest'
import { FAKE_DATA_VERSION, FakeSiteTable, forestSite } from '../../../test/support/fakes.ts'
import { isInCoverage } from '../../geo/coverage.ts'
import { chordDistanceKm } from '../../geo/nearest-site-index.ts'
import { loadSurvivalModel } from '../../model/index.ts'
import type { Site, SurvivalModel } from '../../types.ts'
import { ApiError } from '../errors.ts'
import { COVERAGE_EXTENT } from '../features/feature-collections.ts'
import { SPECIES } from '../species.ts'
import { SurvivalMapService } from '../survival-map.ts'
import { columnCentre, gridOverBox, rowCentre } from './pixel-grid.ts'
import { PixelSiteFinder } from './pixel-sites.ts'
import {
  RASTER_NODATA,
  type SurvivalGrid,
  type SurvivalRasterRequest,
  SurvivalRasterService,
} from './survival-raster-service.ts'

const model = loadSurvivalModel(SPECIES)

/** Sites 0.2° apart over the Oregon Cascades, farther apart than the 10 km radius reaches. */
function gridSites(): Site[] {
  return Array.from({ length: 42 }, (_, i) => {
    const point = { latitude: 43.5 + Math.floor(i / 7) * 0.2, longitude: -123 + (i % 7) * 0.2 }
    return { ...forestSite(point, { elevationM: 200 + ((i * 97) % 1800) }), ...point, id: 1 + i }
  })
}

function setup(sites: Site[] = gridSites()) {
  const table = new FakeSiteTable(sites)
  const maps = new SurvivalMapService(model, table, { cacheEntries: 8 })
  const written: SurvivalGrid[] = []
  // Stands in for the GeoTIFF writer: the values' own bytes.
  const writer = vi.fn(async (grid: SurvivalGrid) => {
    written.push(grid)
    return Buffer.from(grid.values.buffer.slice(0))
  })
  const rasters = new SurvivalRasterService(maps, writer, { searchRadiusKm: 10 })
  return { table, maps, writer, written, rasters }
}

const request: SurvivalRasterRequest = {
  speciesCode: 'PSME',
  plantingMethod: 'manual',
  horizon: 5,
  climate: null,
  resolution: 0.05,
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(ApiError)
  return error as ApiError
}

describe('SurvivalRasterService', () => {
  it('draws each pixel from the site nearest its centre within the radius, nodata elsewhere', async () => {
    const { rasters, written } = setup()
    const raster = await (await rasters.order(request, model)).raster()
    const [grid] = written
    if (!grid) throw new Error('nothing written')
    expect(grid).toMatchObject({ ...gridOverBox(COVERAGE_EXTENT, 0.05), nodata: RASTER_NODATA })
    const sites = gridSites()
    const psme = SPECIES.find((species) => species.code === 'PSME')
    if (!psme) throw new Error('no PSME')
    // The pixel holding a site is that site's, with the model's survival there as a Float32.
    for (const site of sites) {
      const column = Math.floor((site.longitude - grid.west) / grid.resolution)
      const row = Math.floor((grid.north - site.latitude) / grid.resolution)
      const [prediction] = model.predict(site, psme, 'manual', [5])
      expect(grid.values[row * grid.width + column]).toBe(Math.fround(prediction?.survivalProbability ?? -1))
    }
    const values = [...grid.values]
    const drawn = values.filter((value) => value !== RASTER_NODATA)
    expect(drawn.length).toBeGreaterThan(sites.length)
    expect(drawn.every((value) => value > 0 && value < 1)).toBe(true)
    // Far from every site (the Olympic Peninsula, here empty): nodata.
    const column = Math.floor((-123.8 - grid.west) / grid.resolution)
    const row = Math.floor((grid.north - 47.8) / grid.resolution)
    expect(grid.values[row * grid.width + column]).toBe(RASTER_NODATA)
    expect(raster).toMatchObject({ fileName: 'survival-PSME-manual-5y.tif', dataVersion: FAKE_DATA_VERSION })
    expect(raster.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
  })

  it('writes nodata outside the coverage region even with a site within the radius', async () => {
    // A site by the Oregon–Idaho line: some pixels within its radius are in Idaho.
    const point = { latitude: 44.5, longitude: -117.2 }
    const border = { ...forestSite(point), ...point, id: 1 }
    const { rasters, written } = setup([border])
    await (await rasters.order({ ...request, resolution: 0.01 }, model)).raster()
    const grid = written[0] as SurvivalGrid
    const near = { covered: 0, outside: 0 }
    for (let row = 0; row < grid.height; row++)
      for (let column = 0; column < grid.width; column++) {
        const [latitude, longitude] = [rowCentre(grid, row), columnCentre(grid, column)]
        if (chordDistanceKm(latitude, longitude, point.latitude, point.longitude) > 9.9) continue
        const value = grid.values[row * grid.width + column]
        if (isInCoverage(latitude, longitude)) {
          near.covered++
          expect(value).not.toBe(RASTER_NODATA)
        } else {
          near.outside++
          expect(value).toBe(RASTER_NODATA)
        }
      }
    expect(near.covered).toBeGreaterThan(50)
    expect(near.outside).toBeGreaterThan(50)
  })

  it('says what a pixel is in the metadata, and names the file after the series and climate', async () => {
    const { rasters, written } = setup()
    const raster = await (
      await rasters.order(
        { ...request, horizon: 3, climate: { period: '2041-2070', scenario: 'ssp245' } },
        model,
      )
    ).raster()
    expect(raster.fileName).toBe('survival-PSME-manual-3y-2041-2070-ssp245.tif')
    expect(written[0]?.metadata).toMatchObject({
      species_code: 'PSME',
      planting_method: 'manual',
      horizon_years: '3',
      climate: '2041-2070 ssp245',
      model_version: model.version,
      site_data_version: FAKE_DATA_VERSION,
      search_radius_km: '10',
      nearest_site: 'nearest data site within the search radius; nodata beyond it',
      resolution_degrees: '0.05',
      nodata: String(RASTER_NODATA),
    })
    await (await rasters.order(request, model)).raster()
    expect(written[1]?.metadata.climate).toBe('today (1991_2020)')
  })

  it('checks species, then method, then climate, then resolution, before reading the sites', async () => {
    const { rasters, table } = setup()
    const code = async (changes: Partial<SurvivalRasterRequest>) =>
      (await refusal(rasters.order({ ...request, ...changes }, model))).code
    expect(await code({ speciesCode: 'PSMA', plantingMethod: 'by air', resolution: 9 })).toBe(
      'invalid_species',
    )
    expect(await code({ plantingMethod: 'by air', climate: { period: '2200' }, resolution: 9 })).toBe(
      'invalid_method',
    )
    expect(await code({ climate: { period: '2200' }, resolution: 9 })).toBe('invalid_climate')
    expect(await code({ climate: { period: '2041-2070' } })).toBe('invalid_climate')
    const resolution = await refusal(rasters.order({ ...request, resolution: 0.001 }, model))
    expect(resolution.details).toMatchObject({ field: 'resolution' })
    expect(table.revisionReads).toBe(0)
  })

  it('makes a raster once, shares it among concurrent orders, and holds it for the next', async () => {
    const { rasters, writer } = setup()
    const first = await rasters.order(request, model)
    expect(first.ready).toBeUndefined()
    const [a, b] = await Promise.all([first.raster(), (await rasters.order(request, model)).raster()])
    expect(a).toBe(b)
    const again = await rasters.order(request, model)
    expect(again.key).toBe(first.key)
    expect(again.ready).toBe(a)
    expect(writer).toHaveBeenCalledTimes(1)
  })

  it('keys a raster by everything that decides its bytes', async () => {
    const { rasters } = setup()
    const calibrated: SurvivalModel = { ...model, version: `${model.version}+cal.0123abcd` }
    const keys = await Promise.all(
      [
        rasters.order(request, model),
        rasters.order({ ...request, speciesCode: 'TSHE' }, model),
        rasters.order({ ...request, plantingMethod: 'drone_seeded' }, model),
        rasters.order({ ...request, horizon: 1 }, model),
        rasters.order({ ...request, climate: { period: '2041-2070', scenario: 'ssp245' } }, model),
        rasters.order({ ...request, resolution: 0.01 }, model),
        rasters.order(request, calibrated),
      ].map(async (order) => (await order).key),
    )
    expect(new Set(keys).size).toBe(keys.length)
    // Today's climate asked for by its baseline period is today's raster.
    expect((await rasters.order({ ...request, climate: { period: '1991_2020' } }, model)).key).toBe(keys[0])
  })

  it('finds each pixel’s site once per resolution, for every series drawn at it', async () => {
    const find = vi.spyOn(PixelSiteFinder.prototype, 'find')
    try {
      const { rasters } = setup()
      await (await rasters.order(request, model)).raster()
      await (await rasters.order({ ...request, speciesCode: 'TSHE', horizon: 1 }, model)).raster()
      expect(find).toHaveBeenCalledTimes(1)
      await (await rasters.order({ ...request, resolution: 0.1 }, model)).raster()
      expect(find).toHaveBeenCalledTimes(2)
    } finally {
      find.mockRestore()
    }
  })

  it('starts over from the new sites when the site table changes', async () => {
    const { rasters, table, written } = setup()
    const before = await (await rasters.order(request, model)).raster()
    table.replace(gridSites().slice(0, 10))
    const order = await rasters.order(request, model)
    expect(order.ready).toBeUndefined()
    const after = await order.raster()
    expect(after.etag).not.toBe(before.etag)
    const drawn = (grid: SurvivalGrid | undefined) => grid?.values.filter((v) => v !== RASTER_NODATA).length
    expect(drawn(written[1])).toBeLessThan(drawn(written[0]) ?? 0)
  })
})
